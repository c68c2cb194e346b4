// The bucketed all-reduce on its exchange thread, as backward drives it: ready offsets going
// down while the caller keeps writing the part below them; integer data, so every average of
// every bucket is exact. Ranks as processes and as threads; a failure is rethrown by finish().
#include <unistd.h>

#include <stdexcept>
#include <vector>

#include <fmt/format.h>

#include "harness.hpp"
#include "shmtrain/comm/overlapped_allreduce.hpp"

namespace shmtrain::testing {
namespace {

using comm::Communicator;
using comm::ReduceOp;

class OverlappedAllreduceTest : public ::testing::TestWithParam<std::tuple<Mode, int>> {
 protected:
  void SetUp() override { alarm(120); }
  void TearDown() override { alarm(0); }
};

TEST_P(OverlappedAllreduceTest, EveryFloatIsReducedOnceWhateverTheBucketing) {
  const Mode mode = std::get<0>(GetParam());
  const int P = std::get<1>(GetParam());
  run_ranks(mode, P, {}, [P](Communicator& comm) {
    constexpr std::size_t n = 300007;
    std::span<float> buffer = comm.allocate(n);
    // min_bucket 1: a bucket per ready call; 50000: some calls merged; n: one bucket at finish().
    for (std::size_t min_bucket : {std::size_t{1}, std::size_t{50000}, n}) {
      comm::OverlappedAllreduce exchange(comm, buffer, ReduceOp::sum, min_bucket);
      for (int round = 0; round < 3; ++round) {
        exchange.start();
        // "Backward": fill the buffer from the end in uneven parts, announcing each part.
        std::size_t end = n;
        for (std::size_t part : {std::size_t{7}, std::size_t{40000}, std::size_t{1}, std::size_t{120000}}) {
          const std::size_t begin = end - part;
          for (std::size_t i = begin; i < end; ++i) buffer[i] = value_of(comm.rank(), i + static_cast<std::size_t>(round));
          exchange.ready(begin);
          end = begin;
        }
        for (std::size_t i = 0; i < end; ++i) buffer[i] = value_of(comm.rank(), i + static_cast<std::size_t>(round));
        exchange.finish();
        std::vector<float> expected(n, 0.0f);
        for (std::size_t i = 0; i < n; ++i) {
          for (int r = 0; r < P; ++r) expected[i] += value_of(r, i + static_cast<std::size_t>(round));
        }
        require_equal(buffer, expected,
                      fmt::format("rank {}: round {}, min_bucket {}", comm.rank(), round, min_bucket));
      }
    }
  });
}

INSTANTIATE_TEST_SUITE_P(Ranks, OverlappedAllreduceTest,
                         ::testing::Combine(::testing::Values(Mode::processes, Mode::threads),
                                            ::testing::Values(1, 2, 3)),
                         [](const auto& param) {
                           return fmt::format("{}_P{}", mode_name(std::get<0>(param.param)), std::get<1>(param.param));
                         });

// A communicator whose collectives fail: the exchange thread's error surfaces in finish().
class FailingCommunicator final : public Communicator {
 public:
  int rank() const override { return 0; }
  int size() const override { return 2; }
  void allreduce(std::span<float>, ReduceOp) override { throw comm::PeerFailure("peer 1 is gone"); }
  void broadcast(std::span<float>, int) override {}
  void barrier() override {}
  void allgather(std::span<const float>, std::span<float>) override {}
  void reduce_scatter(std::span<const float>, std::span<float>, ReduceOp) override {}
  std::span<float> allocate(std::size_t count) override {
    storage_.assign(count, 0.0f);
    return storage_;
  }

 private:
  std::vector<float> storage_;
};

TEST(OverlappedAllreduceErrors, AnExchangeFailureIsRethrownByFinish) {
  FailingCommunicator comm;
  std::span<float> buffer = comm.allocate(100);
  comm::OverlappedAllreduce exchange(comm, buffer, ReduceOp::avg, 10);
  exchange.start();
  exchange.ready(50);
  exchange.ready(20);
  EXPECT_THROW(exchange.finish(), comm::PeerFailure);
  // The next round runs again (and fails again) instead of hanging.
  exchange.start();
  EXPECT_THROW(exchange.finish(), comm::PeerFailure);
}

}  // namespace
}  // namespace shmtrain::testing
