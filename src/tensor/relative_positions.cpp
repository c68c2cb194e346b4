#include "shmtrain/tensor/relative_positions.hpp"

#include <algorithm>
#include <cmath>

namespace shmtrain::tensor {

std::int64_t RelativePositions::bucket(std::int64_t r) const {
  if (buckets <= 0 || max_position <= 0) return r;
  const std::int64_t mid = buckets / 2;
  const std::int64_t distance = r < 0 ? -r : r;
  if (distance <= mid) return r;  // also where transformers' abs_pos is mid - 1: r itself is taken
  // torch: ceil(log(abs_pos / mid) / log(tensor((max_position - 1) / mid)) * (mid - 1)) + mid,
  // every operand float32.
  const float ratio = static_cast<float>(distance) / static_cast<float>(mid);
  const auto top = static_cast<float>(static_cast<double>(max_position - 1) / static_cast<double>(mid));
  const float scaled = std::log(ratio) / std::log(top) * static_cast<float>(mid - 1);
  const auto log_pos = static_cast<std::int64_t>(std::ceil(scaled)) + mid;
  return r < 0 ? -log_pos : log_pos;
}

std::int64_t RelativePositions::c2p_row(std::int64_t r) const {
  return std::clamp<std::int64_t>(bucket(r) + span(), 0, table_rows() - 1);
}

std::int64_t RelativePositions::p2c_row(std::int64_t r) const {
  return std::clamp<std::int64_t>(-bucket(-r) + span(), 0, table_rows() - 1);
}

}  // namespace shmtrain::tensor
