#pragma once
// Which dataset rows each worker visits in an epoch: torch.utils.data.DistributedSampler
// with drop_last=false. The permutation is our own (Fisher-Yates over SplitMix64 with
// rejection sampling), fully specified here so every platform and compiler gives the same
// order; it is not torch.randperm's order.
#include <cstdint>
#include <vector>

namespace shmtrain::data {

// The order of `dataset_size` indices for `epoch` (shuffled by a permutation seeded by
// seed + epoch when shuffle, else 0..n-1), padded by repeating from the start to a multiple
// of world_size; rank r takes positions r, r + world_size, ... Every rank gets
// ceil(dataset_size / world_size) indices (none when dataset_size is 0).
// REQUIRES: dataset_size >= 0, world_size >= 1, 0 <= rank < world_size (else throws Error).
std::vector<std::int64_t> epoch_indices(std::int64_t dataset_size, bool shuffle, std::uint64_t seed,
                                        std::int64_t epoch, int rank, int world_size);

// The permutation epoch_indices shuffles by: Fisher-Yates, for i = n-1 down to 1 swapping
// i with j uniform in [0, i], j drawn from SplitMix64(seed) by rejection (no modulo bias).
std::vector<std::int64_t> random_permutation(std::int64_t n, std::uint64_t seed);

}  // namespace shmtrain::data
