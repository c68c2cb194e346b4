#pragma once
// Runs a test body on P ranks, either as worker processes forked by the launcher (on a
// synthetic topology, so nothing is bound) or as threads over the same algorithms. A body
// reports a wrong result by throwing; in a worker that fails the launch with the body's
// message on stderr.
#include <chrono>
#include <functional>
#include <span>
#include <string>

#include <gtest/gtest.h>

#include "shmtrain/comm/thread_group.hpp"
#include "shmtrain/launch/launcher.hpp"
#include "shmtrain/topo/placement.hpp"
#include "support/test_support.hpp"

namespace shmtrain::testing {

enum class Mode { processes, threads };

inline std::string mode_name(Mode mode) { return mode == Mode::processes ? "processes" : "threads"; }

struct GroupSetup {
  std::size_t slot_bytes = std::size_t{64} << 10;   // small: large messages go through many slices
  std::size_t arena_bytes = std::size_t{16} << 20;
  std::chrono::milliseconds stall_timeout{comm::kDefaultStallTimeout};
  std::size_t one_shot_bytes = std::size_t{256} << 10;
};

inline void run_ranks(Mode mode, int world, const GroupSetup& setup,
                      const std::function<void(comm::Communicator&)>& body) {
  comm::ShmOptions options;
  options.transport.stall_timeout = setup.stall_timeout;
  options.one_shot_bytes = setup.one_shot_bytes;
  if (mode == Mode::threads) {
    comm::run_in_threads({world, setup.slot_bytes, setup.arena_bytes}, options, body);
    return;
  }
  const topo::Topology topology = topo::Topology::load({"package:1 core:4 pu:1", ""});
  const topo::PlacementPlan plan = topo::make_plan(topology, {.nproc_per_node = world});
  launch::LaunchOptions launch_options;
  launch_options.slot_bytes = setup.slot_bytes;
  launch_options.arena_bytes = setup.arena_bytes;
  launch_options.comm = options;
  launch::launch_workers(topology, plan, launch_options, [&](launch::WorkerContext& context) {
    body(context.communicator);
    return 0;
  });
}

// Throws Error listing the first mismatches unless the spans are equal element by element.
inline void require_equal(std::span<const float> actual, std::span<const float> expected, const std::string& what) {
  const ::testing::AssertionResult same = all_close(actual, expected, 0.0);
  if (!same) throw Error(what + ": " + same.message());
}

// Small integers, different per rank and element: every sum and average is exact.
inline float value_of(int rank, std::size_t i) {
  return static_cast<float>(static_cast<int>((i * 7 + static_cast<std::size_t>(rank) * 13) % 31) - 15);
}

}  // namespace shmtrain::testing
