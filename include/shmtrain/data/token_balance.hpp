#pragma once
// --balance_tokens: the rows of one global micro-batch dealt to the workers so that each
// computes on about the same number of tokens. With packed batches a worker's step costs its
// tokens, not its rows, so the sampler's deal (rank r takes positions r, r + P, ...) leaves
// the worker that drew the long rows working while the others wait at the exchange.
#include <cstdint>
#include <vector>

namespace shmtrain::data {

// Deals `rows` (the global micro-batch, every worker's share) to `counts.size()` workers,
// worker w getting exactly counts[w] rows (their sum is rows.size()): longest rows first (ties
// in the given order), each to the worker with the fewest tokens so far among those with room
// (ties to the lower rank); each worker's rows come back in the order they were dealt.
// lengths[i] is row i's token count. Deterministic: every worker computes the same deal.
// Throws Error when the counts do not add up or a row is outside lengths.
std::vector<std::vector<std::int64_t>> balance_tokens(const std::vector<std::int64_t>& rows,
                                                      const std::vector<std::int64_t>& lengths,
                                                      const std::vector<std::int64_t>& counts);

}  // namespace shmtrain::data
