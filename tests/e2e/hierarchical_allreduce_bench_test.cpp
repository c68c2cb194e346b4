// `mpiexec -n 4 shmtrain bench allreduce --simulated_hosts 2` end to end on tiny sizes: a row per
// size with both all-reduces, verified. Speed is never asserted. Skipped without MPI.
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/test_support.hpp"

namespace shmtrain::testing {
namespace {

TEST(HierarchicalAllreduceBench, MeasuresBothAllreducesOnTheSameBuffersVerified) {
  if (const std::string reason = mpi_unavailable_reason(); !reason.empty()) GTEST_SKIP() << reason;
  const CliRun run = run_command(mpiexec_prefix(4) + " " + shmtrain_binary().string() +
                                 " bench allreduce --simulated_hosts 2 --sizes 4K,1M --iters 3 --json");
  ASSERT_EQ(run.exit_code, 0) << run.output();
  std::size_t rows = 0;
  std::size_t start = 0;
  for (std::size_t end; (end = run.out.find('\n', start)) != std::string::npos; start = end + 1) {
    const nlohmann::json row = nlohmann::json::parse(run.out.substr(start, end - start));
    EXPECT_EQ(row.at("ranks"), 4);
    EXPECT_EQ(row.at("verified"), true) << row.dump();
    EXPECT_GT(row.at("hierarchical_busbw_gbps").get<double>(), 0.0);
    EXPECT_GT(row.at("mpi_allreduce_busbw_gbps").get<double>(), 0.0);
    ++rows;
  }
  EXPECT_EQ(rows, 2u) << run.out;
}

}  // namespace
}  // namespace shmtrain::testing
