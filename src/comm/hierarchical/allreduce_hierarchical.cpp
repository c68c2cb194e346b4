// allreduce across hosts: reduce-scatter inside each host, all-reduce of each block across
// hosts, all-gather inside each host (terms in hierarchical_algorithms.hpp).
//
// Protocol (n floats; blocks of the host's buffers as in allreduce_reduce_scatter.cpp, width
// ceil(n / L) rounded up to a cache line):
//   1. inside the host, allreduce_reduce_scatter's first pass: local rank l holds block l of its
//      host's reduction;
//   2. local rank l all-reduces block l over its column, with local rank l of every other host:
//      every local rank carries 1/L of the traffic between hosts, all columns at once;
//   3. the host's all-gather: block l goes into every local buffer, all blocks into every rank.
// avg: steps 1 and 2 add, and the block is divided by H * L once, after step 2, as the
// single-host all-reduce divides its sum once.
// Step 2 is skipped where a block is empty (n < L cache lines): that depends only on n and l,
// so the whole column skips it together. With one host this is the host's all-reduce.
#include "shmtrain/comm/shm/algorithms.hpp"
#include "shmtrain/comm/hierarchical/algorithms.hpp"

namespace shmtrain::comm {

void divide_floats(std::span<float> data, int divisor) {
  const auto d = static_cast<float>(divisor);
  for (float& x : data) x /= d;
}

void allreduce_hierarchical(HostGroups groups, std::span<float> data, ReduceOp op) {
  if (groups.cross.size() == 1) {
    groups.local.allreduce(data, op);
    return;
  }
  const ReduceOp partial = op == ReduceOp::avg ? ReduceOp::sum : op;
  const int world = groups.size();
  allreduce_reduce_scatter(groups.local.transport(), data, partial, [&](std::span<float> block) {
    groups.cross.allreduce(block, partial);
    if (op == ReduceOp::avg) divide_floats(block, world);
  });
}

}  // namespace shmtrain::comm
