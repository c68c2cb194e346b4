// SHMTRAIN_CPU_FEATURES (tensor/cpu_features.hpp) end to end, through the built binary.
#include <gtest/gtest.h>

#include <string>

#include "support/test_support.hpp"

namespace shmtrain::testing {
namespace {

std::string with_mask(const std::string& mask, const std::string& arguments) {
  return "SHMTRAIN_CPU_FEATURES='" + mask + "' '" + shmtrain_binary().string() + "' " + arguments;
}

TEST(CpuFeaturesEnv, WithoutAvx512Bf16InfoShowsNeitherBf16PathAndBf16IsRefused) {
  const CliRun info = run_command(with_mask("-avx512_bf16", "info"));
  ASSERT_EQ(info.exit_code, 0) << info.output();
  EXPECT_NE(info.out.find("cpu features: "), std::string::npos) << info.output();
  EXPECT_EQ(info.out.find("avx512_bf16"), std::string::npos) << info.output();
  EXPECT_EQ(info.out.find("amx_bf16"), std::string::npos) << info.output();

  const CliRun bench = run_command(with_mask("-avx512_bf16", "bench train --preset tiny --bf16 --steps 1"));
  EXPECT_EQ(bench.exit_code, 1) << bench.output();
  EXPECT_NE(bench.err.find("--bf16 needs a CPU with AVX512-BF16 or AMX"), std::string::npos) << bench.output();
}

// The mask is checked first, before anything prints, whatever the BLAS variables say: with
// OPENBLAS_CORETYPE set, start-up never asks the CPU's features to choose a core type, and an
// unchecked mask used to surface later (after `info` printed its first line, exit 1). Each
// environment below is tried on every CPU, so the order is tested everywhere.
TEST(CpuFeaturesEnv, AnUnknownMaskStopsAtStartWithWhatToGive) {
  for (const char* environment :
       {"env -u OPENBLAS_CORETYPE -u OPENBLAS_NUM_THREADS", "env -u OPENBLAS_NUM_THREADS OPENBLAS_CORETYPE=Haswell",
        "env OPENBLAS_CORETYPE=Haswell OPENBLAS_NUM_THREADS=1", "env -u OPENBLAS_CORETYPE OPENBLAS_NUM_THREADS=1",
        "env OPENBLAS_CORETYPE=Prescott OPENBLAS_NUM_THREADS=4"}) {
    SCOPED_TRACE(environment);
    const CliRun run = run_command(std::string(environment) + " " + with_mask("-avx512,+amx_bf16", "info"));
    EXPECT_EQ(run.exit_code, 2) << run.output();
    EXPECT_EQ(run.out, "") << run.output();
    EXPECT_NE(run.err.find("SHMTRAIN_CPU_FEATURES: '+amx_bf16' is not a feature it can remove"), std::string::npos)
        << run.output();
  }
}

}  // namespace
}  // namespace shmtrain::testing
