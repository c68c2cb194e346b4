#pragma once
// The arithmetic of the exchange: elementwise reductions of several sources into several
// destinations, and copies, vectorised and optionally split over the caller's threads.
//
// Order: element i of the result is ((src[0][i] op src[1][i]) op src[2][i]) ... for every
// split and thread count, so every rank and every run computes the same bits.
#include <cstddef>

#include "shmtrain/comm/communicator.hpp"

namespace shmtrain::comm {

// dst[d][i] = op over s of src[s][i], for i < count; avg divides the sum by `sources`.
// A destination may alias a source (in place); destinations may not overlap each other.
void reduce_into(float* const* dst, int destinations, const float* const* src, int sources, std::size_t count,
                 ReduceOp op, int threads);

// The same over bf16 values, on the calling thread: summed (or maxed) in float in source order,
// avg divided by `divisor`, rounded once to bf16 (round to nearest even, as to_bf16).
// Destinations may alias sources element for element.
void reduce_bf16_into(tensor::bf16* const* dst, int destinations, const tensor::bf16* const* src, int sources,
                      std::size_t count, ReduceOp op, float divisor);

// memcpy split over `threads` for large counts.
void copy_floats(float* dst, const float* src, std::size_t count, int threads);

}  // namespace shmtrain::comm
