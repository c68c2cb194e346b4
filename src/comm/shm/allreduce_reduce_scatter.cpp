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
// With a stage (the hierarchical all-reduce's step across hosts), rank r stores its block into
// its own buffer (or slot) only, runs the stage on it, and then copies it into every B_q (zero
// copy); through the slots, after the second step every rank copies block q of S_q.
//
// Only rank r touches block r of any buffer between the two steps of a pass, so the pass
// needs no locks; each rank reads n floats and writes n, the least an all-reduce can move.
#include <algorithm>
#include <vector>

#include "shmtrain/comm/shm/algorithms.hpp"
#include "shmtrain/comm/collective_tag.hpp"
#include "shmtrain/comm/reduce_kernels.hpp"

namespace shmtrain::comm {
namespace {

constexpr std::size_t kLineFloats = kCacheLine / sizeof(float);

struct Block {
  std::size_t begin;
  std::size_t end;
  std::size_t size() const { return end - begin; }
};

Block block_of(std::size_t count, std::size_t ranks, std::size_t rank) {
  const std::size_t width = ((count + ranks - 1) / ranks + kLineFloats - 1) / kLineFloats * kLineFloats;
  const std::size_t begin = std::min(count, rank * width);
  return {begin, std::min(count, begin + width)};
}

// Reduces this rank's block of `buffers` (one per rank, `count` floats) into all of them, or
// into its own only. Returns the block.
Block reduce_own_block(const ShmTransport& transport, const std::vector<float*>& buffers, std::size_t count,
                       ReduceOp op, bool into_all) {
  const auto P = static_cast<std::size_t>(transport.size());
  const auto r = static_cast<std::size_t>(transport.rank());
  const Block block = block_of(count, P, r);
  // One rank (a host of one in the hierarchical all-reduce): its buffer is the reduction already.
  if (block.size() == 0 || P == 1) return block;
  std::vector<float*> destinations(into_all ? P : 1);
  std::vector<const float*> sources(P);
  for (std::size_t q = 0; q < P; ++q) {
    if (into_all) destinations[q] = buffers[q] + block.begin;
    sources[q] = buffers[q] + block.begin;
  }
  if (!into_all) destinations[0] = buffers[r] + block.begin;
  reduce_into(destinations.data(), static_cast<int>(destinations.size()), sources.data(), static_cast<int>(P),
              block.size(), op, transport.options().threads);
  return block;
}

// Reduces this rank's block into its own buffer and runs the stage on it.
Block reduce_and_stage(const ShmTransport& transport, const std::vector<float*>& buffers, std::size_t count,
                       ReduceOp op, const BlockStage& stage) {
  const Block block = reduce_own_block(transport, buffers, count, op, false);
  if (block.size() > 0) stage(std::span<float>(buffers[static_cast<std::size_t>(transport.rank())] + block.begin, block.size()));
  return block;
}

}  // namespace

void allreduce_reduce_scatter(ShmTransport& transport, std::span<float> data, ReduceOp op, const BlockStage& stage) {
  const int P = transport.size();
  const int r = transport.rank();
  const std::uint64_t tag = make_tag(Collective::allreduce, data.size(), op);
  const std::uint64_t own_offset = transport.arena_offset_of(data.data(), data.size()).value_or(kNoBuffer);
  const int threads = transport.options().threads;
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
    if (stage) {
      const Block block = reduce_and_stage(transport, buffers, data.size(), op, stage);
      for (int q = 0; q < P; ++q) {
        if (q == r || block.size() == 0) continue;
        copy_floats(buffers[static_cast<std::size_t>(q)] + block.begin, data.data() + block.begin, block.size(),
                    threads);
      }
    } else {
      reduce_own_block(transport, buffers, data.size(), op, true);
    }
    transport.step(tag);
    return;
  }

  for (std::size_t offset = 0; offset < data.size(); offset += transport.slot_floats()) {
    const std::size_t n = std::min(transport.slot_floats(), data.size() - offset);
    const int slot = transport.next_slot();
    copy_floats(transport.slot(r, slot), data.data() + offset, n, threads);
    transport.step(tag);
    for (int q = 0; q < P; ++q) buffers[static_cast<std::size_t>(q)] = transport.slot(q, slot);
    if (stage) {
      reduce_and_stage(transport, buffers, n, op, stage);
      transport.step(tag);
      for (int q = 0; q < P; ++q) {
        const Block block = block_of(n, static_cast<std::size_t>(P), static_cast<std::size_t>(q));
        copy_floats(data.data() + offset + block.begin, transport.slot(q, slot) + block.begin, block.size(), threads);
      }
    } else {
      reduce_own_block(transport, buffers, n, op, true);
      transport.step(tag);
      copy_floats(data.data() + offset, transport.slot(r, slot), n, threads);
    }
  }
}

}  // namespace shmtrain::comm
