#include "shmtrain/tensor/cpu_features.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "shmtrain/comm/reduce_kernels.hpp"
#include "shmtrain/optim/adamw.hpp"
#include "shmtrain/tensor/allocator.hpp"
#include "shmtrain/tensor/bf16.hpp"
#include "shmtrain/tensor/dropout.hpp"
#include "shmtrain/tensor/gelu.hpp"
#include "shmtrain/tensor/gemm_bf16.hpp"
#include "support/test_support.hpp"

namespace shmtrain::tensor {
namespace {

CpuFeatures sapphire_rapids() {
  CpuFeatures f;
  f.avx2 = f.fma = f.avx512f = f.avx512bw = f.avx512vl = f.avx512dq = true;
  f.avx512_bf16 = f.amx_bf16 = f.amx_tile = true;
  return f;
}

TEST(CpuFeatures, TheBf16RuleNamesAmxThenAvx512Bf16ThenTheFallback) {
  CpuFeatures f = sapphire_rapids();
  EXPECT_EQ(f.bf16_gemm(), Bf16Gemm::kAmx);
  f.amx_tile = false;
  EXPECT_EQ(f.bf16_gemm(), Bf16Gemm::kAvx512Bf16);
  EXPECT_TRUE(f.bf16_native());
  EXPECT_TRUE(f.avx512_bf16_loops());
  f.avx512_bf16 = false;
  EXPECT_EQ(f.bf16_gemm(), Bf16Gemm::kFallback);
  EXPECT_FALSE(f.bf16_native());
  f = sapphire_rapids();
  f.avx512dq = false;  // AMX without the AVX-512 core: no bf16 path runs
  EXPECT_EQ(f.bf16_gemm(), Bf16Gemm::kFallback);
  EXPECT_FALSE(f.avx512_bf16_loops());
}

TEST(CpuFeatures, MasksRemoveFeaturesAndRefuseUnknownNames) {
  const CpuFeatures no_bf16 = masked_cpu_features(sapphire_rapids(), "-avx512_bf16");
  EXPECT_EQ(no_bf16.bf16_gemm(), Bf16Gemm::kFallback);
  EXPECT_FALSE(no_bf16.avx512_bf16_loops());
  EXPECT_TRUE(no_bf16.avx512_core());
  EXPECT_EQ(masked_cpu_features(sapphire_rapids(), "-amx_bf16").bf16_gemm(), Bf16Gemm::kAvx512Bf16);
  const CpuFeatures scalar = masked_cpu_features(sapphire_rapids(), "-amx_bf16,-avx512");
  EXPECT_FALSE(scalar.avx512_core());
  EXPECT_FALSE(scalar.bf16_native());
  EXPECT_TRUE(scalar.avx2);
  EXPECT_EQ(masked_cpu_features(sapphire_rapids(), "").summary(), sapphire_rapids().summary());
  EXPECT_NE(testing::error_of([] { masked_cpu_features(sapphire_rapids(), "+avx512_bf16"); })
                .find("'+avx512_bf16' is not a feature it can remove"),
            std::string::npos);
}

// This CPU without AVX512-BF16 and AMX (SHMTRAIN_CPU_FEATURES=-avx512_bf16) for one scope.
class WithoutBf16 {
 public:
  WithoutBf16() : saved_(cpu_features()) { set_cpu_features(masked_cpu_features(saved_, "-avx512_bf16")); }
  ~WithoutBf16() { set_cpu_features(saved_); }
  WithoutBf16(const WithoutBf16&) = delete;
  WithoutBf16& operator=(const WithoutBf16&) = delete;

 private:
  CpuFeatures saved_;
};

std::vector<std::uint16_t> bits_of(const std::vector<bf16>& v) {
  std::vector<std::uint16_t> out;
  for (bf16 x : v) out.push_back(x.bits);
  return out;
}

// Small integers: every product and sum below is exact in float and in bf16, whatever the
// kernel and its order of additions, so the fallback must give the textbook result exactly.
std::vector<bf16> small_integers(std::size_t n, int salt) {
  std::vector<bf16> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = to_bf16(static_cast<float>(static_cast<int>((i * 7 + salt) % 5) - 2));
  return v;
}

TEST(Bf16Fallback, GemmWidensToFloatAndGivesTheExactProduct) {
  const WithoutBf16 forced;
  ASSERT_EQ(cpu_features().bf16_gemm(), Bf16Gemm::kFallback);
  ASSERT_FALSE(cpu_features().bf16_native());
  // (M, K) x (N, K)^T + bias, large enough to be split into blocks (m n k >= 2^18).
  const std::int64_t m = 64, n = 80, k = 64;
  const std::vector<bf16> a = small_integers(static_cast<std::size_t>(m * k), 1);
  const std::vector<bf16> b = small_integers(static_cast<std::size_t>(n * k), 3);
  std::vector<float> bias(static_cast<std::size_t>(n));
  for (std::int64_t j = 0; j < n; ++j) bias[static_cast<std::size_t>(j)] = static_cast<float>(j % 3);
  std::vector<float> expected(static_cast<std::size_t>(m * n));
  for (std::int64_t i = 0; i < m; ++i) {
    for (std::int64_t j = 0; j < n; ++j) {
      float s = bias[static_cast<std::size_t>(j)];
      for (std::int64_t l = 0; l < k; ++l) s += to_float(a[i * k + l]) * to_float(b[j * k + l]);
      expected[static_cast<std::size_t>(i * n + j)] = s;
    }
  }
  std::vector<float> c(expected.size(), 7.0f);
  gemm_bf16(Trans::kNo, Trans::kYes, m, n, k, 1.0f, a.data(), k, b.data(), k, 0.0f, c.data(), n, bias.data());
  EXPECT_TRUE(testing::all_close(c, expected, 0.0, 0.0));
  std::vector<bf16> c16(expected.size());
  gemm_bf16(Trans::kNo, Trans::kYes, m, n, k, a.data(), k, b.data(), k, c16.data(), n, bias.data());
  std::vector<float> widened(c16.size());
  convert_to_float(widened.data(), c16.data(), static_cast<std::int64_t>(c16.size()));
  EXPECT_TRUE(testing::all_close(widened, expected, 0.0, 0.0));
  // Transposed A, alpha and beta, on the calling thread: C = 2 A^T B + C.
  std::vector<float> acc(static_cast<std::size_t>(k * k), 1.0f), want(acc.size());
  for (std::int64_t i = 0; i < k; ++i) {
    for (std::int64_t j = 0; j < k; ++j) {
      float s = 0.0f;
      for (std::int64_t l = 0; l < m; ++l) s += to_float(a[l * k + i]) * to_float(a[l * k + j]);
      want[static_cast<std::size_t>(i * k + j)] = 2.0f * s + 1.0f;
    }
  }
  gemm_bf16_serial(Trans::kYes, Trans::kNo, k, k, m, 2.0f, a.data(), k, a.data(), k, 1.0f, acc.data(), k);
  EXPECT_TRUE(testing::all_close(acc, want, 0.0, 0.0));
}

TEST(Bf16Fallback, ReduceKernelSumsAsTheVectorOneDoes) {
  const std::size_t count = 1000;  // not a multiple of 16: the vector loop's tail too
  const std::vector<bf16> x = small_integers(count, 0), y = small_integers(count, 2), z = small_integers(count, 4);
  const bf16* src[] = {x.data(), y.data(), z.data()};
  std::vector<bf16> native(count), fallback(count);
  bf16* native_dst[] = {native.data()};
  bf16* fallback_dst[] = {fallback.data()};
  comm::reduce_bf16_into(native_dst, 1, src, 3, count, comm::ReduceOp::avg, 3.0f);
  {
    const WithoutBf16 forced;
    comm::reduce_bf16_into(fallback_dst, 1, src, 3, count, comm::ReduceOp::avg, 3.0f);
  }
  EXPECT_EQ(bits_of(fallback), bits_of(native));
  for (std::size_t i = 0; i < count; ++i) {
    ASSERT_EQ(fallback[i].bits, to_bf16((to_float(x[i]) + to_float(y[i]) + to_float(z[i])) / 3.0f).bits) << i;
  }
}

TEST(Bf16Fallback, AdamWWritesTheSameBf16Copy) {
  const std::int64_t n = 1001;
  const std::vector<optim::ParamSlot> slots{{.name = "w", .shape = {n}, .offset = 0, .size = n, .decay = true}};
  HeapArenaAllocator heap;
  const optim::AdamWOptions options{0.9f, 0.999f, 1e-8f, 0.1f};
  optim::AdamW native(slots, options, heap), fallback(slots, options, heap);
  std::vector<float> p_native(static_cast<std::size_t>(n)), p_fallback(p_native.size()), g(p_native.size());
  for (std::size_t i = 0; i < g.size(); ++i) {
    p_native[i] = p_fallback[i] = 0.03f * static_cast<float>(i % 29) - 0.4f;
    g[i] = std::sin(0.07f * static_cast<float>(i));
  }
  std::vector<bf16> copy_native(g.size()), copy_fallback(g.size());
  native.step(p_native, g, 1e-2f, copy_native);
  {
    const WithoutBf16 forced;
    fallback.step(p_fallback, g, 1e-2f, copy_fallback);
  }
  EXPECT_EQ(p_fallback, p_native);
  EXPECT_EQ(bits_of(copy_fallback), bits_of(copy_native));
  for (std::size_t i = 0; i < g.size(); ++i) ASSERT_EQ(copy_fallback[i].bits, to_bf16(p_fallback[i]).bits) << i;
}

TEST(Bf16Fallback, VectorLoopsRoundEachLaneAsToBf16) {
  const std::int64_t n = 40000;  // several blocks of the compute threads, and a tail
  std::vector<float> x(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = 0.001f * static_cast<float>(i % 7919) - 3.9f;
  const WithoutBf16 forced;
  ASSERT_FALSE(cpu_features().avx512_bf16_loops());
  std::vector<bf16> converted(x.size());
  convert_to_bf16(converted.data(), x.data(), n);
  for (std::size_t i = 0; i < x.size(); ++i) ASSERT_EQ(converted[i].bits, to_bf16(x[i]).bits) << i;

  std::vector<float> gelu(x.size());
  std::vector<bf16> gelu16(x.size());
  gelu_forward(gelu.data(), x.data(), n);
  gelu_forward(gelu16.data(), x.data(), n);
  for (std::size_t i = 0; i < x.size(); ++i) ASSERT_EQ(gelu16[i].bits, to_bf16(gelu[i]).bits) << i;

  std::vector<std::uint16_t> mask(static_cast<std::size_t>(dropout_mask_words(n)));
  const DropoutKey key = dropout_key(42, 0, 1, 2);
  dropout_mask_serial(mask.data(), n, 0.1f, key, 0);
  std::vector<float> dropped(x.size());
  std::vector<bf16> dropped16(x.size());
  apply_dropout_mask_serial(dropped.data(), x.data(), n, 0.1f, mask.data());
  apply_dropout_mask_serial(dropped16.data(), x.data(), n, 0.1f, mask.data());
  for (std::size_t i = 0; i < x.size(); ++i) ASSERT_EQ(dropped16[i].bits, to_bf16(dropped[i]).bits) << i;
}

}  // namespace
}  // namespace shmtrain::tensor
