#pragma once
// Every collective of a Communicator checked on one rank against exact expectations: the
// bodies that the shared-memory tests (collectives_test.cpp) and the hierarchical ones run on
// threads, forked processes (hierarchical_test.cpp) and MPI ranks (mpi_collectives_test.cpp).
// Each throws Error naming the rank and the first mismatches.
#include <filesystem>
#include <random>
#include <vector>

#include <fmt/format.h>

#include "harness.hpp"
#include "shmtrain/comm/communicator.hpp"

namespace shmtrain::testing {

inline constexpr std::size_t kLargeCount = (std::size_t{1} << 20) + 3;

inline float expected_reduction(int world, std::size_t i, comm::ReduceOp op) {
  float sum = 0.0f;
  float largest = value_of(0, i);
  for (int r = 0; r < world; ++r) {
    sum += value_of(r, i);
    largest = std::max(largest, value_of(r, i));
  }
  if (op == comm::ReduceOp::max) return largest;
  return op == comm::ReduceOp::avg ? sum / static_cast<float>(world) : sum;
}

// Sizes 0, 1, 7, 100 and 1M+3; every op; buffers in the shared arena and in private memory.
inline void check_allreduce(comm::Communicator& comm) {
  const int P = comm.size();
  std::span<float> arena = comm.allocate(kLargeCount);
  std::vector<float> own(kLargeCount);
  for (comm::ReduceOp op : {comm::ReduceOp::sum, comm::ReduceOp::avg, comm::ReduceOp::max}) {
    for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{7}, std::size_t{100}, kLargeCount}) {
      for (bool in_arena : {false, true}) {
        std::span<float> data = in_arena ? arena.first(n) : std::span<float>(own).first(n);
        std::vector<float> expected(n);
        for (std::size_t i = 0; i < n; ++i) {
          data[i] = value_of(comm.rank(), i);
          expected[i] = expected_reduction(P, i, op);
        }
        comm.allreduce(data, op);
        require_equal(data, expected,
                      fmt::format("rank {}: allreduce {} of {} floats ({})", comm.rank(), comm::to_string(op),
                                  n, in_arena ? "arena" : "private"));
      }
    }
  }
}

// Random data: sums round, and must round as the hierarchical communicator documents it: the
// ranks of each host (local_size of them) in order, then the hosts' sums in order.
inline void check_allreduce_order(comm::Communicator& comm, int local_size) {
  const int P = comm.size();
  constexpr std::size_t n = 50000;
  std::vector<std::vector<float>> inputs(static_cast<std::size_t>(P), std::vector<float>(n));
  std::mt19937 random(7);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  for (auto& input : inputs) {
    for (float& x : input) x = uniform(random);
  }
  std::vector<float> expected(n);
  for (std::size_t i = 0; i < n; ++i) {
    float total = 0.0f;
    for (int h = 0; h < P / local_size; ++h) {
      float host = inputs[static_cast<std::size_t>(h * local_size)][i];
      for (int l = 1; l < local_size; ++l) host += inputs[static_cast<std::size_t>(h * local_size + l)][i];
      total = h == 0 ? host : total + host;
    }
    expected[i] = total / static_cast<float>(P);
  }
  std::vector<float> own(n);
  for (bool in_arena : {true, false}) {
    std::span<float> data = in_arena ? comm.allocate(n) : std::span<float>(own);
    const std::vector<float>& mine = inputs[static_cast<std::size_t>(comm.rank())];
    std::copy(mine.begin(), mine.end(), data.begin());
    comm.allreduce(data, comm::ReduceOp::avg);
    require_equal(
        data, expected,
        fmt::format("rank {}: avg of random data ({})", comm.rank(), in_arena ? "arena" : "private"));
  }
}

inline void check_broadcast(comm::Communicator& comm) {
  for (int root = 0; root < comm.size(); ++root) {
    for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{7}, kLargeCount}) {
      std::vector<float> data(n);
      std::vector<float> expected(n);
      for (std::size_t i = 0; i < n; ++i) {
        data[i] = value_of(comm.rank(), i);
        expected[i] = value_of(root, i);
      }
      comm.broadcast(data, root);
      require_equal(data, expected,
                    fmt::format("rank {}: broadcast from {} of {} floats", comm.rank(), root, n));
    }
  }
}

// Block q of the output is rank q's input, in place (the sharded optimizer's parameters) or not.
inline void check_allgather(comm::Communicator& comm) {
  const auto P = static_cast<std::size_t>(comm.size());
  for (bool in_place : {false, true}) {
    const std::vector<std::size_t> sizes =
        in_place ? std::vector<std::size_t>{0, 1, 7, kLargeCount} : std::vector<std::size_t>{0, 1, 7, 300001};
    for (std::size_t n : sizes) {
      std::vector<float> output(n * P, -1.0f);
      std::vector<float> separate(n);
      const std::span<float> input =
          in_place ? std::span(output).subspan(static_cast<std::size_t>(comm.rank()) * n, n)
                   : std::span(separate);
      for (std::size_t i = 0; i < n; ++i) input[i] = value_of(comm.rank(), i);
      std::vector<float> expected;
      for (std::size_t q = 0; q < P; ++q) {
        for (std::size_t i = 0; i < n; ++i) expected.push_back(value_of(static_cast<int>(q), i));
      }
      comm.allgather(input, output);
      require_equal(
          output, expected,
          fmt::format("rank {}: allgather of {} floats{}", comm.rank(), n, in_place ? " in place" : ""));
    }
  }
}

// Rank r gets block r of the reduction: the single-host layout the sharded optimizer relies on.
inline void check_reduce_scatter(comm::Communicator& comm) {
  const int P = comm.size();
  for (comm::ReduceOp op : {comm::ReduceOp::sum, comm::ReduceOp::avg, comm::ReduceOp::max}) {
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
      require_equal(
          output, expected,
          fmt::format("rank {}: reduce_scatter {} of {} floats", comm.rank(), comm::to_string(op), n));
    }
  }
}

// After a barrier, every rank sees what every rank did before it (files in `dir`, which all
// ranks see, threads or processes).
inline void check_barrier(comm::Communicator& comm, const std::filesystem::path& dir) {
  for (int round = 0; round < 20; ++round) {
    write_file(dir / fmt::format("{}-{}", round, comm.rank()), "x");
    comm.barrier();
    for (int q = 0; q < comm.size(); ++q) {
      if (!std::filesystem::exists(dir / fmt::format("{}-{}", round, q))) {
        throw Error(
            fmt::format("rank {} passed barrier {} before rank {} reached it", comm.rank(), round, q));
      }
    }
  }
}

// The bytes one collective sent over the network (MPI between hosts), all ranks together.
struct NetworkBytes {
  std::uint64_t fp32 = 0;
  std::uint64_t bf16 = 0;
};

// allreduce_bf16 with buffers in the arena (bf16 on every wire) and in private memory (floats
// inside the host), every op, as the hierarchical communicator rounds: each host's partial
// (its ranks in order, avg divided by the world's size) rounded to bf16, then the hosts' partials
// summed in order and rounded again; one host rounds once. Returns what the fp32 and the bf16
// all-reduce of the same 300,000 values sent over the network, summed over the ranks (a rank's
// block of a bf16 buffer is cut at other cache lines than a float one, so only the totals halve).
inline NetworkBytes check_allreduce_bf16(comm::Communicator& comm, int local_size) {
  const int P = comm.size();
  const int hosts = P / local_size;
  auto rounded = [](float x) { return tensor::to_float(tensor::to_bf16(x)); };
  auto expected_value = [&](std::size_t i, comm::ReduceOp op, bool in_arena) {
    const auto world = static_cast<float>(P);
    float total = 0.0f;
    for (int h = 0; h < hosts; ++h) {
      float host = value_of(h * local_size, i);
      for (int l = 1; l < local_size; ++l) {
        const float v = value_of(h * local_size + l, i);
        host = op == comm::ReduceOp::max ? std::max(host, v) : host + v;
      }
      if (in_arena && hosts > 1) host = rounded(op == comm::ReduceOp::avg ? host / world : host);
      total = h == 0 ? host : op == comm::ReduceOp::max ? std::max(total, host) : total + host;
    }
    const bool divided = in_arena && hosts > 1;
    return rounded(op == comm::ReduceOp::avg && !divided ? total / world : total);
  };
  for (comm::ReduceOp op : {comm::ReduceOp::sum, comm::ReduceOp::avg, comm::ReduceOp::max}) {
    for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{33}, std::size_t{300001}}) {
      for (bool in_arena : {true, false}) {
        std::vector<tensor::bf16> private_copy(n);
        const std::span<tensor::bf16> data =
            in_arena ? std::span(reinterpret_cast<tensor::bf16*>(comm.allocate((n + 1) / 2).data()), n)
                     : std::span<tensor::bf16>(private_copy);
        for (std::size_t i = 0; i < n; ++i) data[i] = tensor::to_bf16(value_of(comm.rank(), i));
        comm.allreduce_bf16(data, op);
        for (std::size_t i = 0; i < n; ++i) {
          const float expected = expected_value(i, op, in_arena);
          if (tensor::to_float(data[i]) != expected) {
            throw Error(
                fmt::format("rank {}: allreduce_bf16 {} of {} values ({}): element {} is {}, expected {}",
                            comm.rank(), comm::to_string(op), n, in_arena ? "arena" : "private", i,
                            tensor::to_float(data[i]), expected));
          }
        }
      }
    }
  }
  constexpr std::size_t n = 300000;
  NetworkBytes bytes;
  const std::span<float> values = comm.allocate(n);
  const std::span<tensor::bf16> wire(reinterpret_cast<tensor::bf16*>(comm.allocate(n / 2).data()), n);
  std::uint64_t before = comm.network_bytes_sent();
  comm.allreduce(values, comm::ReduceOp::avg);
  bytes.fp32 = comm.network_bytes_sent() - before;
  before = comm.network_bytes_sent();
  comm.allreduce_bf16(wire, comm::ReduceOp::avg);
  bytes.bf16 = comm.network_bytes_sent() - before;
  std::vector<float> totals = {static_cast<float>(bytes.fp32), static_cast<float>(bytes.bf16)};  // exact below 2^24
  comm.allreduce(totals, comm::ReduceOp::sum);
  bytes = {static_cast<std::uint64_t>(totals[0]), static_cast<std::uint64_t>(totals[1])};
  if (2 * bytes.bf16 != bytes.fp32) {
    throw Error(fmt::format("rank {}: the bf16 all-reduce sent {} bytes over the network, the fp32 one {}",
                            comm.rank(), bytes.bf16, bytes.fp32));
  }
  return bytes;
}

}  // namespace shmtrain::testing
