// allreduce, reduce-scatter + all-gather fused into one pass.
//
// Terms: P ranks; buffers B_0 .. B_{P-1} of n floats each; the index range is cut into P
// blocks, block b = [b * w, min((b + 1) * w, n)) with w = ceil(n / P) rounded up to a cache
// line, so no two ranks write the same line.
//
// Protocol:
//   1. step, publishing where B_r lives (its segment offset, or none);
//   2. if every rank's B_q is in the segment (zero copy): rank r computes block r of
//      B_0 op B_1 op ... op B_{P-1} and stores it into block r of every B_q; then
//   3. step: every block of every buffer holds the result; return.
//   Otherwise (some buffer in private memory) the same pass runs over slices of at most
//   slot_floats floats through the slots: per slice, next slot S_r <- slice of B_r; step;
//   pass over S_0 .. S_{P-1}; step; slice of B_r <- S_r.
//
// Only rank r touches block r of any buffer between the two steps of a pass, so the pass
// needs no locks; each rank reads n floats and writes n, the least an all-reduce can move.
#include <algorithm>
#include <vector>

#include "shmtrain/comm/algorithms.hpp"
#include "shmtrain/comm/collective_tag.hpp"
#include "shmtrain/comm/reduce_kernels.hpp"

namespace shmtrain::comm {
namespace {

constexpr std::size_t kLineFloats = kCacheLine / sizeof(float);

// Reduces this rank's block of `buffers` (one per rank, `count` floats) into all of them.
void reduce_own_block(const ShmTransport& transport, const std::vector<float*>& buffers, std::size_t count,
                      ReduceOp op) {
  const auto P = static_cast<std::size_t>(transport.size());
  const auto r = static_cast<std::size_t>(transport.rank());
  const std::size_t width = ((count + P - 1) / P + kLineFloats - 1) / kLineFloats * kLineFloats;
  const std::size_t begin = std::min(count, r * width);
  const std::size_t end = std::min(count, begin + width);
  if (begin == end) return;
  std::vector<float*> destinations(P);
  std::vector<const float*> sources(P);
  for (std::size_t q = 0; q < P; ++q) {
    destinations[q] = buffers[q] + begin;
    sources[q] = buffers[q] + begin;
  }
  reduce_into(destinations.data(), static_cast<int>(P), sources.data(), static_cast<int>(P), end - begin, op,
              transport.options().threads);
}

}  // namespace

void allreduce_reduce_scatter(ShmTransport& transport, std::span<float> data, ReduceOp op) {
  const int P = transport.size();
  const int r = transport.rank();
  const std::uint64_t tag = make_tag(Collective::allreduce, data.size(), op);
  const std::uint64_t own_offset = transport.arena_offset_of(data.data(), data.size()).value_or(kNoBuffer);
  transport.step(tag, own_offset);

  std::vector<float*> buffers(static_cast<std::size_t>(P));
  bool zero_copy = true;
  for (int q = 0; q < P; ++q) {
    const std::uint64_t offset = transport.peer_buffer_offset(q);
    if (offset == kNoBuffer) {
      zero_copy = false;
      break;
    }
    buffers[static_cast<std::size_t>(q)] = transport.at_offset(offset);
  }
  if (zero_copy) {
    reduce_own_block(transport, buffers, data.size(), op);
    transport.step(tag);
    return;
  }

  const int threads = transport.options().threads;
  for (std::size_t offset = 0; offset < data.size(); offset += transport.slot_floats()) {
    const std::size_t n = std::min(transport.slot_floats(), data.size() - offset);
    const int slot = transport.next_slot();
    copy_floats(transport.slot(r, slot), data.data() + offset, n, threads);
    transport.step(tag);
    for (int q = 0; q < P; ++q) buffers[static_cast<std::size_t>(q)] = transport.slot(q, slot);
    reduce_own_block(transport, buffers, n, op);
    transport.step(tag);
    copy_floats(data.data() + offset, transport.slot(r, slot), n, threads);
  }
}

}  // namespace shmtrain::comm
