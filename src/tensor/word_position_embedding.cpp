#include "shmtrain/tensor/word_position_embedding.hpp"

#include <algorithm>

#include "shmtrain/tensor/parallel.hpp"

namespace shmtrain::tensor {

void word_position_embedding_forward(float* out, const std::int32_t* ids, const std::int32_t* positions,
                                     const float* wte, const float* wpe, std::int64_t tokens,
                                     std::int64_t hidden) {
  parallel_blocks(tokens, 32, [&](std::int64_t i0, std::int64_t i1) {
    for (std::int64_t i = i0; i < i1; ++i) {
      const float* w = wte + static_cast<std::int64_t>(ids[i]) * hidden;
      float* o = out + i * hidden;
      if (wpe == nullptr) {
        std::copy_n(w, hidden, o);
        continue;
      }
      const float* p = wpe + static_cast<std::int64_t>(positions[i]) * hidden;
      for (std::int64_t c = 0; c < hidden; ++c) o[c] = w[c] + p[c];
    }
  });
}

void word_position_embedding_backward(float* dwte, float* dwpe, const float* dout, const std::int32_t* ids,
                                      const std::int32_t* positions, std::int64_t tokens, std::int64_t hidden,
                                      std::int64_t pad_id) {
  parallel_blocks(hidden, 16, [&](std::int64_t c0, std::int64_t c1) {
    for (std::int64_t i = 0; i < tokens; ++i) {
      const float* d = dout + i * hidden;
      if (dwpe != nullptr) {
        float* p = dwpe + static_cast<std::int64_t>(positions[i]) * hidden;
        for (std::int64_t c = c0; c < c1; ++c) p[c] += d[c];
      }
      if (ids[i] == pad_id) continue;
      float* w = dwte + static_cast<std::int64_t>(ids[i]) * hidden;
      for (std::int64_t c = c0; c < c1; ++c) w[c] += d[c];
    }
  });
}

}  // namespace shmtrain::tensor
