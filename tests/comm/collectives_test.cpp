// Every collective on P = 1..4 ranks, as processes and as threads, with sizes 0, 1, 7 and
// 1M+3 and integer-valued data, so every expected value is exact.
#include <unistd.h>

#include <vector>

#include <fmt/format.h>

#include "harness.hpp"
#include "shmtrain/comm/communicator.hpp"

namespace shmtrain::testing {
namespace {

using comm::Communicator;
using comm::ReduceOp;

constexpr std::size_t kLarge = (std::size_t{1} << 20) + 3;
const std::vector<std::size_t> kSizes = {0, 1, 7, kLarge};

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

class Collectives : public ::testing::TestWithParam<std::tuple<Mode, int>> {
 protected:
  void SetUp() override { alarm(120); }  // a hang fails the test instead of stalling the suite
  void TearDown() override { alarm(0); }
  Mode mode() const { return std::get<0>(GetParam()); }
  int world() const { return std::get<1>(GetParam()); }
};

TEST_P(Collectives, AllreduceEveryOpSizeAndBuffer) {
  const int P = world();
  run_ranks(mode(), P, {}, [P](Communicator& comm) {
    std::span<float> arena = comm.allocate(kLarge);
    std::vector<float> own(kLarge);
    for (ReduceOp op : {ReduceOp::sum, ReduceOp::avg, ReduceOp::max}) {
      for (std::size_t n : kSizes) {
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

TEST_P(Collectives, BroadcastFromEveryRoot) {
  const int P = world();
  run_ranks(mode(), P, {}, [P](Communicator& comm) {
    for (int root = 0; root < P; ++root) {
      for (std::size_t n : kSizes) {
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

TEST_P(Collectives, AllgatherPlacesEveryRanksInput) {
  const int P = world();
  run_ranks(mode(), P, {}, [P](Communicator& comm) {
    for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{7}, std::size_t{300001}}) {
      std::vector<float> input(n);
      for (std::size_t i = 0; i < n; ++i) input[i] = value_of(comm.rank(), i);
      std::vector<float> output(n * static_cast<std::size_t>(P), -1.0f);
      std::vector<float> expected;
      for (int q = 0; q < P; ++q) {
        for (std::size_t i = 0; i < n; ++i) expected.push_back(value_of(q, i));
      }
      comm.allgather(input, output);
      require_equal(output, expected, fmt::format("rank {}: allgather of {} floats", comm.rank(), n));
    }
  });
}

// --shard_optimizer gathers the parameters in place: each rank's input is its part of the output.
TEST_P(Collectives, AllgatherInPlace) {
  const int P = world();
  run_ranks(mode(), P, {}, [P](Communicator& comm) {
    for (std::size_t n : {std::size_t{0}, std::size_t{1}, kLarge}) {
      std::vector<float> output(n * static_cast<std::size_t>(P), -1.0f);
      std::vector<float> expected;
      for (int q = 0; q < P; ++q) {
        for (std::size_t i = 0; i < n; ++i) expected.push_back(value_of(q, i));
      }
      const std::span<float> own = std::span(output).subspan(static_cast<std::size_t>(comm.rank()) * n, n);
      for (std::size_t i = 0; i < n; ++i) own[i] = value_of(comm.rank(), i);
      comm.allgather(own, output);
      require_equal(output, expected, fmt::format("rank {}: in-place allgather of {} floats", comm.rank(), n));
    }
  });
}

TEST_P(Collectives, ReduceScatterGivesEachRankItsBlock) {
  const int P = world();
  run_ranks(mode(), P, {}, [P](Communicator& comm) {
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

// After a barrier, every rank sees what every rank did before it.
TEST_P(Collectives, BarrierOrdersWhatRanksDoBeforeIt) {
  const int P = world();
  TempDir dir;
  const std::filesystem::path path = dir.path();
  run_ranks(mode(), P, {}, [P, path](Communicator& comm) {
    for (int round = 0; round < 20; ++round) {
      write_file(path / fmt::format("{}-{}", round, comm.rank()), "x");
      comm.barrier();
      for (int q = 0; q < P; ++q) {
        if (!std::filesystem::exists(path / fmt::format("{}-{}", round, q))) {
          throw Error(fmt::format("rank {} passed barrier {} before rank {} reached it", comm.rank(), round, q));
        }
      }
    }
  });
}

INSTANTIATE_TEST_SUITE_P(Ranks, Collectives,
                         ::testing::Combine(::testing::Values(Mode::processes, Mode::threads), ::testing::Values(1, 2, 3, 4)),
                         [](const ::testing::TestParamInfo<std::tuple<Mode, int>>& param) {
                           return fmt::format("{}_P{}", mode_name(std::get<0>(param.param)), std::get<1>(param.param));
                         });

}  // namespace
}  // namespace shmtrain::testing
