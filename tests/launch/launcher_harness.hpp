#pragma once
// Runs launch_workers() in a forked "launcher" process whose stdout and stderr the test reads,
// so that a test can kill workers or the launcher and watch what follows.
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "shmtrain/comm/shm/segment.hpp"
#include "shmtrain/launch/launcher.hpp"
#include "support/test_support.hpp"

namespace shmtrain::testing {

struct ForkedLauncher {
  pid_t pid = -1;
  int out_fd = -1;
  int err_fd = -1;
};

struct LauncherResult {
  bool exited = false;   // false: still running at the deadline (then killed)
  int status = 0;
  double seconds = 0.0;  // from wait start to exit
  std::string out, err;
};

// Exit codes of the launcher process: 0 success, 1 WorkerFailure or other error, 130 Interrupted.
inline ForkedLauncher start_launcher(int world, const launch::LaunchOptions& options,
                                     const launch::WorkerFunction& worker) {
  int out[2], err[2];
  if (pipe(out) != 0 || pipe(err) != 0) throw std::runtime_error("pipe");
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("fork");
  if (pid == 0) {
    dup2(out[1], STDOUT_FILENO);
    dup2(err[1], STDERR_FILENO);
    close(out[0]);
    close(err[0]);
    close(out[1]);
    close(err[1]);
    int code = 0;
    try {
      const topo::Topology topology = topo::Topology::load({"package:1 core:4 pu:1", ""});
      launch::launch_workers(topology, topo::make_plan(topology, {.nproc_per_node = world}), options, worker);
    } catch (const launch::Interrupted& e) {
      fmt::print(stderr, "launcher: {}\n", e.what());
      code = 130;
    } catch (const std::exception& e) {
      fmt::print(stderr, "launcher: {}\n", e.what());
      code = 1;
    }
    std::fflush(nullptr);
    _exit(code);
  }
  close(out[1]);
  close(err[1]);
  return {pid, out[0], err[0]};
}

// Reads the launcher's output until its pipes close (the launcher and every worker holding
// them are gone) and reaps it; kills it at the deadline.
inline LauncherResult finish_launcher(ForkedLauncher& launcher, std::chrono::seconds deadline) {
  LauncherResult result;
  const auto start = std::chrono::steady_clock::now();
  int open = 2;
  while (open > 0 && std::chrono::steady_clock::now() - start < deadline) {
    pollfd fds[2] = {{launcher.out_fd, POLLIN, 0}, {launcher.err_fd, POLLIN, 0}};
    if (poll(fds, 2, 100) <= 0) continue;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].revents == 0 || fds[i].fd < 0) continue;
      char buffer[4096];
      const ssize_t n = read(fds[i].fd, buffer, sizeof(buffer));
      if (n > 0) {
        (i == 0 ? result.out : result.err).append(buffer, static_cast<std::size_t>(n));
      } else {
        close(i == 0 ? launcher.out_fd : launcher.err_fd);
        (i == 0 ? launcher.out_fd : launcher.err_fd) = -1;
        --open;
      }
    }
  }
  if (open > 0) kill(launcher.pid, SIGKILL);
  waitpid(launcher.pid, &result.status, 0);
  result.exited = open == 0;
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (launcher.out_fd >= 0) close(launcher.out_fd);
  if (launcher.err_fd >= 0) close(launcher.err_fd);
  return result;
}

// Worker side: records this worker's pid in `dir`.
inline void record_worker(const std::filesystem::path& dir, const launch::WorkerContext& context) {
  write_file(dir / fmt::format("pid.{}.tmp", context.rank), std::to_string(getpid()));
  std::filesystem::rename(dir / fmt::format("pid.{}.tmp", context.rank), dir / fmt::format("pid.{}", context.rank));
}

// Test side: waits until every worker recorded itself; returns the pids.
inline std::vector<pid_t> wait_for_workers(const std::filesystem::path& dir, int world) {
  std::vector<pid_t> pids;
  for (int rank = 0; rank < world; ++rank) {
    const auto path = dir / fmt::format("pid.{}", rank);
    for (int tries = 0; !std::filesystem::exists(path) && tries < 1000; ++tries) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    pids.push_back(static_cast<pid_t>(std::stol(read_file(path))));
  }
  return pids;
}

// What process `pid` holds of /dev/shm: the mappings (/proc/<pid>/maps, a removed file too:
// "/dev/shm/x (deleted)") and open descriptors (/proc/<pid>/fd) of files there, one line each.
inline std::vector<std::string> dev_shm_files_held(pid_t pid) {
  std::vector<std::string> held;
  std::ifstream maps(fmt::format("/proc/{}/maps", pid));
  for (std::string line; std::getline(maps, line);) {
    if (line.find(" /dev/shm/") != std::string::npos) held.push_back("mapped: " + line);
  }
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(fmt::format("/proc/{}/fd", pid), error)) {
    const std::string target = std::filesystem::read_symlink(entry.path(), error).string();
    if (target.starts_with("/dev/shm/")) held.push_back("open: " + target);
  }
  return held;
}

// The shmtrain segments in /dev/shm whose header names one of `pids` as its creator: parallel
// tests' MPI jobs may have segments of their own there, those of the processes in `pids` must
// not be there.
inline std::vector<std::string> segments_created_by(const std::vector<pid_t>& pids) {
  std::vector<std::string> found;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator("/dev/shm", error)) {
    const std::string name = entry.path().filename().string();
    if (!name.starts_with(comm::kSegmentPrefix)) continue;
    try {
      const comm::Segment segment = comm::Segment::open(name);
      if (std::count(pids.begin(), pids.end(), segment.header().launcher_pid) > 0) found.push_back(name);
    } catch (const std::exception&) {
      // removed meanwhile, or not yet initialised: another job's
    }
  }
  return found;
}

}  // namespace shmtrain::testing
