// The hierarchical collectives on H simulated hosts x L ranks, as threads: each host's ranks
// share a private segment, and each column (the ranks with one local rank) shares another, so
// the algorithms run without MPI (mpi/mpi_collectives_test.cpp runs them over MPI). Integer-valued
// data: every expected value is exact; random data checks the order of addition bit for bit.
#include <unistd.h>

#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "comm/collective_checks.hpp"
#include "comm/harness.hpp"
#include "shmtrain/comm/hierarchical/hierarchical_communicator.hpp"

namespace shmtrain::testing {
namespace {

using comm::Communicator;
using comm::ReduceOp;

// Runs body on H * L threads; rank h * L + l gets a HierarchicalCommunicator. A rank that
// throws aborts every segment, so that no thread waits for it; the first error that is not a
// PeerFailure is rethrown.
void run_hosts(int hosts, int local, const std::function<void(Communicator&)>& body) {
  const comm::SegmentConfig host_config{local, std::size_t{64} << 10, std::size_t{16} << 20};
  const comm::SegmentConfig column_config{hosts, std::size_t{64} << 10, 0};
  std::vector<comm::Segment> host_segments;
  std::vector<comm::Segment> column_segments;
  for (int h = 0; h < hosts; ++h) host_segments.push_back(comm::Segment::create_anonymous(host_config));
  for (int l = 0; l < local; ++l) column_segments.push_back(comm::Segment::create_anonymous(column_config));
  const comm::ShmOptions options{};
  std::mutex mutex;
  std::exception_ptr first;
  auto rank_body = [&](int h, int l) {
    try {
      comm::ShmCommunicator host(host_segments[static_cast<std::size_t>(h)].bytes(), l, options);
      comm::ShmCommunicator column(column_segments[static_cast<std::size_t>(l)].bytes(), h, options);
      comm::HierarchicalCommunicator communicator(host, column);
      body(communicator);
    } catch (const std::exception& e) {
      for (auto* segments : {&host_segments, &column_segments}) {
        for (comm::Segment& segment : *segments) {
          comm::raise_abort(segment.header(), fmt::format("rank {} failed: {}", h * local + l, e.what()));
        }
      }
      std::lock_guard lock(mutex);
      if (!first || dynamic_cast<const comm::PeerFailure*>(&e) == nullptr) first = std::current_exception();
    }
  };
  std::vector<std::thread> threads;
  for (int h = 0; h < hosts; ++h) {
    for (int l = 0; l < local; ++l) threads.emplace_back(rank_body, h, l);
  }
  for (std::thread& thread : threads) thread.join();
  if (first) std::rethrow_exception(first);
}

class Hierarchical : public ::testing::TestWithParam<std::tuple<int, int>> {
 protected:
  void SetUp() override { alarm(120); }
  void TearDown() override { alarm(0); }
  int hosts() const { return std::get<0>(GetParam()); }
  int local() const { return std::get<1>(GetParam()); }
};

TEST_P(Hierarchical, RanksAreHostMajor) {
  const int H = hosts();
  const int L = local();
  std::vector<int> seen(static_cast<std::size_t>(H * L), 0);
  std::mutex mutex;
  run_hosts(H, L, [&](Communicator& comm) {
    if (comm.size() != H * L) throw Error(fmt::format("size {} for {} x {}", comm.size(), H, L));
    std::lock_guard lock(mutex);
    ++seen[static_cast<std::size_t>(comm.rank())];
  });
  EXPECT_EQ(seen, std::vector<int>(static_cast<std::size_t>(H * L), 1));
}

TEST_P(Hierarchical, AllreduceEveryOpSizeAndBuffer) { run_hosts(hosts(), local(), check_allreduce); }

TEST_P(Hierarchical, AllreduceAddsWithinHostsThenAcrossThem) {
  const int L = local();
  run_hosts(hosts(), L, [L](Communicator& comm) { check_allreduce_order(comm, L); });
}

TEST_P(Hierarchical, AllreduceBf16RoundsEachHostsPartialThenTheirSum) {
  run_hosts(hosts(), local(), [&](comm::Communicator& comm) { check_allreduce_bf16(comm, local()); });
}

TEST_P(Hierarchical, BroadcastFromEveryRoot) { run_hosts(hosts(), local(), check_broadcast); }

TEST_P(Hierarchical, AllgatherPlacesEveryRanksInputInRankOrder) {
  run_hosts(hosts(), local(), check_allgather);
}

TEST_P(Hierarchical, ReduceScatterGivesEachRankItsBlock) {
  run_hosts(hosts(), local(), check_reduce_scatter);
}

TEST_P(Hierarchical, BarrierOrdersWhatRanksDoBeforeIt) {
  const TempDir dir;
  run_hosts(hosts(), local(), [&dir](Communicator& comm) { check_barrier(comm, dir.path()); });
}

// A rank that fails stops the others (they wait on two groups) instead of leaving them waiting.
TEST_P(Hierarchical, AFailingRankStopsEveryRank) {
  const int P = hosts() * local();
  try {
    run_hosts(hosts(), local(), [P](Communicator& comm) {
      if (comm.rank() == P - 1) throw Error("rank failed on purpose");
      std::vector<float> data(1000, 1.0f);
      comm.allreduce(data, ReduceOp::sum);
    });
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "rank failed on purpose");
  }
}

INSTANTIATE_TEST_SUITE_P(Layouts, Hierarchical,
                         ::testing::Values(std::tuple{1, 3}, std::tuple{2, 1}, std::tuple{2, 2},
                                           std::tuple{3, 2}, std::tuple{2, 3}),
                         [](const ::testing::TestParamInfo<std::tuple<int, int>>& param) {
                           return fmt::format("H{}xL{}", std::get<0>(param.param), std::get<1>(param.param));
                         });

}  // namespace
}  // namespace shmtrain::testing
