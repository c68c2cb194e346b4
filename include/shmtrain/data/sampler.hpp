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

// --group_by_length: Hugging Face's LengthGroupedSampler order (trainer_pt_utils
// get_length_grouped_indices) for `epoch`: random_permutation(n, seed + epoch), cut into
// mega-batches of mega_batch_mult x batch_size (mega_batch_mult = min(n / (4 batch_size), 50),
// at least 1), each sorted by length, longest first (stable: equal lengths keep their order),
// and the longest row of all swapped to the front of the first mega-batch (so a batch that
// runs out of memory does so first). Sharded as epoch_indices: rank r takes positions r,
// r + world_size, ..., so every worker's micro-batch comes from the same stretch of lengths.
// REQUIRES: batch_size >= 1, world_size >= 1, 0 <= rank < world_size (else throws Error).
std::vector<std::int64_t> length_grouped_indices(const std::vector<std::int64_t>& lengths,
                                                 std::int64_t batch_size, std::uint64_t seed,
                                                 std::int64_t epoch, int rank, int world_size);

// --batch_sampler no_duplicates: sentence-transformers' NoDuplicatesBatchSampler over `order`
// (an epoch's permutation of the rows). Each batch scans the rows not yet taken, in order, and
// takes a row unless one of its texts (keys[row]: a key per text, equal texts equal keys) is
// already in the batch, until it holds batch_size rows; a batch that runs out of rows is
// kept short. Every row lands in exactly one batch, in the order the batches are filled.
// REQUIRES: batch_size >= 1, every index of order < keys.size() (else throws Error).
std::vector<std::vector<std::int64_t>> no_duplicate_batches(const std::vector<std::vector<std::uint64_t>>& keys,
                                                            const std::vector<std::int64_t>& order,
                                                            std::int64_t batch_size);

// The permutation epoch_indices shuffles by: Fisher-Yates, for i = n-1 down to 1 swapping
// i with j uniform in [0, i], j drawn from SplitMix64(seed) by rejection (no modulo bias).
std::vector<std::int64_t> random_permutation(std::int64_t n, std::uint64_t seed);

}  // namespace shmtrain::data
