#pragma once
// An information-retrieval evaluation set in BEIR's folder layout, as sentence-transformers'
// InformationRetrievalEvaluator is given it: corpus.jsonl ({"_id", "title", "text"}; a
// document is title + " " + text when it has a title), queries.jsonl ({"_id", "text"}) and
// qrels/dev.tsv (else qrels/test.tsv: a "query-id corpus-id score" header, then one judgement a
// line, relevant when score > 0). Queries without a relevant document are dropped, as the
// evaluator drops them. Every problem is an InputError naming the file and line.
#include <cstdint>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

namespace shmtrain::task {

struct RetrievalSet {
  std::string name;  // the evaluator's name in the metrics
  std::vector<std::string> corpus_ids;
  std::vector<std::string> corpus;  // the documents' texts
  std::vector<std::string> query_ids;
  std::vector<std::string> queries;
  std::vector<std::set<std::int64_t>> relevant;  // per query, corpus indices
};

// `name` empty: the folder's name.
RetrievalSet read_beir_folder(const std::filesystem::path& folder, const std::string& name);

}  // namespace shmtrain::task
