// allreduce of bf16 buffers across hosts (--ddp_bf16_grads): allreduce_hierarchical.cpp's
// protocol with bf16 inside each host and between hosts, so half the bytes cross.
//
// Protocol (n bf16 values; blocks as in shm/allreduce_bf16_reduce_scatter.cpp):
//   1. inside the host, local rank l sums block l of its host's buffers in float, in local-rank
//      order (avg: divides by H * L, the world's size), and rounds once to bf16;
//   2. local rank l all-reduces that block (a sum; max stays max) over its column with bf16 on
//      the wire: the hosts' blocks are summed in float in host order and rounded once;
//   3. block l goes into every buffer of the host.
// So a value is rounded twice where one host rounds it once: each host's partial, and the sum
// of the partials; for a fixed H x L the bits are the same on every rank and in every run.
// Buffers outside the host's arena take the float path (widened, allreduce_hierarchical,
// rounded), as on one host; every host's buffers must be placed alike, as for floats.
#include <vector>

#include "shmtrain/comm/hierarchical/algorithms.hpp"
#include "shmtrain/comm/shm/algorithms.hpp"

namespace shmtrain::comm {

void allreduce_bf16_hierarchical(HostGroups groups, std::span<tensor::bf16> data, ReduceOp op) {
  if (groups.cross.size() == 1) {
    groups.local.allreduce_bf16(data, op);
    return;
  }
  const ReduceOp partial = op == ReduceOp::avg ? ReduceOp::sum : op;
  const bool moved = allreduce_bf16_reduce_scatter(
      groups.local.transport(), data, op,
      [&](std::span<tensor::bf16> block) { groups.cross.allreduce_bf16(block, partial); }, groups.size());
  if (moved) return;
  std::vector<float> values(data.size());
  tensor::convert_to_float(values.data(), data.data(), static_cast<std::int64_t>(data.size()));
  allreduce_hierarchical(groups, values, op);
  tensor::convert_to_bf16(data.data(), values.data(), static_cast<std::int64_t>(data.size()));
}

}  // namespace shmtrain::comm
