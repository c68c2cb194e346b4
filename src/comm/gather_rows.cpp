#include "shmtrain/comm/gather_rows.hpp"

#include <algorithm>
#include <cmath>

namespace shmtrain::comm {

RowGather::RowGather(Communicator& comm, std::int64_t rows) : comm_(comm) {
  const int world = comm.size();
  // Counts travel as floats: exact below 2^24 rows, far past any batch.
  const float mine = static_cast<float>(rows);
  std::vector<float> counts(static_cast<std::size_t>(world));
  comm.allgather(std::span<const float>(&mine, 1), counts);
  starts_.assign(static_cast<std::size_t>(world) + 1, 0);
  for (int r = 0; r < world; ++r) {
    const auto count = static_cast<std::int64_t>(std::lround(counts[static_cast<std::size_t>(r)]));
    starts_[static_cast<std::size_t>(r) + 1] = starts_[static_cast<std::size_t>(r)] + count;
    padded_ = std::max(padded_, count);
  }
}

void RowGather::gather(std::span<const float> local, std::int64_t width, std::span<float> out) {
  const int world = comm_.size();
  const auto slot = static_cast<std::size_t>(padded_ * width);
  if (local.size() != static_cast<std::size_t>(rows_of(comm_.rank()) * width) ||
      out.size() != static_cast<std::size_t>(total_rows() * width)) {
    throw Error("RowGather::gather: the rows' sizes differ from the counts");
  }
  if (slot == 0) return;
  std::vector<float> mine(slot, 0.0f);
  std::copy(local.begin(), local.end(), mine.begin());
  staging_.assign(slot * static_cast<std::size_t>(world), 0.0f);
  comm_.allgather(mine, staging_);
  for (int r = 0; r < world; ++r) {
    const auto* from = staging_.data() + static_cast<std::size_t>(r) * slot;
    std::copy(from, from + rows_of(r) * width, out.begin() + rows_before(r) * width);
  }
}

void RowGather::scatter_sum(std::span<const float> gathered_grad, std::int64_t width, std::span<float> local) {
  const int world = comm_.size();
  const auto slot = static_cast<std::size_t>(padded_ * width);
  if (gathered_grad.size() != static_cast<std::size_t>(total_rows() * width) ||
      local.size() != static_cast<std::size_t>(rows_of(comm_.rank()) * width)) {
    throw Error("RowGather::scatter_sum: the gradients' sizes differ from the counts");
  }
  if (slot == 0) return;
  staging_.assign(slot * static_cast<std::size_t>(world), 0.0f);
  for (int r = 0; r < world; ++r) {
    const auto* from = gathered_grad.data() + rows_before(r) * width;
    std::copy(from, from + rows_of(r) * width, staging_.begin() + static_cast<std::ptrdiff_t>(r * slot));
  }
  std::vector<float> mine(slot);
  comm_.reduce_scatter(staging_, mine, ReduceOp::sum);
  std::copy(mine.begin(), mine.begin() + static_cast<std::ptrdiff_t>(local.size()), local.begin());
}

}  // namespace shmtrain::comm
