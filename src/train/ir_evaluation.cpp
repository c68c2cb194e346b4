#include "shmtrain/train/ir_evaluation.hpp"

#include <algorithm>

#include "shmtrain/model/sentence/normalize.hpp"
#include "shmtrain/task/sentence_embedding/ir_metrics.hpp"
#include "shmtrain/tensor/gemm.hpp"
#include "shmtrain/train/embed.hpp"

namespace shmtrain::train {
namespace {

// Every worker's share of `texts` embedded, all-gathered, in the texts' order, each row
// normalised (util.cos_sim normalises both sides).
std::vector<float> embed_shared(model::EncoderModel& model, const text::Tokenizer& tokenizer,
                                const std::vector<std::string>& texts, std::size_t max_seq_length,
                                std::int64_t batch_size, comm::Communicator& comm) {
  const auto n = static_cast<std::int64_t>(texts.size());
  const std::int64_t world = comm.size();
  const std::int64_t h = model.config().hidden_size;
  const std::int64_t share = (n + world - 1) / world;
  std::vector<std::string> mine;
  for (std::int64_t k = 0; k < share && k * world + comm.rank() < n; ++k) {
    mine.push_back(texts[static_cast<std::size_t>(k * world + comm.rank())]);
  }
  std::vector<float> local(static_cast<std::size_t>(share * h), 0.0f);
  const std::vector<float> embedded = embed_texts(model, tokenizer, mine, max_seq_length, batch_size);
  std::copy(embedded.begin(), embedded.end(), local.begin());
  std::vector<float> all(static_cast<std::size_t>(share * world * h));
  comm.allgather(local, all);
  std::vector<float> ordered(static_cast<std::size_t>(n * h));
  for (std::int64_t row = 0; row < n; ++row) {
    const float* from = all.data() + ((row % world) * share + row / world) * h;
    model::sentence::normalize_rows_forward(ordered.data() + row * h, h, from, h, 1, h);
  }
  return ordered;
}

}  // namespace

task::Metrics evaluate_retrieval(model::EncoderModel& model, const text::Tokenizer& tokenizer,
                                 const task::RetrievalSet& set, std::size_t max_seq_length, std::int64_t batch_size,
                                 comm::Communicator& comm) {
  const std::int64_t h = model.config().hidden_size;
  const std::vector<float> queries = embed_shared(model, tokenizer, set.queries, max_seq_length, batch_size, comm);
  const std::vector<float> corpus = embed_shared(model, tokenizer, set.corpus, max_seq_length, batch_size, comm);
  const auto nq = static_cast<std::int64_t>(set.queries.size());
  const auto nc = static_cast<std::int64_t>(set.corpus.size());
  const task::sentence_embedding::IrCutoffs cutoffs;
  std::vector<std::vector<task::sentence_embedding::Hit>> hits;
  // Queries in blocks, so the score matrix stays small whatever the corpus.
  const std::int64_t block = std::max<std::int64_t>(1, (std::int64_t{1} << 24) / std::max<std::int64_t>(nc, 1));
  std::vector<float> scores;
  for (std::int64_t first = 0; first < nq; first += block) {
    const std::int64_t rows = std::min(block, nq - first);
    scores.assign(static_cast<std::size_t>(rows * nc), 0.0f);
    tensor::gemm(tensor::Trans::kNo, tensor::Trans::kYes, rows, nc, h, 1.0f, queries.data() + first * h, h,
                 corpus.data(), h, 0.0f, scores.data(), nc);
    for (std::int64_t q = 0; q < rows; ++q) {
      hits.push_back(task::sentence_embedding::ranked_hits(scores.data() + q * nc, set.corpus_ids, cutoffs.max_k()));
    }
  }
  const auto metrics = task::sentence_embedding::ir_metrics(hits, set.relevant, cutoffs);
  // The evaluator's order: accuracy, precision, recall, ndcg, mrr, map.
  task::Metrics out;
  const std::string prefix = set.name + "_cosine_";
  const std::pair<const char*, const std::vector<int>*> kinds[] = {
      {"accuracy@", &cutoffs.accuracy_at_k}, {"precision@", &cutoffs.precision_recall_at_k},
      {"recall@", &cutoffs.precision_recall_at_k}, {"ndcg@", &cutoffs.ndcg_at_k},
      {"mrr@", &cutoffs.mrr_at_k}, {"map@", &cutoffs.map_at_k}};
  for (const auto& [kind, ks] : kinds) {
    for (const int k : *ks) {
      const std::string name = kind + std::to_string(k);
      out.emplace_back(prefix + name, metrics.at(name));
    }
  }
  return out;
}

}  // namespace shmtrain::train
