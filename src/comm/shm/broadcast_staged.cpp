// broadcast through the root's slots.
//
// Protocol (root R, n floats), per slice of at most slot_floats floats:
//   1. every rank takes its next slot index s; R copies the slice of its buffer into S_R[s];
//   2. step: S_R[s] is complete;
//   3. every other rank copies S_R[s] into the slice of its buffer.
// A size-0 broadcast still makes one step, so that a mismatch between ranks is caught.
#include <algorithm>

#include "shmtrain/comm/shm/algorithms.hpp"
#include "shmtrain/comm/collective_tag.hpp"
#include "shmtrain/comm/reduce_kernels.hpp"

namespace shmtrain::comm {

void broadcast_staged(ShmTransport& transport, std::span<float> data, int root) {
  const std::uint64_t tag = make_tag(Collective::broadcast, data.size(), ReduceOp::sum, root);
  const int threads = transport.options().threads;
  std::size_t offset = 0;
  do {
    const std::size_t n = std::min(transport.slot_floats(), data.size() - offset);
    const int slot = transport.next_slot();
    if (transport.rank() == root) copy_floats(transport.slot(root, slot), data.data() + offset, n, threads);
    transport.step(tag);
    if (transport.rank() != root) copy_floats(data.data() + offset, transport.slot(root, slot), n, threads);
    offset += n;
  } while (offset < data.size());
}

}  // namespace shmtrain::comm
