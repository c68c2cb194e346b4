#pragma once
// Liveness that tells a rank that waits or works from one that has stalled.
//
// A peer's process can exist and still never arrive: stopped (SIGSTOP, Ctrl-Z on it alone, a
// debugger at a breakpoint), stuck in uninterruptible sleep (D: a hung file system), or swapped
// out and thrashing. Checking that its pid exists does not see that, and a fixed deadline on
// every wait cannot tell it from a rank that is busy for long (rank 0 writing the checkpoint of
// a large model, evaluating a large set). So every rank publishes a heartbeat:
//
//   beat      Heartbeat, owned by the rank's transport, runs a small thread that raises the
//             rank's RankControl::heartbeat every kHeartbeatInterval for as long as the rank
//             has a communicator: while it computes, saves, evaluates or waits. The thread
//             does nothing else, so only a stall of the whole process stops it (a stopped
//             process's threads all stop; D and thrashing hold them too).
//   watch     HeartbeatWatch is one observer's view of one rank's heartbeat: how long it has
//             stood still while the observer looked. The observers are the peers waiting for
//             the rank in a collective (ShmTransport, every 50 ms) and the launcher's
//             supervisor (every 250 ms); either ends the job once the heartbeat has stood
//             still for the stall timeout (--ddp_timeout).
//
// The observer counts time on its own clock, and a gap between two of its looks counts at most
// kMaxCountedGap: an observer that was not running itself (the whole job stopped with Ctrl-Z
// and resumed with fg, or starved) cannot know whether the rank ran meanwhile, and must not end
// a job that was only paused. The beat is a counter, not a timestamp, so no two processes need
// to agree on a clock.
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>

#include "shmtrain/comm/shm/segment.hpp"

namespace shmtrain::comm {

inline constexpr auto kHeartbeatInterval = std::chrono::milliseconds(100);
inline constexpr auto kMaxCountedGap = std::chrono::seconds(1);

// The beating thread of one rank. Raises control.heartbeat at once, then every
// kHeartbeatInterval until destroyed (the destructor stops and joins the thread).
class Heartbeat {
 public:
  explicit Heartbeat(RankControl& control);
  ~Heartbeat();
  Heartbeat(const Heartbeat&) = delete;
  Heartbeat& operator=(const Heartbeat&) = delete;

 private:
  struct Stop;
  std::unique_ptr<Stop> stop_;
  std::thread thread_;
};

class HeartbeatWatch {
 public:
  using Clock = std::chrono::steady_clock;

  // Starts watching `control`'s heartbeat at `now`: it has stood still for 0 so far.
  HeartbeatWatch(const RankControl& control, Clock::time_point now);

  // How long the heartbeat has stood still while this observer looked, as of `now`.
  // REQUIRES: `now` does not go back between calls.
  Clock::duration still_for(Clock::time_point now);

 private:
  const RankControl* control_;
  std::uint64_t seen_;
  Clock::time_point looked_at_;
  Clock::duration still_{};
};

// /proc/<pid>/stat's state letter: 'R', 'S', 'D', 'T', 't', 'Z', ...; '?' when unknown.
char process_state(std::int64_t pid);

// "stopped, T", "uninterruptible sleep (usually I/O), D", "unknown" (no /proc entry).
std::string describe_process_state(char state);

// "has not made progress for 30 s (state: stopped, T)": what a stalled rank's process `pid`
// looks like after its heartbeat stood still for `still`.
std::string describe_stall(std::int64_t pid, std::chrono::steady_clock::duration still);

}  // namespace shmtrain::comm
