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

#include "shmtrain/task/task.hpp"

namespace shmtrain::task {

struct RetrievalSet {
  std::string name;  // the evaluator's name in the metrics
  std::vector<std::string> corpus_ids;
  std::vector<std::string> corpus;  // the documents' texts
  std::vector<std::string> query_ids;
  std::vector<std::string> queries;
  std::vector<std::set<std::int64_t>> relevant;  // per query, corpus indices (< 0: never retrieved)
};

// `name` empty: the folder's name.
RetrievalSet read_beir_folder(const std::filesystem::path& folder, const std::string& name);

// A NanoBEIR-style Hub dataset, as NanoBEIREvaluator loads one: the documents' and queries'
// `text` alone (no title), those with an empty text dropped; every qrels pair relevant (a
// score column, if any, is not read). A relevant document dropped for its empty text stays
// relevant, never retrieved (the evaluator counts it so): a negative index. A qrels id the
// corpus never had is an InputError naming the row. `name` empty: the repo's name.
RetrievalSet read_beir_hub(const RetrievalHub& hub, const std::string& name);

}  // namespace shmtrain::task
