#pragma once
// Collectives of ranks on several hosts, composed of the host's shared-memory group and the
// column of ranks with the same local rank on every host; one per file named
// <collective>_hierarchical.cpp, each opening with its protocol. They see two communicators
// and nothing of how either moves bytes, so MPI (between hosts) and shared memory (threads in
// tests) serve as the column alike.
//
// Terms: H hosts with L ranks each; rank r = h * L + l for local rank l of host h.
//   local    the host's group: size L, rank l (shared memory)
//   column   `cross`: the H ranks with local rank l, one per host, in host order: size H, rank h
// Reductions add the ranks of a host in local-rank order, then the hosts' results in host
// order: for a fixed H x L the bits are the same on every rank and in every run.
#include <span>
#include <vector>

#include "shmtrain/comm/communicator.hpp"
#include "shmtrain/comm/shm/shm_communicator.hpp"

namespace shmtrain::comm {

struct HostGroups {
  ShmCommunicator& local;
  Communicator& cross;
  int rank() const { return cross.rank() * local.size() + local.rank(); }
  int size() const { return cross.size() * local.size(); }
};

void allreduce_hierarchical(HostGroups groups, std::span<float> data, ReduceOp op);
// bf16 inside each host and between hosts (allreduce_bf16_hierarchical.cpp says how it rounds).
void allreduce_bf16_hierarchical(HostGroups groups, std::span<tensor::bf16> data, ReduceOp op);
void broadcast_hierarchical(HostGroups groups, std::span<float> data, int root);
// `staging` is scratch the caller keeps between calls (H * n floats are used).
void allgather_hierarchical(HostGroups groups, std::span<const float> input, std::span<float> output,
                            std::vector<float>& staging);
void reduce_scatter_hierarchical(HostGroups groups, std::span<const float> input, std::span<float> output,
                                 ReduceOp op, std::vector<float>& staging);

// Divides every element by `divisor`, as ReduceOp::avg divides a sum.
void divide_floats(std::span<float> data, int divisor);

}  // namespace shmtrain::comm
