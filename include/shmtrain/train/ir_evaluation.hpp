#pragma once
// InformationRetrievalEvaluator during training: every worker embeds its share of the queries
// and of the corpus (rows r, r + P, ...), the shares are all-gathered, and every worker ranks
// the whole corpus for every query by cosine similarity and computes the metrics
// (task/sentence_embedding/ir_metrics.hpp), so no worker waits on another's evaluation.
// Collective: every worker calls it at the same evaluation.
#include <cstdint>

#include "shmtrain/comm/communicator.hpp"
#include "shmtrain/model/encoder_model.hpp"
#include "shmtrain/task/sentence_embedding/beir_folder.hpp"
#include "shmtrain/task/task.hpp"
#include "shmtrain/text/tokenizer.hpp"

namespace shmtrain::train {

// "<name>_cosine_accuracy@1", ..., "<name>_cosine_ndcg@10", "<name>_cosine_map@100", without
// "eval_", in the evaluator's order.
task::Metrics evaluate_retrieval(model::EncoderModel& model, const text::Tokenizer& tokenizer,
                                 const task::RetrievalSet& set, std::size_t max_seq_length, std::int64_t batch_size,
                                 comm::Communicator& comm);

}  // namespace shmtrain::train
