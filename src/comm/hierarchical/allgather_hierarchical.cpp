// allgather across hosts (terms in hierarchical_algorithms.hpp).
//
// Terms: input of n floats on every rank; output of P * n, block r = rank r's input, the
// single-host layout; super-block h' = the blocks of host h''s ranks.
// Protocol:
//   1. the column all-gathers the inputs: staging[h' * n, (h' + 1) * n) = input of rank h' * L + l;
//   2. for h' = 0 .. H-1: the host all-gathers staging's block h' into super-block h' of output,
//      so block h' * L + l' receives local rank l''s copy of host h''s input.
// In place (input is this rank's block of output) is safe: step 1 reads input before step 2
// writes output.
#include "shmtrain/comm/hierarchical/algorithms.hpp"
#include "shmtrain/comm/local_communicator.hpp"

namespace shmtrain::comm {

void allgather_hierarchical(HostGroups groups, std::span<const float> input, std::span<float> output,
                            std::vector<float>& staging) {
  const std::size_t n = input.size();
  const auto H = static_cast<std::size_t>(groups.cross.size());
  const auto L = static_cast<std::size_t>(groups.local.size());
  require_size("allgather: output", output.size(), n * H * L);
  if (H == 1) {
    groups.local.allgather(input, output);
    return;
  }
  staging.resize(H * n);
  groups.cross.allgather(input, std::span(staging).first(H * n));
  for (std::size_t host = 0; host < H; ++host) {
    groups.local.allgather(std::span<const float>(staging).subspan(host * n, n),
                           output.subspan(host * L * n, L * n));
  }
}

}  // namespace shmtrain::comm
