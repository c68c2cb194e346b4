#pragma once
// DeBERTa's relative positions (transformers' deberta_v2: make_log_bucket_position,
// build_relative_position, and the rows DisentangledSelfAttention gathers). Query i and key j
// of one sequence are r = i - j apart; with position_buckets, distances under buckets / 2 stay
// as they are and longer ones go on a log scale up to max_relative_positions; the position
// table has 2 * span rows (span = position_buckets, or max_relative_positions without
// buckets) and row span + bucket(r), clamped to the table, is the one the pair reads.
// Only r matters, so a packed sequence and its padded form read the same rows.
#include <cstdint>

namespace shmtrain::tensor {

struct RelativePositions {
  std::int64_t buckets = -1;        // position_buckets; <= 0: distances as they are
  std::int64_t max_position = 512;  // max_relative_positions (max_position_embeddings when < 1)

  // att_span: half the rows of the position table.
  std::int64_t span() const { return buckets > 0 ? buckets : max_position; }
  std::int64_t table_rows() const { return 2 * span(); }
  // make_log_bucket_position(r), in float32 as torch computes it.
  std::int64_t bucket(std::int64_t r) const;
  // The table row of the content-to-position term of the pair r = i - j apart:
  // clamp(bucket(r) + span, 0, 2 span - 1).
  std::int64_t c2p_row(std::int64_t r) const;
  // The position-to-content term's: transformers gathers clamp(-bucket(j - i) + span, ...) at
  // (j, i) and transposes; bucket is odd, so this is c2p_row(r) written the way the code does.
  std::int64_t p2c_row(std::int64_t r) const;
};

}  // namespace shmtrain::tensor
