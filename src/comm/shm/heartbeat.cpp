#include "shmtrain/comm/shm/heartbeat.hpp"

#include <pthread.h>

#include <algorithm>
#include <condition_variable>
#include <fstream>
#include <mutex>

#include <fmt/format.h>

namespace shmtrain::comm {

struct Heartbeat::Stop {
  std::mutex mutex;
  std::condition_variable wake;
  bool requested = false;
};

Heartbeat::Heartbeat(RankControl& control) : stop_(std::make_unique<Stop>()) {
  control.heartbeat.fetch_add(1, std::memory_order_relaxed);
  thread_ = std::thread([&control, stop = stop_.get()] {
    pthread_setname_np(pthread_self(), "shmtrain-beat");  // what `top -H` and gdb show
    std::unique_lock lock(stop->mutex);
    while (!stop->wake.wait_for(lock, kHeartbeatInterval, [stop] { return stop->requested; })) {
      control.heartbeat.fetch_add(1, std::memory_order_relaxed);
    }
  });
}

Heartbeat::~Heartbeat() {
  {
    std::lock_guard lock(stop_->mutex);
    stop_->requested = true;
  }
  stop_->wake.notify_one();
  thread_.join();
}

HeartbeatWatch::HeartbeatWatch(const RankControl& control, Clock::time_point now)
    : control_(&control), seen_(control.heartbeat.load(std::memory_order_relaxed)), looked_at_(now) {}

HeartbeatWatch::Clock::duration HeartbeatWatch::still_for(Clock::time_point now) {
  const std::uint64_t beats = control_->heartbeat.load(std::memory_order_relaxed);
  if (beats != seen_) {
    seen_ = beats;
    still_ = {};
  } else {
    still_ += std::min<Clock::duration>(now - looked_at_, kMaxCountedGap);
  }
  looked_at_ = now;
  return still_;
}

char process_state(std::int64_t pid) {
  std::ifstream stat(fmt::format("/proc/{}/stat", pid));
  std::string line;
  if (!std::getline(stat, line)) return '?';
  // The command (field 2) is in parentheses and may itself hold ") ": the state follows the last.
  const std::size_t paren = line.rfind(')');
  if (paren == std::string::npos || paren + 2 >= line.size()) return '?';
  return line[paren + 2];
}

// proc(5)'s names of the states.
std::string describe_process_state(char state) {
  std::string_view name;
  switch (state) {
    case 'R':
      name = "running";
      break;
    case 'S':
      name = "sleeping";
      break;
    case 'D':
      name = "uninterruptible sleep (usually I/O)";
      break;
    case 'T':
      name = "stopped";
      break;
    case 't':
      name = "stopped by a debugger";
      break;
    case 'Z':
      name = "zombie";
      break;
    case 'X':
    case 'x':
      name = "dead";
      break;
    case 'I':
      name = "idle";
      break;
    case 'W':
      name = "paging";
      break;
    case 'P':
      name = "parked";
      break;
    default:
      return "unknown";
  }
  return fmt::format("{}, {}", name, state);
}

std::string describe_stall(std::int64_t pid, std::chrono::steady_clock::duration still) {
  return fmt::format("has not made progress for {} s (state: {})",
                     std::chrono::duration_cast<std::chrono::seconds>(still).count(),
                     describe_process_state(process_state(pid)));
}

}  // namespace shmtrain::comm
