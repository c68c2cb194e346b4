// Packed attention (sequences end to end, each attending to itself) against the padded kernel
// on the same sequences: forward and backward, fp32 and bf16, with sequences of length 1, 2,
// one long and many short.
#include <cstdint>
#include <limits>
#include <numeric>
#include <vector>

#include <gtest/gtest.h>

#include "shmtrain/tensor/attention.hpp"
#include "shmtrain/tensor/cpu_features.hpp"
#include "shmtrain/tensor/gemm_bf16.hpp"
#include "support/test_support.hpp"
#include "tensor/naive.hpp"

namespace shmtrain::tensor {
namespace {

constexpr std::int64_t kHeads = 3, kDim = 16, kHidden = kHeads * kDim;

struct Packed {
  std::vector<std::int32_t> offsets;
  std::int64_t tokens = 0, longest = 0;
};

Packed pack(const std::vector<std::int32_t>& lengths) {
  Packed p;
  p.offsets.push_back(0);
  for (const std::int32_t l : lengths) {
    p.offsets.push_back(p.offsets.back() + l);
    p.longest = std::max<std::int64_t>(p.longest, l);
  }
  p.tokens = p.offsets.back();
  return p;
}

// Row-block copies between the packed (N, width) layout and the padded (B, T, width) one.
template <typename T>
std::vector<T> to_padded(const std::vector<T>& packed, const Packed& p, std::int64_t width) {
  const auto batch = static_cast<std::int64_t>(p.offsets.size()) - 1;
  std::vector<T> out(static_cast<std::size_t>(batch * p.longest * width), T{});
  for (std::int64_t b = 0; b < batch; ++b) {
    std::copy(packed.begin() + p.offsets[b] * width, packed.begin() + p.offsets[b + 1] * width,
              out.begin() + b * p.longest * width);
  }
  return out;
}

template <typename T>
std::vector<T> real_rows(const std::vector<T>& padded, const Packed& p, std::int64_t width) {
  std::vector<T> out;
  const auto batch = static_cast<std::int64_t>(p.offsets.size()) - 1;
  for (std::int64_t b = 0; b < batch; ++b) {
    const auto first = padded.begin() + b * p.longest * width;
    out.insert(out.end(), first, first + (p.offsets[b + 1] - p.offsets[b]) * width);
  }
  return out;
}

std::vector<float> padding_mask(const Packed& p) {
  const auto batch = static_cast<std::int64_t>(p.offsets.size()) - 1;
  std::vector<float> mask(static_cast<std::size_t>(batch * p.longest), std::numeric_limits<float>::lowest());
  for (std::int64_t b = 0; b < batch; ++b) {
    std::fill_n(mask.begin() + b * p.longest, p.offsets[b + 1] - p.offsets[b], 0.0f);
  }
  return mask;
}

std::vector<float> as_float(const std::vector<bf16>& v) {
  std::vector<float> out(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) out[i] = to_float(v[i]);
  return out;
}
std::vector<float> as_float(const std::vector<float>& v) { return v; }

template <typename T>
std::vector<T> values(std::int64_t n, std::uint64_t seed) {
  const std::vector<float> f = naive::to_float(naive::random_vec(static_cast<std::size_t>(n), seed));
  if constexpr (std::is_same_v<T, float>) {
    return f;
  } else {
    std::vector<bf16> out(f.size());
    convert_to_bf16(out.data(), f.data(), static_cast<std::int64_t>(f.size()));
    return out;
  }
}

struct Result {
  std::vector<float> out, dqkv;
};

// The packed kernels on `lengths`, and the padded kernels on the same sequences, their real
// rows taken out.
template <typename T>
void run_both(const std::vector<std::int32_t>& lengths, Result& packed_result, Result& padded_result) {
  const Packed p = pack(lengths);
  const auto batch = static_cast<std::int64_t>(lengths.size());
  const std::vector<T> qkv = values<T>(p.tokens * 3 * kHidden, 51);
  const std::vector<T> dout = values<T>(p.tokens * kHidden, 52);

  const AttentionShape packed_shape{batch, p.longest, kHeads, kDim, p.offsets.data()};
  std::vector<T> out(static_cast<std::size_t>(p.tokens * kHidden)), dqkv(qkv.size());
  std::vector<float> probs(static_cast<std::size_t>(attention_probs_floats(packed_shape)));
  std::int64_t squares = 0;
  for (const std::int32_t l : lengths) squares += kHeads * l * l;
  EXPECT_EQ(static_cast<std::int64_t>(probs.size()), squares);
  attention_forward(out.data(), probs.data(), qkv.data(), nullptr, packed_shape, {}, nullptr);
  attention_backward(dqkv.data(), dout.data(), qkv.data(), probs.data(), packed_shape, {}, nullptr);
  packed_result = {as_float(out), as_float(dqkv)};

  const AttentionShape padded_shape{batch, p.longest, kHeads, kDim};
  const std::vector<T> qkv_padded = to_padded(qkv, p, 3 * kHidden);
  const std::vector<T> dout_padded = to_padded(dout, p, kHidden);
  const std::vector<float> mask = padding_mask(p);
  std::vector<T> out_padded(dout_padded.size()), dqkv_padded(qkv_padded.size());
  std::vector<float> probs_padded(static_cast<std::size_t>(attention_probs_floats(padded_shape)));
  attention_forward(out_padded.data(), probs_padded.data(), qkv_padded.data(), mask.data(), padded_shape, {},
                    nullptr);
  attention_backward(dqkv_padded.data(), dout_padded.data(), qkv_padded.data(), probs_padded.data(),
                     padded_shape, {}, nullptr);
  padded_result = {as_float(real_rows(out_padded, p, kHidden)),
                   as_float(real_rows(dqkv_padded, p, 3 * kHidden))};
}

const std::vector<std::vector<std::int32_t>> kLengthSets = {
    {1}, {2}, {1, 2, 1}, {97}, {5, 1, 97, 2, 13, 3, 3, 40}, {20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31}};

TEST(PackedAttention, MatchesThePaddedKernelOnTheSameSequencesFp32) {
  for (const auto& lengths : kLengthSets) {
    Result packed, padded;
    run_both<float>(lengths, packed, padded);
    EXPECT_TRUE(testing::all_close(packed.out, padded.out, 1e-6, 1e-5)) << lengths.size() << " sequences";
    EXPECT_TRUE(testing::all_close(packed.dqkv, padded.dqkv, 1e-6, 1e-5)) << lengths.size() << " sequences";
  }
}

TEST(PackedAttention, MatchesThePaddedKernelOnTheSameSequencesBf16) {
  if (!cpu_features().bf16_native()) GTEST_SKIP() << "this CPU has neither AVX512-BF16 nor AMX";
  for (const auto& lengths : kLengthSets) {
    Result packed, padded;
    run_both<bf16>(lengths, packed, padded);
    // The padded products sum masked zeros too: the float sums agree to float rounding, and
    // the bf16 outputs, rounded once, agree to one bf16 step at most.
    EXPECT_TRUE(testing::all_close(packed.out, padded.out, 1e-3, 8e-3)) << lengths.size() << " sequences";
    EXPECT_TRUE(testing::all_close(packed.dqkv, padded.dqkv, 1e-3, 8e-3)) << lengths.size() << " sequences";
  }
}

TEST(PackedAttention, DropoutMasksCoverEveryMatrixOnce) {
  const std::vector<std::int32_t> lengths = {3, 1, 17, 2};
  const Packed p = pack(lengths);
  const AttentionShape shape{4, 17, kHeads, kDim, p.offsets.data()};
  std::int64_t words = 0;
  for (const std::int32_t l : lengths) words += kHeads * dropout_mask_words(l * l);
  EXPECT_EQ(attention_dropout_mask_words(shape), words);
  // Two runs draw the same masks: the output is a function of the key.
  const std::vector<float> qkv = values<float>(p.tokens * 3 * kHidden, 53);
  auto forward = [&] {
    std::vector<float> out(static_cast<std::size_t>(p.tokens * kHidden));
    std::vector<float> probs(static_cast<std::size_t>(attention_probs_floats(shape)));
    std::vector<std::uint16_t> mask(static_cast<std::size_t>(words));
    attention_forward(out.data(), probs.data(), qkv.data(), nullptr, shape, {0.3f, dropout_key(1, 0, 2, 3)},
                      mask.data());
    return out;
  };
  EXPECT_EQ(forward(), forward());
}

}  // namespace
}  // namespace shmtrain::tensor
