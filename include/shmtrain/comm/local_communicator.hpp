#pragma once
// The communicator of a single process: every collective is the identity (avg divides by 1,
// a copy for allgather and reduce_scatter), so the trainer has one code path for 1 or P workers.
#include <deque>
#include <vector>

#include "shmtrain/comm/communicator.hpp"

namespace shmtrain::comm {

class LocalCommunicator final : public Communicator {
 public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  void allreduce(std::span<float> data, ReduceOp op) override;
  void broadcast(std::span<float> data, int root) override;
  void barrier() override {}
  void allgather(std::span<const float> input, std::span<float> output) override;
  void reduce_scatter(std::span<const float> input, std::span<float> output, ReduceOp op) override;
  std::span<float> allocate(std::size_t count) override;

 private:
  std::deque<std::vector<float>> buffers_;
};

// Throws Error unless `actual` == `expected`; `what` names the collective and argument.
void require_size(std::string_view what, std::size_t actual, std::size_t expected);

}  // namespace shmtrain::comm
