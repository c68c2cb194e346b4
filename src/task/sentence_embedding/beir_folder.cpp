#include "shmtrain/task/sentence_embedding/beir_folder.hpp"

#include <charconv>
#include <unordered_map>

#include <fmt/format.h>

#include "shmtrain/common/error.hpp"
#include "shmtrain/data/json_lines.hpp"
#include "shmtrain/data/parquet_split.hpp"
#include "shmtrain/data/table.hpp"

namespace shmtrain::task {
namespace {

namespace fs = std::filesystem;

const std::string& field(const data::Table& table, const data::Record& record, std::size_t column, bool optional,
                         const std::string& empty) {
  const data::Value& v = record.fields[column];
  if (v.kind == data::ValueKind::missing || v.kind == data::ValueKind::null) {
    if (optional) return empty;
    fail_input("{}:{}: '{}' is missing", table.source, record.line, table.columns[column]);
  }
  if (v.kind != data::ValueKind::string && v.kind != data::ValueKind::integer && v.kind != data::ValueKind::untyped) {
    fail_input("{}:{}: '{}' must be a string", table.source, record.line, table.columns[column]);
  }
  return v.text;
}

// The ids of `table`'s "_id" column, each once, with their place.
std::unordered_map<std::string, std::int64_t> index_ids(const data::Table& table, std::size_t id_column,
                                                        std::vector<std::string>& ids) {
  std::unordered_map<std::string, std::int64_t> index;
  const std::string empty;
  for (const data::Record& record : table.records) {
    const std::string& id = field(table, record, id_column, false, empty);
    if (!index.emplace(id, static_cast<std::int64_t>(ids.size())).second) {
      fail_input("{}:{}: _id '{}' is given twice", table.source, record.line, id);
    }
    ids.push_back(id);
  }
  return index;
}

}  // namespace

RetrievalSet read_beir_folder(const fs::path& folder, const std::string& name) {
  if (!fs::is_directory(folder)) {
    fail_input("--ir_eval_dir {}: no such folder (a BEIR folder: corpus.jsonl, queries.jsonl, qrels/dev.tsv)",
               folder.string());
  }
  RetrievalSet out;
  out.name = name.empty() ? folder.filename().string() : name;
  if (out.name.empty()) out.name = folder.parent_path().filename().string();
  const std::string hint = "a BEIR corpus line is {\"_id\", \"title\", \"text\"}";
  const std::string empty;

  const data::Table corpus = data::json_lines_table(data::read_json_lines(folder / "corpus.jsonl", "the BEIR corpus"));
  const std::size_t corpus_id = corpus.column("_id", hint);
  const std::size_t corpus_text = corpus.column("text", hint);
  const std::optional<std::size_t> title = corpus.find_column("title");
  const auto corpus_index = index_ids(corpus, corpus_id, out.corpus_ids);
  for (const data::Record& record : corpus.records) {
    const std::string& text = field(corpus, record, corpus_text, false, empty);
    const std::string& heading = title ? field(corpus, record, *title, true, empty) : empty;
    out.corpus.push_back(heading.empty() ? text : heading + " " + text);
  }

  const data::Table queries =
      data::json_lines_table(data::read_json_lines(folder / "queries.jsonl", "the BEIR queries"));
  const std::size_t query_id = queries.column("_id", "a BEIR query line is {\"_id\", \"text\"}");
  const std::size_t query_text = queries.column("text", "a BEIR query line is {\"_id\", \"text\"}");
  std::vector<std::string> all_query_ids;
  const auto query_index = index_ids(queries, query_id, all_query_ids);

  fs::path qrels = folder / "qrels" / "dev.tsv";
  if (!fs::is_regular_file(qrels)) qrels = folder / "qrels" / "test.tsv";
  if (!fs::is_regular_file(qrels)) fail_input("{}: no qrels/dev.tsv or qrels/test.tsv", folder.string());
  const data::Table judgements = data::read_tsv(qrels, "the BEIR qrels", true, {});
  const std::string qrels_hint = "qrels are 'query-id corpus-id score' lines under that header";
  const std::size_t q_column = judgements.column("query-id", qrels_hint);
  const std::size_t c_column = judgements.column("corpus-id", qrels_hint);
  const std::size_t s_column = judgements.column("score", qrels_hint);
  std::vector<std::set<std::int64_t>> relevant(all_query_ids.size());
  for (const data::Record& record : judgements.records) {
    const std::string& q = record.fields[q_column].text;
    const std::string& c = record.fields[c_column].text;
    const std::string& s = record.fields[s_column].text;
    double score = 0;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), score);
    if (ec != std::errc() || end != s.data() + s.size()) {
      fail_input("{}:{}: score '{}' is not a number", judgements.source, record.line, s);
    }
    const auto doc = corpus_index.find(c);
    if (doc == corpus_index.end()) {
      fail_input("{}:{}: corpus-id '{}' is not in {}", judgements.source, record.line, c,
                 (folder / "corpus.jsonl").string());
    }
    const auto query = query_index.find(q);
    if (query == query_index.end() || score <= 0) continue;  // judged queries the set lacks are not evaluated
    relevant[static_cast<std::size_t>(query->second)].insert(doc->second);
  }
  for (std::size_t q = 0; q < all_query_ids.size(); ++q) {
    if (relevant[q].empty()) continue;
    out.query_ids.push_back(all_query_ids[q]);
    out.queries.push_back(field(queries, queries.records[q], query_text, false, empty));
    out.relevant.push_back(std::move(relevant[q]));
  }
  if (out.queries.empty()) fail_input("{}: no query has a relevant document", qrels.string());
  return out;
}

RetrievalSet read_beir_hub(const RetrievalHub& hub, const std::string& name) {
  RetrievalSet out;
  out.name = name.empty() ? hub.repo_id.substr(hub.repo_id.rfind('/') + 1) : name;
  const std::string empty;
  // Each config's {_id: text}, the empty texts left out; `dropped` the ids left out.
  auto texts = [&](const std::vector<fs::path>& shards, const char* config, std::vector<std::string>& ids,
                   std::vector<std::string>& values, std::set<std::string>& dropped) {
    const data::Table table = data::json_lines_table(
        data::read_parquet_split(shards, fmt::format("--ir_eval_dir {} ({})", hub.repo_id, config)).rows);
    const std::string hint = fmt::format("a NanoBEIR {} row is {{_id, text}}", config);
    const std::size_t id_column = table.column("_id", hint);
    const std::size_t text_column = table.column("text", hint);
    std::unordered_map<std::string, std::int64_t> index;
    for (const data::Record& record : table.records) {
      const std::string& id = field(table, record, id_column, false, empty);
      const std::string& text = field(table, record, text_column, true, empty);
      if (index.count(id) > 0 || dropped.count(id) > 0) {
        fail_input("{}:{}: _id '{}' is given twice", table.source, record.line, id);
      }
      if (text.empty()) {
        dropped.insert(id);
        continue;
      }
      index.emplace(id, static_cast<std::int64_t>(ids.size()));
      ids.push_back(id);
      values.push_back(text);
    }
    return index;
  };
  std::set<std::string> empty_documents, empty_queries;
  const auto corpus_index = texts(hub.corpus, "corpus", out.corpus_ids, out.corpus, empty_documents);
  std::vector<std::string> query_ids, queries;
  const auto query_index = texts(hub.queries, "queries", query_ids, queries, empty_queries);

  const data::Table qrels = data::json_lines_table(
      data::read_parquet_split(hub.qrels, fmt::format("--ir_eval_dir {} (qrels)", hub.repo_id)).rows);
  const std::string hint = "a NanoBEIR qrels row is {query-id, corpus-id}";
  const std::size_t q_column = qrels.column("query-id", hint);
  const std::size_t c_column = qrels.column("corpus-id", hint);
  std::vector<std::set<std::int64_t>> relevant(query_ids.size());
  std::unordered_map<std::string, std::int64_t> unretrievable;  // empty documents: -1, -2, ...
  for (const data::Record& record : qrels.records) {
    const std::string& q = field(qrels, record, q_column, false, empty);
    const std::string& c = field(qrels, record, c_column, false, empty);
    std::int64_t doc = 0;
    if (const auto found = corpus_index.find(c); found != corpus_index.end()) {
      doc = found->second;
    } else if (empty_documents.count(c) > 0) {
      doc = unretrievable.emplace(c, -1 - static_cast<std::int64_t>(unretrievable.size())).first->second;
    } else {
      fail_input("{}:{}: corpus-id '{}' is not in the corpus of {}", qrels.source, record.line, c, hub.repo_id);
    }
    const auto query = query_index.find(q);
    if (query == query_index.end()) continue;  // judged queries the set lacks are not evaluated
    relevant[static_cast<std::size_t>(query->second)].insert(doc);
  }
  for (std::size_t q = 0; q < query_ids.size(); ++q) {
    if (relevant[q].empty()) continue;
    out.query_ids.push_back(query_ids[q]);
    out.queries.push_back(queries[q]);
    out.relevant.push_back(std::move(relevant[q]));
  }
  if (out.queries.empty()) fail_input("--ir_eval_dir {}: no query has a relevant document in its qrels", hub.repo_id);
  return out;
}

}  // namespace shmtrain::task
