// reduce_scatter through every rank's slots.
//
// Terms: P ranks; input I_q of P * n floats on rank q, block b = I_q[b * n, (b + 1) * n);
// rank r's output is block r of I_0 op I_1 op ... op I_{P-1}.
// Protocol, per slice [o, o + c) of the blocks with c <= slot_floats / P:
//   1. rank r takes its next slot S_r and lays out I_r[b * n + o, b * n + o + c) at S_r[b * c]
//      for every block b;
//   2. step: every S_q is complete;
//   3. rank r reduces S_0[r * c ..], S_1[r * c ..], ... in rank order into output[o, o + c).
// A size-0 reduce_scatter still makes one step, so that a mismatch between ranks is caught.
#include <algorithm>
#include <vector>

#include "shmtrain/comm/shm/algorithms.hpp"
#include "shmtrain/comm/collective_tag.hpp"
#include "shmtrain/comm/reduce_kernels.hpp"

namespace shmtrain::comm {

void reduce_scatter_staged(ShmTransport& transport, std::span<const float> input, std::span<float> output,
                           ReduceOp op) {
  const int P = transport.size();
  const int r = transport.rank();
  const std::size_t n = output.size();
  const std::uint64_t tag = make_tag(Collective::reduce_scatter, n, op);
  const int threads = transport.options().threads;
  const std::size_t slice = std::max<std::size_t>(1, transport.slot_floats() / static_cast<std::size_t>(P));
  std::vector<const float*> sources(static_cast<std::size_t>(P));
  std::size_t offset = 0;
  do {
    const std::size_t c = std::min(slice, n - offset);
    const int slot = transport.next_slot();
    float* own = transport.slot(r, slot);
    for (int b = 0; b < P; ++b) {
      copy_floats(own + static_cast<std::size_t>(b) * c, input.data() + static_cast<std::size_t>(b) * n + offset, c,
                  threads);
    }
    transport.step(tag);
    for (int q = 0; q < P; ++q) {
      sources[static_cast<std::size_t>(q)] = transport.slot(q, slot) + static_cast<std::size_t>(r) * c;
    }
    float* destination = output.data() + offset;
    reduce_into(&destination, 1, sources.data(), P, c, op, threads);
    offset += c;
  } while (offset < n);
}

}  // namespace shmtrain::comm
