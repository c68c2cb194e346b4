// An 8,192-token row trains without the score matrices: one training step of a small ModernBERT
// (modernbert-tiny: 3 layers, 2 heads, layer 0 global) on one 8,192-token row, in a real
// process, peaks far below what a single global layer's stored attention probabilities would
// take (2 heads x 8,192^2 floats = 512 MiB): the tiled attention keeps only each row's
// log-sum-exp, so the activations grow with the tokens, not with their square.
#include <sys/resource.h>

#include <cstdio>

#include <gtest/gtest.h>

#include "support/test_support.hpp"

namespace shmtrain::testing {
namespace {

TEST(LongSequence, An8192TokenStepStaysFarBelowOneLayersScoreMatrix) {
  const CliRun run = run_shmtrain(
      "bench train --preset modernbert-tiny --seq 8192 --batch 1 --steps 1 --warmup 0 --configs 1xall --json");
  ASSERT_EQ(run.exit_code, 0) << run.output();
  EXPECT_NE(run.out.find("\"verified\":true"), std::string::npos) << run.out;
  rusage usage{};
  ASSERT_EQ(getrusage(RUSAGE_CHILDREN, &usage), 0);
  const double peak_mib = static_cast<double>(usage.ru_maxrss) / 1024.0;  // ru_maxrss is in KiB
  const double one_score_matrix_mib = 2.0 * 8192.0 * 8192.0 * 4.0 / (1024.0 * 1024.0);
  std::printf("8,192-token step: peak RSS %.0f MiB; one global layer's probabilities alone: %.0f MiB\n", peak_mib,
              one_score_matrix_mib);
  EXPECT_LT(peak_mib, 300.0);
}

}  // namespace
}  // namespace shmtrain::testing
