#include "token_weights.hpp"

#include <algorithm>

#include "shmtrain/data/dataset.hpp"
#include "shmtrain/model/reranking/listwise_loss.hpp"

namespace shmtrain::train {

namespace {

void weigh_by(std::vector<data::Batch>& batches, comm::Communicator& comm, const std::vector<float>& counts) {
  std::vector<float> global = counts;
  if (comm.size() > 1) comm.allreduce(global, comm::ReduceOp::sum);
  double total = 0;
  for (const float c : global) total += c;
  if (total == 0) return;
  const double averaged = static_cast<double>(batches.size()) * comm.size();
  for (std::size_t i = 0; i < batches.size(); ++i) {
    batches[i].loss_weight = static_cast<float>(averaged * counts[i] / total);
  }
}

}  // namespace

void weigh_token_batches(std::vector<data::Batch>& batches, comm::Communicator& comm) {
  std::vector<float> counts(batches.size());
  for (std::size_t i = 0; i < batches.size(); ++i) {
    counts[i] = static_cast<float>(std::count_if(batches[i].labels.begin(), batches[i].labels.end(),
                                                 [](std::int32_t l) { return l != data::kIgnoredLabel; }));
  }
  weigh_by(batches, comm, counts);
}

void weigh_example_batches(std::vector<data::Batch>& batches, comm::Communicator& comm) {
  std::vector<float> counts(batches.size());
  for (std::size_t i = 0; i < batches.size(); ++i) {
    counts[i] = static_cast<float>(batches[i].batch / std::max<std::int64_t>(batches[i].choices, 1));
  }
  weigh_by(batches, comm, counts);
}

void weigh_list_batches(std::vector<data::Batch>& batches, comm::Communicator& comm, const model::BertConfig& config) {
  std::vector<float> counts(batches.size());
  for (std::size_t i = 0; i < batches.size(); ++i) {
    const data::Batch& b = batches[i];
    counts[i] = static_cast<float>(
        config.score_loss == model::BertConfig::ScoreLoss::kLambda
            ? model::reranking::lambda_pair_count(b.targets, b.list_lengths, config.lambda_weighting)
            : static_cast<std::int64_t>(b.list_lengths.size()));
  }
  weigh_by(batches, comm, counts);
}

}  // namespace shmtrain::train
