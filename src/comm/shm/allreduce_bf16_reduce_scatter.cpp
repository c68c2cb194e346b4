// allreduce of bf16 buffers (--ddp_bf16_grads), reduce-scatter + all-gather fused into one
// pass, zero copy: allreduce_reduce_scatter.cpp's protocol over 2-byte elements.
//
// Terms: P ranks; buffers B_0 .. B_{P-1} of n bf16 values each, all in the segment; block b
// = [b * w, min((b + 1) * w, n)) with w = ceil(n / P) rounded up to a cache line (32 values).
//
// Protocol:
//   1. step, publishing where B_r lives (its segment offset, or none); if any rank's buffer is
//      not in the segment every rank returns false (they all see the same offsets);
//   2. rank r sums block r of B_0, B_1, ..., B_{P-1} in float, in rank order (divides by the
//      divisor for avg: P, or the caller's), rounds once to bf16 and stores the result into
//      block r of every B_q. With a stage (the hierarchical all-reduce: the block's exchange
//      between hosts), the result goes into B_r's block first, the stage runs on it, and then
//      it is copied into block r of every other buffer;
//   3. step: every block of every buffer holds the result.
//
// Each rank reads n values and writes n: half the bytes of the float all-reduce.
#include <algorithm>
#include <vector>

#include "shmtrain/comm/shm/algorithms.hpp"
#include "shmtrain/comm/collective_tag.hpp"
#include "shmtrain/comm/reduce_kernels.hpp"

namespace shmtrain::comm {
namespace {

constexpr std::size_t kLineValues = kCacheLine / sizeof(tensor::bf16);

}  // namespace

bool allreduce_bf16_reduce_scatter(ShmTransport& transport, std::span<tensor::bf16> data, ReduceOp op,
                                   const Bf16BlockStage& stage, int avg_divisor) {
  const auto P = static_cast<std::size_t>(transport.size());
  const auto r = static_cast<std::size_t>(transport.rank());
  const std::uint64_t tag = make_tag(Collective::allreduce_bf16, data.size(), op);
  // The arena is addressed in floats: a bf16 buffer at a 4-byte boundary is (n + 1) / 2 of them.
  const bool aligned = reinterpret_cast<std::uintptr_t>(data.data()) % sizeof(float) == 0;
  const std::uint64_t own_offset =
      aligned ? transport.arena_offset_of(reinterpret_cast<const float*>(data.data()), (data.size() + 1) / 2)
                    .value_or(kNoBuffer)
              : kNoBuffer;
  transport.step(tag, own_offset);
  std::vector<tensor::bf16*> buffers(P);
  for (std::size_t q = 0; q < P; ++q) {
    const std::uint64_t offset = transport.peer_buffer_offset(static_cast<int>(q));
    if (offset == kNoBuffer) return false;
    buffers[q] = reinterpret_cast<tensor::bf16*>(transport.at_offset(offset));
  }
  const std::size_t width = ((data.size() + P - 1) / P + kLineValues - 1) / kLineValues * kLineValues;
  const std::size_t begin = std::min(data.size(), r * width);
  const std::size_t end = std::min(data.size(), begin + width);
  const auto divisor = static_cast<float>(avg_divisor > 0 ? avg_divisor : static_cast<int>(P));
  std::vector<const tensor::bf16*> sources(P);
  std::vector<tensor::bf16*> destinations(P);
  for (std::size_t q = 0; q < P; ++q) {
    sources[q] = buffers[q] + begin;
    destinations[q] = buffers[q] + begin;
  }
  const std::size_t count = end - begin;
  if (!stage || count == 0) {
    reduce_bf16_into(destinations.data(), static_cast<int>(P), sources.data(), static_cast<int>(P), count, op,
                     divisor);
  } else {
    reduce_bf16_into(&destinations[r], 1, sources.data(), static_cast<int>(P), count, op, divisor);
    stage(std::span(destinations[r], count));
    for (std::size_t q = 0; q < P; ++q) {
      if (q != r) std::copy_n(destinations[r], count, destinations[q]);
    }
  }
  transport.step(tag);
  return true;
}

}  // namespace shmtrain::comm
