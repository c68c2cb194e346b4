#pragma once
// What the CPU can do, read with CPUID (and XCR0 for the OS-enabled register state), and the
// one place that turns it into kernel choices: every vector loop (tensor, comm, optim), the
// bf16 GEMM and the --bf16 rule (train, bench) ask the methods below, never CPUID or their own
// copy of the answer.
//
// Forcing features off (to run the fallbacks on a CPU that has the fast paths):
//   - SHMTRAIN_CPU_FEATURES, read once at the first cpu_features() call: a comma-separated list
//     of "-avx512_bf16" (no AVX512-BF16 and no AMX-BF16: every bf16 path takes its fallback,
//     and --bf16 is refused as on a CPU without them), "-amx_bf16" (no AMX: the rule only,
//     oneDNN picks its own kernels) and "-avx512" (no AVX-512 at all: the scalar loops).
//     Anything else stops the run with an InputError.
//   - set_cpu_features(), for tests in one process.
// Features can only be removed: a mask never claims what CPUID does not report.
#include <string>
#include <string_view>

namespace shmtrain::tensor {

// How bf16 products run: oneDNN on AMX tiles or AVX512-BF16 (its choice between the two), or
// the fallback: inputs widened to float and multiplied by the fp32 GEMM (gemm.hpp).
enum class Bf16Gemm { kAmx, kAvx512Bf16, kFallback };

struct CpuFeatures {
  bool avx2 = false;
  bool fma = false;
  bool avx512f = false;
  bool avx512bw = false;
  bool avx512vl = false;
  bool avx512dq = false;
  bool avx512_bf16 = false;
  bool amx_bf16 = false;
  bool amx_tile = false;

  // The AVX-512 vector loops (F, BW, VL and DQ: Skylake-SP and later).
  bool avx512_core() const { return avx512f && avx512bw && avx512vl && avx512dq; }
  // The AVX-512 loops that round to bf16 in registers (VCVTNEPS2BF16); without it they round
  // each lane with to_bf16, which gives the same bits (but for denormals, bf16.cpp).
  bool avx512_bf16_loops() const { return avx512_core() && avx512_bf16; }
  Bf16Gemm bf16_gemm() const;
  // The --bf16 rule: bf16 training is offered where its products run natively.
  bool bf16_native() const { return bf16_gemm() != Bf16Gemm::kFallback; }
  std::string summary() const;  // "avx2 fma avx512 avx512_bf16", for the start-up line
};

// The detected features less those SHMTRAIN_CPU_FEATURES removes (or those set_cpu_features
// set last). Throws InputError for a mask it does not know.
const CpuFeatures& cpu_features();

// `features` less what `mask` (SHMTRAIN_CPU_FEATURES's syntax; "" removes nothing) removes.
CpuFeatures masked_cpu_features(CpuFeatures features, std::string_view mask);

// What CPUID reports, with no mask.
CpuFeatures detected_cpu_features();

// Replaces what cpu_features() returns, for tests. REQUIRES: no kernel runs meanwhile (the
// compute threads read the features on each call).
void set_cpu_features(const CpuFeatures& features);

}  // namespace shmtrain::tensor
