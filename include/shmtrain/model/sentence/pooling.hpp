#pragma once
// sentence-transformers' Pooling module (models/Pooling.py) over the backbone's last hidden
// states: one vector per row of the batch, padding never pooled, a packed row pooled over its
// own tokens only.
#include <cstdint>
#include <string>
#include <vector>

#include "shmtrain/data/batch.hpp"

namespace shmtrain::model::sentence {

// The pooling_mode_* of a Pooling folder's config.json; one at a time.
enum class PoolingMode { kMean, kCls, kMax, kLastToken };

// "mean", "cls", "max", "lasttoken" (Pooling's own names); throws InputError naming `what` and
// the names it knows.
PoolingMode parse_pooling_mode(const std::string& name, const std::string& what);
const char* pooling_mode_name(PoolingMode mode);

class Pooling {
 public:
  explicit Pooling(PoolingMode mode) : mode_(mode) {}
  PoolingMode mode() const { return mode_; }

  // hidden (N, H) in the batch's layout -> pooled (B, H):
  //   mean       sum of the row's real tokens / max(their count, 1e-9)
  //   cls        the row's first token
  //   max        per channel, the largest over the real tokens (-1e9 for a row without one)
  //   lasttoken  the row's last real token (a padded row without one: its last token, zeroed)
  void forward(float* pooled, const float* hidden, const data::Batch& batch, std::int64_t width);
  // dhidden (N, H) += the pooling's backward of dpooled (B, H); the last forward's batch.
  void backward_add(float* dhidden, const float* dpooled, const data::Batch& batch, std::int64_t width) const;

 private:
  PoolingMode mode_;
  std::vector<std::int64_t> argmax_;  // kMax: (B, H) the token each channel came from, -1 none
};

}  // namespace shmtrain::model::sentence
