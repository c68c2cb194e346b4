#pragma once
// Internal to train: which dataset rows each of this worker's micro-batches takes. The epoch's
// order is DistributedSampler's (data/sampler.hpp), or Hugging Face's LengthGroupedSampler's
// with --group_by_length; with --balance_tokens the rows of one global micro-batch (every
// worker's share of it) are dealt again so that the workers get about the same number of
// tokens (data/token_balance.hpp), each keeping its row count. With --batch_sampler
// no_duplicates the epoch's order (shuffled or not) is cut into sentence-transformers'
// NoDuplicatesBatchSampler batches (data/sampler.hpp: no text twice in a batch), dealt to the
// workers in turn as accelerate deals a batch sampler's batches (worker r takes batches r,
// r + P, ...; the last round filled from the first batches again); the step plan's count of
// micro-batches (ceil(rows / P / batch_size), as the sampler's __len__) ends the epoch, and the
// rows of any batches past it (rows that could only share a batch with a duplicate) are left
// out of that epoch: left_out() tells how many.
#include <cstdint>
#include <vector>

#include "shmtrain/data/dataset.hpp"

namespace shmtrain::train {

struct BatchRowsOptions {
  bool shuffle = true;
  bool group_by_length = false;
  bool balance_tokens = false;
  bool no_duplicates = false;
  std::int64_t batches_per_epoch = 0;  // no_duplicates: the step plan's micro-batches per worker
  std::int64_t batch_size = 8;  // per worker
  std::uint64_t seed = 42;
};

class BatchRows {
 public:
  // REQUIRES: dataset outlives this object.
  BatchRows(const data::Dataset& dataset, const BatchRowsOptions& options, int rank, int world_size);

  // This worker's rows of micro-batch `batch` of `epoch` (fewer than batch_size at an epoch's end).
  std::vector<std::int64_t> rows(std::int64_t epoch, std::int64_t batch);
  // no_duplicates: the rows the last epoch rows() was asked for leaves out; 0 otherwise.
  std::int64_t left_out() const { return left_out_; }

 private:
  std::vector<std::int64_t> order_of(std::int64_t epoch, int rank) const;
  static std::vector<std::int64_t> slice(const std::vector<std::int64_t>& order, std::int64_t first,
                                         std::int64_t count);

  BatchRowsOptions options_;
  int rank_, world_size_;
  std::vector<std::int64_t> lengths_;  // each row's tokens
  std::int64_t epoch_ = -1;
  // The epoch's order for every worker (balance_tokens) or for this one only.
  std::vector<std::vector<std::int64_t>> orders_;
  std::vector<std::vector<std::uint64_t>> keys_;            // no_duplicates: each row's text keys
  std::vector<std::vector<std::int64_t>> unique_batches_;  // no_duplicates: the epoch's batches
  std::int64_t left_out_ = 0;
};

}  // namespace shmtrain::train
