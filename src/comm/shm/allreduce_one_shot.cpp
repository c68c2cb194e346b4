// allreduce, one shot.
//
// Protocol (P ranks, buffer of n floats, n <= slot_floats):
//   1. rank r copies its buffer into its next slot S_r;
//   2. step: every S_q is complete;
//   3. rank r reduces S_0, S_1, ..., S_{P-1} in that order into its own buffer.
// One step per call, so latency is one round of counter exchange. Peers read S_r until their
// next step; S_r is written again two calls later (see the slot rule in shm_transport.hpp).
#include <vector>

#include "shmtrain/comm/shm/algorithms.hpp"
#include "shmtrain/comm/collective_tag.hpp"
#include "shmtrain/comm/reduce_kernels.hpp"

namespace shmtrain::comm {

void allreduce_one_shot(ShmTransport& transport, std::span<float> data, ReduceOp op) {
  const int P = transport.size();
  const int r = transport.rank();
  const int slot = transport.next_slot();
  copy_floats(transport.slot(r, slot), data.data(), data.size(), transport.options().threads);
  transport.step(make_tag(Collective::allreduce, data.size(), op));
  std::vector<const float*> sources(static_cast<std::size_t>(P));
  for (int q = 0; q < P; ++q) sources[static_cast<std::size_t>(q)] = transport.slot(q, slot);
  float* destination = data.data();
  reduce_into(&destination, 1, sources.data(), P, data.size(), op, transport.options().threads);
}

}  // namespace shmtrain::comm
