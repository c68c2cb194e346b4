#include "shmtrain/tensor/blas_runtime.hpp"

#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <strings.h>

#include <fmt/format.h>

#include "shmtrain/tensor/cpu_features.hpp"

extern "C" char* openblas_get_corename(void);

namespace shmtrain::tensor {
namespace {
// Set on the re-executed process so that it cannot loop.
constexpr const char* kReexecMark = "SHMTRAIN_OPENBLAS_REEXEC";
// Set when shmtrain, not the user, chose OPENBLAS_CORETYPE.
constexpr const char* kAutoCoreMark = "SHMTRAIN_OPENBLAS_AUTO_CORE";
}  // namespace

std::string preferred_openblas_core() {
  const CpuFeatures& f = cpu_features();
  if (f.avx512_core() && f.avx512_bf16) return "Cooperlake";
  if (f.avx512_core()) return "SkylakeX";
  if (f.avx2 && f.fma) return "Haswell";
  return "";
}

std::string openblas_core() { return openblas_get_corename(); }

void prepare_openblas(char** argv) {
  if (std::getenv(kReexecMark) != nullptr) return;
  bool reexec = false;
  const char* threads = std::getenv("OPENBLAS_NUM_THREADS");
  if (threads == nullptr || std::strcmp(threads, "1") != 0) {
    setenv("OPENBLAS_NUM_THREADS", "1", 1);
    reexec = true;
  }
  if (std::getenv("OPENBLAS_CORETYPE") == nullptr) {
    const std::string wanted = preferred_openblas_core();
    if (!wanted.empty() && strcasecmp(wanted.c_str(), openblas_core().c_str()) != 0) {
      setenv("OPENBLAS_CORETYPE", wanted.c_str(), 1);
      setenv(kAutoCoreMark, "1", 1);
      reexec = true;
    }
  }
  if (!reexec) return;
  setenv(kReexecMark, "1", 1);
  execv("/proc/self/exe", argv);
  // execv failed (no /proc): carry on with OpenBLAS's own choice; the start-up line says so.
  unsetenv("OPENBLAS_CORETYPE");
  unsetenv(kAutoCoreMark);
}

std::string blas_startup_line() {
  const char* user = std::getenv("OPENBLAS_CORETYPE");
  const bool auto_set = std::getenv(kAutoCoreMark) != nullptr;
  const std::string features = cpu_features().summary();
  if (user != nullptr && auto_set) {
    return fmt::format("OpenBLAS core {} (auto: cpu has {})", openblas_core(), features);
  }
  if (user != nullptr) {
    const std::string wanted = preferred_openblas_core();
    if (!wanted.empty() && strcasecmp(wanted.c_str(), openblas_core().c_str()) != 0) {
      return fmt::format(
          "OpenBLAS core {} (OPENBLAS_CORETYPE={} set in the environment; warning: this cpu runs the faster "
          "{} kernels: unset OPENBLAS_CORETYPE to let shmtrain choose)",
          openblas_core(), user, wanted);
    }
    return fmt::format("OpenBLAS core {} (OPENBLAS_CORETYPE={} set in the environment)", openblas_core(), user);
  }
  return fmt::format("OpenBLAS core {} (OpenBLAS's own detection; cpu has {})", openblas_core(), features);
}

}  // namespace shmtrain::tensor
