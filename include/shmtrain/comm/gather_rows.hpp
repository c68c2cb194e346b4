#pragma once
// All-gather of rows whose count differs between ranks, with its backward: how the in-batch
// negatives of a contrastive loss cross workers (sentence-transformers' all_gather_with_grad,
// util/distributed.py, whose torch.distributed.nn.all_gather needs equal sizes; here a rank may
// hold fewer rows, as the last batch of an epoch does).
//   counts   every rank's row count, all-gathered first (one float each)
//   gather   each rank's rows padded to the largest count, all-gathered, the padding dropped:
//            rank 0's rows, then rank 1's, ... (rows_before(r) rows ahead of rank r's)
//   backward the gradient of the gathered rows, padded again and reduce-scattered (summed):
//            each rank gets the sum over every rank's gradient of its own rows
// Collective: every rank calls each with the same width, in the same order.
#include <cstdint>
#include <span>
#include <vector>

#include "shmtrain/comm/communicator.hpp"

namespace shmtrain::comm {

class RowGather {
 public:
  // Collective: learns every rank's row count (`rows` here).
  RowGather(Communicator& comm, std::int64_t rows);

  std::int64_t rows_before(int rank) const { return starts_[static_cast<std::size_t>(rank)]; }
  std::int64_t total_rows() const { return starts_.back(); }
  std::int64_t rows_of(int rank) const { return rows_before(rank + 1) - rows_before(rank); }

  // out (total_rows(), width) = every rank's `local` (rows, width), in rank order.
  void gather(std::span<const float> local, std::int64_t width, std::span<float> out);
  // local (rows, width) = sum over ranks of their `gathered_grad` (total_rows(), width) at
  // this rank's rows.
  void scatter_sum(std::span<const float> gathered_grad, std::int64_t width, std::span<float> local);

 private:
  Communicator& comm_;
  std::vector<std::int64_t> starts_;  // size() + 1 row starts
  std::int64_t padded_ = 0;           // the largest count
  std::vector<float> staging_;
};

}  // namespace shmtrain::comm
