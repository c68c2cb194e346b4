#pragma once
// OpenBLAS set-up. Debian's OpenBLAS 0.3.21 (DYNAMIC_ARCH) picks its kernels and starts its
// thread pool in a load-time constructor, before main. It does not know recent Xeons
// (Sapphire/Emerald Rapids fall back to "Prescott", ~5x slower sgemm) nor AVX-512 AMD parts
// (it picks "Haswell", ~2x slower); and its threads, started before main, would break the
// launcher's rule of no threads before fork. Both can only be set by environment variables
// read at load time, so the CLI calls prepare_openblas() first thing: when OpenBLAS loaded a
// kernel family other than the CPU's features call for (and the user set no
// OPENBLAS_CORETYPE), or when OPENBLAS_NUM_THREADS is not 1 (shmtrain splits GEMMs across
// its own oneTBB threads, see threads.hpp), it sets the variables and re-executes once.
#include <string>

namespace shmtrain::tensor {

// The OpenBLAS core type this CPU should use: "Cooperlake" (AVX-512 + BF16), "SkylakeX"
// (AVX-512), "Haswell" (AVX2 + FMA), or "" when OpenBLAS's own detection is as good.
std::string preferred_openblas_core();

// The kernel family OpenBLAS loaded (openblas_get_corename()).
std::string openblas_core();

// REQUIRES: called before any thread is started (it may execve the process).
// Returns normally when no re-exec is needed, or when it is impossible (no /proc).
void prepare_openblas(char** argv);

// One line for the start-up log: "OpenBLAS core Cooperlake (auto: cpu has avx512 ...)".
std::string blas_startup_line();

}  // namespace shmtrain::tensor
