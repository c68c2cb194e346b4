#pragma once
// The communicator of ranks on one machine, over a shared segment (comm/shm/segment.hpp): one per
// worker process (the launcher hands each worker one), or one per thread (comm/thread_group.hpp).
//
// allreduce picks its algorithm by size: up to one_shot_bytes, one shot through the slots (one
// step); above, reduce-scatter + all-gather, in place when every rank's buffer came from
// allocate() (zero copy), in slices through the slots otherwise.
#include <cstddef>
#include <span>

#include "shmtrain/comm/communicator.hpp"
#include "shmtrain/comm/shm/shm_transport.hpp"

namespace shmtrain::comm {

struct ShmOptions {
  TransportOptions transport;
  std::size_t one_shot_bytes = std::size_t{256} << 10;
};

class ShmCommunicator final : public Communicator {
 public:
  // REQUIRES: `segment` maps an initialised segment whose world size covers `rank`.
  ShmCommunicator(std::span<std::byte> segment, int rank, ShmOptions options = {});

  int rank() const override { return transport_.rank(); }
  int size() const override { return transport_.size(); }
  void allreduce(std::span<float> data, ReduceOp op) override;
  void allreduce_bf16(std::span<tensor::bf16> data, ReduceOp op) override;
  void broadcast(std::span<float> data, int root) override;
  void barrier() override;
  void allgather(std::span<const float> input, std::span<float> output) override;
  void reduce_scatter(std::span<const float> input, std::span<float> output, ReduceOp op) override;
  // From this rank's arena in the segment: collectives on it run without copies.
  std::span<float> allocate(std::size_t count) override { return transport_.allocate(count); }
  // For algorithms composed of this one and another communicator (the hierarchical ones).
  ShmTransport& transport() { return transport_; }

 private:
  ShmTransport transport_;
  ShmOptions options_;
};

}  // namespace shmtrain::comm
