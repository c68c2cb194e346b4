// Every collective on P = 1..4 ranks, as processes and as threads, with sizes 0, 1, 7 and
// 1M+3 and integer-valued data, so every expected value is exact.
#include <unistd.h>

#include <vector>

#include <fmt/format.h>

#include "comm/collective_checks.hpp"
#include "comm/harness.hpp"
#include "shmtrain/comm/communicator.hpp"

namespace shmtrain::testing {
namespace {

using comm::Communicator;
using comm::ReduceOp;

class Collectives : public ::testing::TestWithParam<std::tuple<Mode, int>> {
 protected:
  void SetUp() override { alarm(120); }  // a hang fails the test instead of stalling the suite
  void TearDown() override { alarm(0); }
  Mode mode() const { return std::get<0>(GetParam()); }
  int world() const { return std::get<1>(GetParam()); }
};

TEST_P(Collectives, AllreduceEveryOpSizeAndBuffer) { run_ranks(mode(), world(), {}, check_allreduce); }

TEST_P(Collectives, BroadcastFromEveryRoot) { run_ranks(mode(), world(), {}, check_broadcast); }

// In place too: --shard_optimizer gathers the parameters into the buffer each rank's part is in.
TEST_P(Collectives, AllgatherPlacesEveryRanksInput) { run_ranks(mode(), world(), {}, check_allgather); }

TEST_P(Collectives, ReduceScatterGivesEachRankItsBlock) { run_ranks(mode(), world(), {}, check_reduce_scatter); }

TEST_P(Collectives, BarrierOrdersWhatRanksDoBeforeIt) {
  const TempDir dir;
  const std::filesystem::path path = dir.path();
  run_ranks(mode(), world(), {}, [path](Communicator& comm) { check_barrier(comm, path); });
}

INSTANTIATE_TEST_SUITE_P(Ranks, Collectives,
                         ::testing::Combine(::testing::Values(Mode::processes, Mode::threads), ::testing::Values(1, 2, 3, 4)),
                         [](const ::testing::TestParamInfo<std::tuple<Mode, int>>& param) {
                           return fmt::format("{}_P{}", mode_name(std::get<0>(param.param)), std::get<1>(param.param));
                         });

}  // namespace
}  // namespace shmtrain::testing
