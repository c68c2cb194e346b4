// The hierarchical collectives on H simulated hosts x L ranks, as threads: each host's ranks
// share a private segment, and each column (the ranks with one local rank) shares another, so
// the algorithms run without MPI. Integer-valued data: every expected value is exact.
// Random data checks the documented order of addition, bit for bit.
#include <unistd.h>

#include <exception>
#include <mutex>
#include <random>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "harness.hpp"
#include "shmtrain/comm/hierarchical_communicator.hpp"

namespace shmtrain::testing {
namespace {

using comm::Communicator;
using comm::ReduceOp;

constexpr std::size_t kLarge = (std::size_t{1} << 20) + 3;

// Runs body on H * L threads; rank h * L + l gets a HierarchicalCommunicator. A rank that
// throws aborts every segment, so that no thread waits for it; the first error is rethrown.
void run_hosts(int hosts, int local, const std::function<void(Communicator&)>& body) {
  const comm::SegmentConfig host_config{local, std::size_t{64} << 10, std::size_t{16} << 20};
  const comm::SegmentConfig column_config{hosts, std::size_t{64} << 10, 0};
  std::vector<comm::Segment> host_segments;
  std::vector<comm::Segment> column_segments;
  for (int h = 0; h < hosts; ++h) host_segments.push_back(comm::Segment::create_private(host_config));
  for (int l = 0; l < local; ++l) column_segments.push_back(comm::Segment::create_private(column_config));
  comm::ShmOptions options;
  options.transport.timeout = std::chrono::seconds(30);
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

float expected_reduction(int world, std::size_t i, ReduceOp op) {
  float sum = 0.0f;
  float largest = value_of(0, i);
  for (int r = 0; r < world; ++r) {
    sum += value_of(r, i);
    largest = std::max(largest, value_of(r, i));
  }
  if (op == ReduceOp::max) return largest;
  return op == ReduceOp::avg ? sum / static_cast<float>(world) : sum;
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

TEST_P(Hierarchical, AllreduceEveryOpSizeAndBuffer) {
  const int P = hosts() * local();
  run_hosts(hosts(), local(), [P](Communicator& comm) {
    std::span<float> arena = comm.allocate(kLarge);
    std::vector<float> own(kLarge);
    for (ReduceOp op : {ReduceOp::sum, ReduceOp::avg, ReduceOp::max}) {
      for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{7}, std::size_t{100}, kLarge}) {
        for (bool in_arena : {false, true}) {
          std::span<float> data = in_arena ? arena.first(n) : std::span<float>(own).first(n);
          std::vector<float> expected(n);
          for (std::size_t i = 0; i < n; ++i) {
            data[i] = value_of(comm.rank(), i);
            expected[i] = expected_reduction(P, i, op);
          }
          comm.allreduce(data, op);
          require_equal(data, expected,
                        fmt::format("rank {}: allreduce {} of {} floats ({})", comm.rank(), comm::to_string(op), n,
                                    in_arena ? "arena" : "private"));
        }
      }
    }
  });
}

// Random data: sums round, and must round as documented: each host's ranks in order, then
// the hosts' sums in order; every rank gets the same bits.
TEST_P(Hierarchical, AllreduceAddsWithinHostsThenAcrossThem) {
  const int H = hosts();
  const int L = local();
  constexpr std::size_t n = 50000;
  std::vector<std::vector<float>> inputs(static_cast<std::size_t>(H * L), std::vector<float>(n));
  std::mt19937 random(7);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  for (auto& input : inputs) {
    for (float& x : input) x = uniform(random);
  }
  std::vector<float> expected(n);
  for (std::size_t i = 0; i < n; ++i) {
    float total = 0.0f;
    for (int h = 0; h < H; ++h) {
      float host = inputs[static_cast<std::size_t>(h * L)][i];
      for (int l = 1; l < L; ++l) host += inputs[static_cast<std::size_t>(h * L + l)][i];
      total = h == 0 ? host : total + host;
    }
    expected[i] = total / static_cast<float>(H * L);
  }
  for (bool in_arena : {true, false}) {
    run_hosts(H, L, [&](Communicator& comm) {
      std::vector<float> own(n);
      std::span<float> data = in_arena ? comm.allocate(n) : std::span<float>(own);
      std::copy(inputs[static_cast<std::size_t>(comm.rank())].begin(), inputs[static_cast<std::size_t>(comm.rank())].end(),
                data.begin());
      comm.allreduce(data, ReduceOp::avg);
      require_equal(data, expected, fmt::format("rank {}: avg of random data ({})", comm.rank(),
                                                in_arena ? "arena" : "private"));
    });
  }
}

TEST_P(Hierarchical, BroadcastFromEveryRoot) {
  const int P = hosts() * local();
  run_hosts(hosts(), local(), [P](Communicator& comm) {
    for (int root = 0; root < P; ++root) {
      for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{300001}}) {
        std::vector<float> data(n);
        std::vector<float> expected(n);
        for (std::size_t i = 0; i < n; ++i) {
          data[i] = value_of(comm.rank(), i);
          expected[i] = value_of(root, i);
        }
        comm.broadcast(data, root);
        require_equal(data, expected, fmt::format("rank {}: broadcast from {} of {} floats", comm.rank(), root, n));
      }
    }
  });
}

TEST_P(Hierarchical, AllgatherPlacesEveryRanksInputInRankOrder) {
  const int P = hosts() * local();
  run_hosts(hosts(), local(), [P](Communicator& comm) {
    for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{7}, std::size_t{300001}}) {
      for (bool in_place : {false, true}) {
        std::vector<float> output(n * static_cast<std::size_t>(P), -1.0f);
        std::vector<float> separate(n);
        const std::span<float> input =
            in_place ? std::span(output).subspan(static_cast<std::size_t>(comm.rank()) * n, n) : std::span(separate);
        for (std::size_t i = 0; i < n; ++i) input[i] = value_of(comm.rank(), i);
        std::vector<float> expected;
        for (int q = 0; q < P; ++q) {
          for (std::size_t i = 0; i < n; ++i) expected.push_back(value_of(q, i));
        }
        comm.allgather(input, output);
        require_equal(output, expected,
                      fmt::format("rank {}: allgather of {} floats{}", comm.rank(), n, in_place ? " in place" : ""));
      }
    }
  });
}

// The sharded optimizer's layout: rank r gets block r of the reduction, as on one host.
TEST_P(Hierarchical, ReduceScatterGivesEachRankItsBlock) {
  const int P = hosts() * local();
  run_hosts(hosts(), local(), [P](Communicator& comm) {
    for (ReduceOp op : {ReduceOp::sum, ReduceOp::avg, ReduceOp::max}) {
      for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{7}, std::size_t{300001}}) {
        const std::size_t total = n * static_cast<std::size_t>(P);
        std::vector<float> input(total);
        for (std::size_t i = 0; i < total; ++i) input[i] = value_of(comm.rank(), i);
        std::vector<float> output(n);
        std::vector<float> expected(n);
        for (std::size_t i = 0; i < n; ++i) {
          expected[i] = expected_reduction(P, static_cast<std::size_t>(comm.rank()) * n + i, op);
        }
        comm.reduce_scatter(input, output, op);
        require_equal(output, expected,
                      fmt::format("rank {}: reduce_scatter {} of {} floats", comm.rank(), comm::to_string(op), n));
      }
    }
  });
}

TEST_P(Hierarchical, BarrierOrdersWhatRanksDoBeforeIt) {
  const int P = hosts() * local();
  std::vector<std::atomic<int>> arrived(static_cast<std::size_t>(P));
  run_hosts(hosts(), local(), [&](Communicator& comm) {
    for (int round = 1; round <= 20; ++round) {
      arrived[static_cast<std::size_t>(comm.rank())].store(round);
      comm.barrier();
      for (int q = 0; q < P; ++q) {
        if (arrived[static_cast<std::size_t>(q)].load() < round) {
          throw Error(fmt::format("rank {} passed barrier {} before rank {} reached it", comm.rank(), round, q));
        }
      }
      comm.barrier();
    }
  });
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
                         ::testing::Values(std::tuple{1, 3}, std::tuple{2, 1}, std::tuple{2, 2}, std::tuple{3, 2},
                                           std::tuple{2, 3}),
                         [](const ::testing::TestParamInfo<std::tuple<int, int>>& param) {
                           return fmt::format("H{}xL{}", std::get<0>(param.param), std::get<1>(param.param));
                         });

}  // namespace
}  // namespace shmtrain::testing
