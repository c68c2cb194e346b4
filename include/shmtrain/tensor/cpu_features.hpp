#pragma once
// What the CPU can do, read with CPUID (and XCR0 for the OS-enabled register state).
// Decides the OpenBLAS kernel family and whether bf16 paths are available.
#include <string>

namespace shmtrain::tensor {

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

  bool avx512_core() const { return avx512f && avx512bw && avx512vl && avx512dq; }
  std::string summary() const;  // "avx2 fma avx512 avx512_bf16", for the start-up line
};

const CpuFeatures& cpu_features();

}  // namespace shmtrain::tensor
