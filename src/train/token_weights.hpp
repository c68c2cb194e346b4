#pragma once
// Internal to train: token classification's loss is the mean over the labelled tokens of the
// whole step (every micro-batch of every worker), so that 1 and P workers train the same
// model. Each batch's mean loss gets the weight M * P * n_i / N (n_i its labelled tokens, N the
// step's, M micro-batches, P workers): the engine averages the micro-batches and the exchange
// the workers, which turns the weighted means into the global one. One small all-reduce of
// the counts per step.
#include <vector>

#include "shmtrain/comm/communicator.hpp"
#include "shmtrain/data/batch.hpp"
#include "shmtrain/model/bert_config.hpp"

namespace shmtrain::train {

void weigh_token_batches(std::vector<data::Batch>& batches, comm::Communicator& comm);

// The same for sentence embeddings, whose losses are a mean over each batch's examples (its
// anchors or pairs): weights M * P * e_i / E, so a short last batch counts by its examples.
void weigh_example_batches(std::vector<data::Batch>& batches, comm::Communicator& comm);

// Listwise reranking: ListNetLoss is a mean over the lists (weights by list count), LambdaLoss
// over the pairs it takes (lambda_pair_count): summed over the step, so 1 and P workers agree.
void weigh_list_batches(std::vector<data::Batch>& batches, comm::Communicator& comm, const model::BertConfig& config);

}  // namespace shmtrain::train
