// The exchange's guarantees beyond single results: many calls in a row, bit-identical
// results, mismatches and timeouts reported, the segment's contract, and the kernels.
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "harness.hpp"
#include "shmtrain/comm/local_communicator.hpp"
#include "shmtrain/comm/reduce_kernels.hpp"
#include "shmtrain/comm/shm/segment.hpp"

namespace shmtrain::testing {
namespace {

using comm::Communicator;
using comm::ReduceOp;

class Exchange : public ::testing::TestWithParam<Mode> {
 protected:
  void SetUp() override { alarm(120); }
  void TearDown() override { alarm(0); }
};

TEST_P(Exchange, ThousandBackToBackAllreducesOfVaryingSizes) {
  constexpr int kWorld = 3;
  run_ranks(GetParam(), kWorld, {}, [](Communicator& comm) {
    std::span<float> arena = comm.allocate(200000);
    std::vector<float> own(200000);
    for (int call = 0; call < 1000; ++call) {
      const std::size_t n = (static_cast<std::size_t>(call) * 7919) % 20000 + (call % 50 == 0 ? 150000 : 0);
      std::span<float> data = call % 2 == 0 ? arena.first(n) : std::span<float>(own).first(n);
      for (std::size_t i = 0; i < n; ++i) data[i] = value_of(comm.rank(), i + static_cast<std::size_t>(call));
      comm.allreduce(data, ReduceOp::sum);
      for (std::size_t i = 0; i < n; ++i) {
        float expected = 0.0f;
        for (int r = 0; r < kWorld; ++r) expected += value_of(r, i + static_cast<std::size_t>(call));
        if (data[i] != expected) {
          throw Error(fmt::format("rank {} call {} (n {}): [{}] = {}, expected {}", comm.rank(), call, n, i, data[i],
                                  expected));
        }
      }
    }
  });
}

// Random (not integer) data: sums round, and must round the same way on every rank, in both
// algorithms and every run: rank 0's value first, then rank 1's, and so on.
TEST_P(Exchange, ResultsAreBitIdenticalToTheFixedOrderSum) {
  constexpr int kWorld = 3;
  for (std::size_t one_shot : {std::size_t{1} << 20, std::size_t{0}}) {
    GroupSetup setup;
    setup.one_shot_bytes = one_shot;
    setup.slot_bytes = std::size_t{1} << 20;
    run_ranks(GetParam(), kWorld, setup, [](Communicator& comm) {
      auto data_of = [](int rank, std::size_t n) {
        std::mt19937 random(static_cast<unsigned>(rank) + 1);
        std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
        std::vector<float> v(n);
        for (float& x : v) x = uniform(random) * 1e3f;
        return v;
      };
      for (std::size_t n : {std::size_t{1000}, std::size_t{100003}}) {
        for (bool in_arena : {false, true}) {
          std::vector<float> own = data_of(comm.rank(), n);
          std::span<float> data = own;
          if (in_arena) {
            data = comm.allocate(n);
            std::copy(own.begin(), own.end(), data.begin());
          }
          comm.allreduce(data, ReduceOp::sum);
          std::vector<float> expected = data_of(0, n);
          for (int r = 1; r < kWorld; ++r) {
            const std::vector<float> other = data_of(r, n);
            for (std::size_t i = 0; i < n; ++i) expected[i] += other[i];
          }
          if (std::memcmp(data.data(), expected.data(), n * sizeof(float)) != 0) {
            throw Error(fmt::format("rank {}: allreduce of {} floats differs from the fixed-order sum", comm.rank(), n));
          }
        }
      }
    });
  }
}

INSTANTIATE_TEST_SUITE_P(Modes, Exchange, ::testing::Values(Mode::processes, Mode::threads),
                         [](const ::testing::TestParamInfo<Mode>& param) { return mode_name(param.param); });

TEST(ExchangeErrors, MismatchedSizesAreReportedNotSummed) {
  try {
    run_ranks(Mode::threads, 2, {}, [](Communicator& comm) {
      std::vector<float> data(10 + static_cast<std::size_t>(comm.rank()));
      comm.allreduce(data, ReduceOp::sum);
    });
    FAIL() << "a size mismatch went unnoticed";
  } catch (const comm::CommError& e) {
    EXPECT_NE(std::string(e.what()).find("called allreduce(count 1"), std::string::npos) << e.what();
  }
}

// Rank 1 ends without the barrier: its communicator is gone, and rank 0 says so at once rather
// than waiting for a heartbeat that will never move again (tests/comm/shm/heartbeat_test.cpp).
TEST(ExchangeErrors, APeerThatLeavesWithoutTheCollectiveIsNamed) {
  const auto start = std::chrono::steady_clock::now();
  try {
    run_ranks(Mode::threads, 2, {}, [](Communicator& comm) {
      if (comm.rank() == 0) comm.barrier();
    });
    FAIL() << "a missing peer went unnoticed";
  } catch (const comm::PeerFailure& e) {
    EXPECT_NE(std::string(e.what()).find(fmt::format("rank 1 (pid {}) has left the group while rank 0 waited for it "
                                                     "in barrier()",
                                                     getpid())),
              std::string::npos)
        << e.what();
  }
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
}

TEST(Segment, IsCreated0600WithAVersionedHeaderAndRemovedByUnlink) {
  comm::Segment segment = comm::Segment::create_named({3, 4096, 8192});
  const std::string path = "/dev/shm/" + segment.name();
  struct stat st{};
  ASSERT_EQ(stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  EXPECT_EQ(static_cast<std::size_t>(st.st_size), segment.bytes().size());
  const comm::SegmentHeader& header = comm::validate_segment(segment.bytes());
  EXPECT_EQ(header.layout_version, comm::kLayoutVersion);
  EXPECT_EQ(header.world_size, 3u);
  EXPECT_EQ(header.launcher_pid, getpid());
  segment.header().layout_version += 1;
  EXPECT_THROW(comm::validate_segment(segment.bytes()), Error);
  segment.unlink();
  EXPECT_NE(stat(path.c_str(), &st), 0);
}

// One host: the launcher maps the segment anonymously before it forks; the workers inherit it
// and nothing of it is a file (in /proc/<pid>/maps shared anonymous memory reads "/dev/zero").
TEST(Segment, AnAnonymousSegmentIsSharedWithForkedChildrenAndHasNoName) {
  comm::Segment segment = comm::Segment::create_anonymous({2, 4096, 8192});
  EXPECT_EQ(segment.name(), "");
  segment.unlink();  // nothing to remove
  const comm::SegmentHeader& header = comm::validate_segment(segment.bytes());
  EXPECT_EQ(header.world_size, 2u);
  EXPECT_EQ(header.launcher_pid, getpid());

  const auto start = reinterpret_cast<std::uintptr_t>(segment.bytes().data());
  std::ifstream maps("/proc/self/maps");
  std::string mapping;
  for (std::string line; std::getline(maps, line);) {
    if (std::stoull(line.substr(0, line.find('-')), nullptr, 16) == start) mapping = line;
  }
  EXPECT_NE(mapping.find(" rw-s "), std::string::npos) << mapping;
  EXPECT_NE(mapping.find("/dev/zero"), std::string::npos) << mapping;

  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    comm::rank_control(segment.bytes(), 1).steps.store(42);
    _exit(0);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  EXPECT_EQ(comm::rank_control(segment.bytes(), 1).steps.load(), 42u);
}

// Under an MPI launcher, local rank 0 creates the host's segment by name, its peers open it,
// and the name goes as soon as all have it mapped: what one maps, the others see.
TEST(Segment, OpensByNameAndStaysMappedAfterUnlink) {
  const std::string name = "shmtrain-" + comm::make_job_token() + "-1";
  comm::Segment created = comm::Segment::create_named({2, 4096, 8192}, name);
  EXPECT_EQ(created.name(), name);
  EXPECT_THROW(comm::Segment::create_named({2, 4096, 8192}, name), SystemError);
  comm::Segment opened = comm::Segment::open(name);
  ASSERT_EQ(opened.bytes().size(), created.bytes().size());
  created.unlink();
  struct stat st{};
  EXPECT_NE(stat(("/dev/shm/" + name).c_str(), &st), 0);
  comm::rank_control(created.bytes(), 1).steps.store(42);
  EXPECT_EQ(comm::rank_control(opened.bytes(), 1).steps.load(), 42u);
  try {
    comm::Segment::open(name);
    FAIL() << "an unlinked segment was opened";
  } catch (const SystemError& e) {
    EXPECT_NE(std::string(e.what()).find("/dev/shm/" + name), std::string::npos) << e.what();
  }
}

TEST(Segment, ASegmentLargerThanDevShmIsRefusedWithWhatToDo) {
  try {
    comm::Segment::create_named({2, 4096, std::size_t{1} << 50});
    FAIL() << "a 2 PiB segment was created";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("/dev/shm has"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("--shm-size"), std::string::npos) << e.what();
  }
}

TEST(Segment, StaleSegmentsOfDeadLaunchersAreRemovedLiveOnesKept) {
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) _exit(0);
  ASSERT_EQ(waitpid(child, nullptr, 0), child);

  comm::Segment live = comm::Segment::create_named({1, 4096, 0});
  comm::Segment dead = comm::Segment::create_named({1, 4096, 0});
  dead.header().launcher_pid = child;  // a launcher that has exited
  const std::vector<comm::StaleSegment> removed = comm::remove_stale_segments();
  bool removed_dead = false;
  for (const comm::StaleSegment& stale : removed) {
    EXPECT_NE(stale.name, live.name());
    removed_dead = removed_dead || stale.name == dead.name();
  }
  EXPECT_TRUE(removed_dead);
  struct stat st{};
  EXPECT_NE(stat(("/dev/shm/" + dead.name()).c_str(), &st), 0);
  EXPECT_EQ(stat(("/dev/shm/" + live.name()).c_str(), &st), 0);
  live.unlink();
}

TEST(ReduceKernels, MatchTheOrderedLoopForEveryThreadCountAndInPlace) {
  constexpr int kSources = 3;
  const std::size_t n = (std::size_t{1} << 18) + 5;
  std::mt19937 random(7);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  std::vector<std::vector<float>> sources(kSources, std::vector<float>(n));
  for (auto& s : sources) {
    for (float& x : s) x = uniform(random);
  }
  for (ReduceOp op : {ReduceOp::sum, ReduceOp::avg, ReduceOp::max}) {
    std::vector<float> expected(n);
    for (std::size_t i = 0; i < n; ++i) {
      float acc = sources[0][i];
      for (int s = 1; s < kSources; ++s) acc = op == ReduceOp::max ? std::max(acc, sources[s][i]) : acc + sources[s][i];
      expected[i] = op == ReduceOp::avg ? acc / kSources : acc;
    }
    const float* src[kSources] = {sources[0].data(), sources[1].data(), sources[2].data()};
    for (int threads : {1, 2}) {
      std::vector<float> a(n), b(n);
      float* dst[2] = {a.data(), b.data()};
      comm::reduce_into(dst, 2, src, kSources, n, op, threads);
      EXPECT_EQ(std::memcmp(a.data(), expected.data(), n * sizeof(float)), 0) << comm::to_string(op) << threads;
      EXPECT_EQ(std::memcmp(b.data(), expected.data(), n * sizeof(float)), 0) << comm::to_string(op) << threads;
    }
  }
  // In place, as the reduce-scatter pass does it: the destination is one of the sources.
  std::vector<float> in_place = sources[0];
  const float* src[kSources] = {in_place.data(), sources[1].data(), sources[2].data()};
  float* dst[1] = {in_place.data()};
  comm::reduce_into(dst, 1, src, kSources, n, ReduceOp::sum, 1);
  for (std::size_t i = 0; i < n; i += 997) EXPECT_EQ(in_place[i], sources[0][i] + sources[1][i] + sources[2][i]);
}

TEST(ReduceKernels, StreamingStoresForLargeResultsGiveTheSameBits) {
  const std::size_t n = std::size_t{9} << 20;  // 36 MiB of result: above the streaming threshold
  std::vector<float> a(n), b(n), out(n);
  for (std::size_t i = 0; i < n; ++i) {
    a[i] = static_cast<float>(i % 1000) * 0.25f;
    b[i] = static_cast<float>(i % 77) * -0.5f;
  }
  const float* src[2] = {a.data(), b.data()};
  float* dst[1] = {out.data()};
  comm::reduce_into(dst, 1, src, 2, n, ReduceOp::sum, 1);
  for (std::size_t i = 0; i < n; ++i) {
    if (out[i] != a[i] + b[i]) FAIL() << "[" << i << "] " << out[i] << " != " << a[i] + b[i];
  }
}

TEST(LocalCommunicator, IsTheIdentityForOneProcess) {
  comm::LocalCommunicator comm;
  EXPECT_EQ(comm.size(), 1);
  std::span<float> data = comm.allocate(3);
  data[0] = 1.5f;
  data[1] = -2.0f;
  comm.allreduce(data, ReduceOp::avg);
  EXPECT_EQ(data[0], 1.5f);
  std::vector<float> out(3);
  comm.allgather(data, out);
  EXPECT_EQ(out[1], -2.0f);
  comm.reduce_scatter(data, out, ReduceOp::sum);
  EXPECT_EQ(out[0], 1.5f);
  EXPECT_THROW(comm.broadcast(data, 1), Error);
  EXPECT_THROW(comm.allgather(data, std::span<float>(out).first(2)), Error);
}

}  // namespace
}  // namespace shmtrain::testing
