// reduce_scatter across hosts (terms in hierarchical_algorithms.hpp).
//
// Terms: output of m floats; input I of P * m = H * L * m floats, block b = I[b * m, (b + 1) * m);
// rank r = h * L + l receives block r of the reduction, the single-host layout. Super-block h'
// is the L blocks h' * L .. h' * L + L - 1: the blocks of host h''s ranks.
// Protocol:
//   1. for h' = 0 .. H-1: the host reduce-scatters super-block h': local rank l gets its host's
//      reduction of block h' * L + l into staging[h' * m, (h' + 1) * m);
//   2. the column reduce-scatters staging (H blocks of m): host h gets block h of the column's
//      reduction, which is block h * L + l of the whole one.
// avg: both steps add; the result is divided by H * L once.
#include "shmtrain/comm/hierarchical/algorithms.hpp"
#include "shmtrain/comm/local_communicator.hpp"

namespace shmtrain::comm {

void reduce_scatter_hierarchical(HostGroups groups, std::span<const float> input, std::span<float> output,
                                 ReduceOp op, std::vector<float>& staging) {
  const std::size_t m = output.size();
  const auto H = static_cast<std::size_t>(groups.cross.size());
  const auto L = static_cast<std::size_t>(groups.local.size());
  require_size("reduce_scatter: input", input.size(), m * H * L);
  if (H == 1) {
    groups.local.reduce_scatter(input, output, op);
    return;
  }
  const ReduceOp partial = op == ReduceOp::avg ? ReduceOp::sum : op;
  staging.resize(H * m);
  for (std::size_t host = 0; host < H; ++host) {
    groups.local.reduce_scatter(input.subspan(host * L * m, L * m), std::span(staging).subspan(host * m, m),
                                partial);
  }
  groups.cross.reduce_scatter(std::span(staging).first(H * m), output, partial);
  if (op == ReduceOp::avg) divide_floats(output, groups.size());
}

}  // namespace shmtrain::comm
