#include "shmtrain/model/sentence/pooling.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "shmtrain/common/error.hpp"

namespace shmtrain::model::sentence {
namespace {

bool is_real(const data::Batch& batch, std::int64_t b, std::int64_t t) {
  return batch.packed() || batch.attention_mask.empty() ||
         batch.attention_mask[static_cast<std::size_t>(b * batch.seq + t)] != 0;
}

// The token lasttoken pooling reads: the row's last real one; -1 when it has none (Pooling
// then gathers the last position, multiplied by its zero mask).
std::int64_t last_real_token(const data::Batch& batch, std::int64_t b) {
  for (std::int64_t t = batch.row_length(b) - 1; t >= 0; --t) {
    if (is_real(batch, b, t)) return t;
  }
  return -1;
}

}  // namespace

PoolingMode parse_pooling_mode(const std::string& name, const std::string& what) {
  if (name == "mean") return PoolingMode::kMean;
  if (name == "cls") return PoolingMode::kCls;
  if (name == "max") return PoolingMode::kMax;
  if (name == "lasttoken") return PoolingMode::kLastToken;
  throw InputError(fmt::format("{}: '{}' is not a pooling mode: give mean, cls, max or lasttoken", what, name));
}

const char* pooling_mode_name(PoolingMode mode) {
  switch (mode) {
    case PoolingMode::kMean: return "mean";
    case PoolingMode::kCls: return "cls";
    case PoolingMode::kMax: return "max";
    case PoolingMode::kLastToken: return "lasttoken";
  }
  return "mean";
}

void Pooling::forward(float* pooled, const float* hidden, const data::Batch& batch, std::int64_t width) {
  if (mode_ == PoolingMode::kMax) argmax_.assign(static_cast<std::size_t>(batch.batch * width), -1);
  for (std::int64_t b = 0; b < batch.batch; ++b) {
    float* out = pooled + b * width;
    const float* row = hidden + batch.row_begin(b) * width;
    const std::int64_t length = batch.row_length(b);
    switch (mode_) {
      case PoolingMode::kCls:
        std::copy(row, row + width, out);
        break;
      case PoolingMode::kLastToken: {
        const std::int64_t t = last_real_token(batch, b);
        if (t < 0) {
          std::fill(out, out + width, 0.0f);
        } else {
          std::copy(row + t * width, row + (t + 1) * width, out);
        }
        break;
      }
      case PoolingMode::kMean: {
        std::vector<double> sum(static_cast<std::size_t>(width), 0.0);
        std::int64_t count = 0;
        for (std::int64_t t = 0; t < length; ++t) {
          if (!is_real(batch, b, t)) continue;
          ++count;
          for (std::int64_t c = 0; c < width; ++c) sum[static_cast<std::size_t>(c)] += row[t * width + c];
        }
        const double divisor = std::max(static_cast<double>(count), 1e-9);
        for (std::int64_t c = 0; c < width; ++c) out[c] = static_cast<float>(sum[static_cast<std::size_t>(c)] / divisor);
        break;
      }
      case PoolingMode::kMax: {
        std::fill(out, out + width, -1e9f);
        std::int64_t* from = argmax_.data() + b * width;
        for (std::int64_t t = 0; t < length; ++t) {
          if (!is_real(batch, b, t)) continue;
          for (std::int64_t c = 0; c < width; ++c) {
            // The first of equal maxima, as torch.max's gradient goes to one index.
            if (from[c] < 0 || row[t * width + c] > out[c]) {
              out[c] = row[t * width + c];
              from[c] = t;
            }
          }
        }
        break;
      }
    }
  }
}

void Pooling::backward_add(float* dhidden, const float* dpooled, const data::Batch& batch, std::int64_t width) const {
  for (std::int64_t b = 0; b < batch.batch; ++b) {
    const float* d = dpooled + b * width;
    float* row = dhidden + batch.row_begin(b) * width;
    const std::int64_t length = batch.row_length(b);
    switch (mode_) {
      case PoolingMode::kCls:
        for (std::int64_t c = 0; c < width; ++c) row[c] += d[c];
        break;
      case PoolingMode::kLastToken: {
        const std::int64_t t = last_real_token(batch, b);
        if (t >= 0) {
          for (std::int64_t c = 0; c < width; ++c) row[t * width + c] += d[c];
        }
        break;
      }
      case PoolingMode::kMean: {
        std::int64_t count = 0;
        for (std::int64_t t = 0; t < length; ++t) count += is_real(batch, b, t) ? 1 : 0;
        const float scale = static_cast<float>(1.0 / std::max(static_cast<double>(count), 1e-9));
        for (std::int64_t t = 0; t < length; ++t) {
          if (!is_real(batch, b, t)) continue;
          for (std::int64_t c = 0; c < width; ++c) row[t * width + c] += d[c] * scale;
        }
        break;
      }
      case PoolingMode::kMax: {
        const std::int64_t* from = argmax_.data() + b * width;
        for (std::int64_t c = 0; c < width; ++c) {
          if (from[c] >= 0) row[from[c] * width + c] += d[c];
        }
        break;
      }
    }
  }
}

}  // namespace shmtrain::model::sentence
