// allreduce_bf16 (--ddp_bf16_grads) on a grid of ranks x sizes, threads and processes, with
// buffers in the shared arena (the zero-copy bf16 pass) and in private memory (the fallback
// that moves floats); small integers, so every sum is exact and every average is the float
// average rounded once.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "comm/harness.hpp"
#include "shmtrain/comm/overlapped_allreduce.hpp"

namespace shmtrain::testing {
namespace {

struct Bf16Case {
  Mode mode;
  int world;
};

class AllreduceBf16Test : public ::testing::TestWithParam<Bf16Case> {};

float expected_value(int world, std::size_t i, comm::ReduceOp op) {
  float sum = 0;
  for (int q = 0; q < world; ++q) sum += value_of(q, i);
  return tensor::to_float(tensor::to_bf16(op == comm::ReduceOp::avg ? sum / static_cast<float>(world) : sum));
}

void check(std::span<const tensor::bf16> data, int world, comm::ReduceOp op, const std::string& what) {
  for (std::size_t i = 0; i < data.size(); ++i) {
    const float expected = expected_value(world, i, op);
    if (tensor::to_float(data[i]) != expected) {
      throw Error(
          fmt::format("{}: element {} is {}, expected {}", what, i, tensor::to_float(data[i]), expected));
    }
  }
}

TEST_P(AllreduceBf16Test, SumsInFloatAndRoundsOnceInTheArenaAndOutOfIt) {
  const auto [mode, world] = GetParam();
  run_ranks(mode, world, {}, [&](comm::Communicator& comm) {
    for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{33}, std::size_t{300001}}) {
      for (comm::ReduceOp op : {comm::ReduceOp::sum, comm::ReduceOp::avg}) {
        const std::span<float> storage = comm.allocate((n + 1) / 2);
        const std::span<tensor::bf16> shared(reinterpret_cast<tensor::bf16*>(storage.data()), n);
        std::vector<tensor::bf16> private_copy(n);
        for (std::size_t i = 0; i < n; ++i)
          shared[i] = private_copy[i] = tensor::to_bf16(value_of(comm.rank(), i));
        comm.allreduce_bf16(shared, op);
        check(shared, world, op, fmt::format("arena, n={}", n));
        comm.allreduce_bf16(private_copy, op);
        check(private_copy, world, op, fmt::format("private, n={}", n));
      }
    }
  });
}

// The overlapped exchange with a bf16 wire: every float of the buffer comes back as the
// bf16-rounded average.
TEST_P(AllreduceBf16Test, OverlappedBucketsCarryBf16) {
  const auto [mode, world] = GetParam();
  run_ranks(mode, world, {}, [&](comm::Communicator& comm) {
    const std::size_t n = 100003;
    const std::span<float> grads = comm.allocate(n + 1);
    const std::span<float> storage = comm.allocate((n + 1) / 2 + 1);
    comm::OverlappedAllreduce exchange(comm, grads.first(n), comm::ReduceOp::avg, 4096,
                                       std::span(reinterpret_cast<tensor::bf16*>(storage.data()), n));
    for (int round = 0; round < 2; ++round) {
      for (std::size_t i = 0; i < n; ++i) grads[i] = value_of(comm.rank(), i);
      exchange.start();
      for (std::size_t offset : {std::size_t{90000}, std::size_t{50001}, std::size_t{7}}) exchange.ready(offset);
      exchange.finish();
      for (std::size_t i = 0; i < n; ++i) {
        const float expected = expected_value(comm.size(), i, comm::ReduceOp::avg);
        if (grads[i] != expected) {
          throw Error(fmt::format("round {}: element {} is {}, expected {}", round, i, grads[i], expected));
        }
      }
    }
  });
}

INSTANTIATE_TEST_SUITE_P(Ranks, AllreduceBf16Test,
                         ::testing::Values(Bf16Case{Mode::threads, 1}, Bf16Case{Mode::threads, 2},
                                           Bf16Case{Mode::threads, 3}, Bf16Case{Mode::processes, 2},
                                           Bf16Case{Mode::processes, 4}),
                         [](const auto& param_info) {
                           return fmt::format("{}_{}", mode_name(param_info.param.mode), param_info.param.world);
                         });

}  // namespace
}  // namespace shmtrain::testing
