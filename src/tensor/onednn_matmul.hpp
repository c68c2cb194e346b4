#pragma once
// One GEMM on the calling thread through oneDNN's matmul primitive (private to tensor/).
// Primitives are created once per distinct shape and kept for the life of the process; they
// run with one thread on whichever compute thread calls (the callers split the work over
// oneTBB, as gemm.cpp does for OpenBLAS), each with its own scratchpad.
//
// Debian's oneDNN uses the OpenMP runtime: every calling thread first sets its OpenMP thread
// count to 1, so that a oneDNN call never fans out threads inside a oneTBB task.
#include <cstdint>
#include <string>

#include "shmtrain/tensor/gemm.hpp"

namespace shmtrain::tensor::onednn {

enum class DataType { kF32, kBf16 };

// Row-major C (M, N) = alpha op(A) op(B) [+ bias (N) on every row] + beta C. A and B share
// one type; C is f32 or bf16 (accumulated in f32 either way). REQUIRES: alpha == 1 when a
// bias is given; beta == 0 when C is bf16.
struct MatmulShape {
  Trans trans_a = Trans::kNo;
  Trans trans_b = Trans::kNo;
  std::int64_t m = 0, n = 0, k = 0, lda = 0, ldb = 0, ldc = 0;
  DataType inputs = DataType::kF32;
  DataType output = DataType::kF32;
  float alpha = 1.0f;
  float beta = 0.0f;
  bool bias = false;
  bool operator==(const MatmulShape&) const = default;
};

void matmul(const MatmulShape& shape, const void* a, const void* b, void* c, const float* bias);

// The kernel oneDNN picked for a BERT-sized product of this input type ("brg:avx512_core_bf16"),
// for the start-up line.
std::string kernel_name(DataType inputs);

}  // namespace shmtrain::tensor::onednn
