#pragma once
// The communicator of ranks on several hosts (under an MPI launcher): shared memory between
// the ranks of a host, another communicator (MPI) between hosts, composed by the algorithms of
// comm/hierarchical/algorithms.hpp.
//
// Ranks: H hosts with L ranks each, rank r = h * L + l. reduce_scatter and allgather keep the
// single-host layout (rank r owns block r of the buffer), so the sharded optimizer's slice of
// a rank is the one the same rank would own on one host. Reductions add within a host first,
// then across hosts, so a sum differs from one host's in rounding only; for a fixed H x L the
// results are bit-identical on every rank and run after run.
//
// allocate() hands out the host's shared arena: the gradient arena is reduced inside the host
// without copies, and only each rank's block crosses to other hosts.
#include <vector>

#include "shmtrain/comm/communicator.hpp"
#include "shmtrain/comm/hierarchical/algorithms.hpp"
#include "shmtrain/comm/shm/shm_communicator.hpp"

namespace shmtrain::comm {

class HierarchicalCommunicator final : public Communicator {
 public:
  // REQUIRES: every host has local.size() ranks; cross holds local rank local.rank() of every
  // host, in host order (cross.rank() is this host's index). Both outlive this object.
  HierarchicalCommunicator(ShmCommunicator& local, Communicator& cross) : groups_{local, cross} {}

  int rank() const override { return groups_.rank(); }
  int size() const override { return groups_.size(); }
  void allreduce(std::span<float> data, ReduceOp op) override { allreduce_hierarchical(groups_, data, op); }
  void allreduce_bf16(std::span<tensor::bf16> data, ReduceOp op) override {
    allreduce_bf16_hierarchical(groups_, data, op);
  }
  void broadcast(std::span<float> data, int root) override { broadcast_hierarchical(groups_, data, root); }
  // The host's ranks meet, local rank 0 of every host meets, and the host's ranks meet again.
  void barrier() override;
  void allgather(std::span<const float> input, std::span<float> output) override {
    allgather_hierarchical(groups_, input, output, staging_);
  }
  void reduce_scatter(std::span<const float> input, std::span<float> output, ReduceOp op) override {
    reduce_scatter_hierarchical(groups_, input, output, op, staging_);
  }
  std::span<float> allocate(std::size_t count) override { return groups_.local.allocate(count); }
  std::uint64_t network_bytes_sent() const override { return groups_.cross.network_bytes_sent(); }

 private:
  HostGroups groups_;
  std::vector<float> staging_;
};

}  // namespace shmtrain::comm
