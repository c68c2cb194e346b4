#pragma once
// Inverted dropout (torch.nn.Dropout semantics: kept values scaled by 1 / (1 - p)) with a
// counter-based generator: whether element i is kept is a pure function of (key, i), so the
// mask is reproducible per (seed, rank, step, site), needs no storage between forward and
// backward, and does not depend on the thread count.
#include <cstdint>

namespace shmtrain {

struct DropoutKey {
  std::uint64_t value = 0;
};

// One key per use: `site` numbers the dropout places in the model (layer and position).
DropoutKey dropout_key(std::uint64_t seed, std::uint64_t rank, std::uint64_t step, std::uint64_t site);

// True when element `index` is kept at drop probability p (0 <= p < 1).
bool dropout_keep(DropoutKey key, std::uint64_t index, float p);

// out[i] = keep(offset + i) ? inp[i] / (1 - p) : 0, for i in [0, n). out may alias inp.
void dropout_forward(float* out, const float* inp, std::int64_t n, float p, DropoutKey key,
                     std::uint64_t offset = 0);

// dinp[i] = keep(offset + i) ? dout[i] / (1 - p) : 0. dinp may alias dout.
void dropout_backward(float* dinp, const float* dout, std::int64_t n, float p, DropoutKey key,
                      std::uint64_t offset = 0);

}  // namespace shmtrain
