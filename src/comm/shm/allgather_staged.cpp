// allgather through every rank's slots.
//
// Protocol (P ranks, n floats each, output of P * n), per slice [o, o + c) with c <= slot_floats:
//   1. rank r takes its next slot S_r and copies input[o, o + c) into it;
//   2. step: every S_q is complete;
//   3. rank r copies S_q into output[q * n + o, q * n + o + c) for every q (its own included).
// A size-0 allgather still makes one step, so that a mismatch between ranks is caught.
#include <algorithm>

#include "shmtrain/comm/shm/algorithms.hpp"
#include "shmtrain/comm/collective_tag.hpp"
#include "shmtrain/comm/reduce_kernels.hpp"

namespace shmtrain::comm {

void allgather_staged(ShmTransport& transport, std::span<const float> input, std::span<float> output) {
  const int P = transport.size();
  const int r = transport.rank();
  const std::size_t n = input.size();
  const std::uint64_t tag = make_tag(Collective::allgather, n);
  const int threads = transport.options().threads;
  std::size_t offset = 0;
  do {
    const std::size_t c = std::min(transport.slot_floats(), n - offset);
    const int slot = transport.next_slot();
    copy_floats(transport.slot(r, slot), input.data() + offset, c, threads);
    transport.step(tag);
    for (int q = 0; q < P; ++q) {
      copy_floats(output.data() + static_cast<std::size_t>(q) * n + offset, transport.slot(q, slot), c, threads);
    }
    offset += c;
  } while (offset < n);
}

}  // namespace shmtrain::comm
