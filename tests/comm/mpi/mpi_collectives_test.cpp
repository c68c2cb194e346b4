// The hierarchical communicator over real MPI ranks: this test program runs itself under
// mpiexec (MpiCollectives.*), and each rank runs MpiRanks.* on the layout it is given: hosts
// simulated on this machine, each with its own segment, MPI between them. H x 1 layouts put
// every byte through the MPI communicator alone. Skipped, saying why, without MPI.
#include <unistd.h>

#include <cstdlib>
#include <iostream>
#include <filesystem>

#include <fmt/format.h>

#include "comm/collective_checks.hpp"
#include "comm/harness.hpp"
#include "shmtrain/launch/mpi_job.hpp"

namespace shmtrain::testing {
namespace {

constexpr const char* kHostsVariable = "SHMTRAIN_TEST_SIMULATED_HOSTS";
constexpr const char* kDirVariable = "SHMTRAIN_TEST_DIR";

// One rank of the job MpiCollectives started: every collective on the job's layout. A wrong
// result throws; MpiJob::run then prints it and aborts the job, and mpiexec fails.
TEST(MpiRanks, EveryCollectiveOnTheJobsLayout) {
  if (!launch::started_by_mpi_launcher() || std::getenv(kHostsVariable) == nullptr) {
    GTEST_SKIP() << "runs as a rank of the mpiexec jobs that MpiCollectives.* start";
  }
  launch::MpiJob job(std::atoi(std::getenv(kHostsVariable)));
  job.place({"package:1 core:4 pu:1", ""}, {});  // a synthetic machine: nothing is bound
  launch::LaunchOptions options;
  options.slot_bytes = std::size_t{64} << 10;  // small: large messages go through many slices
  options.arena_bytes = std::size_t{16} << 20;
  const std::filesystem::path dir = std::getenv(kDirVariable);
  const int local_size = job.local_size();
  const int code = job.run(options, [&](launch::WorkerContext& context) {
    comm::Communicator& comm = context.communicator;
    if (comm.rank() != job.rank() || comm.size() != job.size()) throw Error("ranks differ from the job's");
    check_allreduce(comm);
    check_allreduce_order(comm, local_size);
    check_broadcast(comm);
    check_allgather(comm);
    check_reduce_scatter(comm);
    check_barrier(comm, dir);
    const NetworkBytes bytes = check_allreduce_bf16(comm, local_size);
    if (job.size() > local_size && bytes.fp32 == 0) throw Error("the all-reduce sent nothing between hosts");
    if (job.rank() == 0) {
      fmt::print("between hosts, the ranks sent {} bytes for the fp32 all-reduce of 300000 values and {} for "
                 "the bf16 one\n",
                 bytes.fp32, bytes.bf16);
    }
    return 0;
  });
  EXPECT_EQ(code, 0);
}

class MpiCollectives : public ::testing::TestWithParam<std::tuple<int, int>> {};

TEST_P(MpiCollectives, EveryCollectiveIsExactOnSimulatedHosts) {
  if (const std::string reason = mpi_unavailable_reason(); !reason.empty()) GTEST_SKIP() << reason;
  const auto [ranks, hosts] = GetParam();
  const TempDir dir;
  const std::string self = std::filesystem::read_symlink("/proc/self/exe").string();
  const CliRun run =
      run_command(fmt::format("{}={} {}={} {} {} --gtest_filter=MpiRanks.*", kHostsVariable, hosts,
                              kDirVariable, dir.path().string(), mpiexec_prefix(ranks), self));
  EXPECT_EQ(run.exit_code, 0) << run.output();
  EXPECT_EQ(run.out.find("SKIPPED"), std::string::npos) << run.out;
  // The ranks checked that bf16 sent exactly half the fp32 bytes; rank 0 prints how many.
  const std::size_t at = run.out.find("between hosts, the ranks sent");
  ASSERT_NE(at, std::string::npos) << run.out;
  std::cout << run.out.substr(at, run.out.find('\n', at) - at) << "\n";
}

INSTANTIATE_TEST_SUITE_P(Layouts, MpiCollectives,
                         ::testing::Values(std::tuple{4, 2}, std::tuple{3, 3}, std::tuple{6, 2},
                                           std::tuple{4, 1}),
                         [](const ::testing::TestParamInfo<std::tuple<int, int>>& param) {
                           return fmt::format("H{}xL{}", std::get<1>(param.param),
                                              std::get<0>(param.param) / std::get<1>(param.param));
                         });

}  // namespace
}  // namespace shmtrain::testing
