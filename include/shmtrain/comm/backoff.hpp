#pragma once
// How a rank waits once spinning has not been enough: it yields the core for a while (an
// oversubscribed peer can run; a peer about to arrive is seen at once), then sleeps, each nap
// twice the last up to a cap (a rank that waits for a slow peer, rank 0 evaluating, say, stops
// burning its core). The shared-memory and MPI transports wait this way.
#include <chrono>

namespace shmtrain::comm {

class Backoff {
 public:
  Backoff(std::chrono::microseconds yield_phase, std::chrono::microseconds max_sleep)
      : start_(std::chrono::steady_clock::now()), yield_phase_(yield_phase), max_sleep_(max_sleep) {}

  // One pause between two looks at what the caller waits for. `now` is the caller's clock reading.
  void pause(std::chrono::steady_clock::time_point now);

 private:
  std::chrono::steady_clock::time_point start_;
  std::chrono::microseconds yield_phase_;
  std::chrono::microseconds max_sleep_;
  std::chrono::microseconds nap_{10};
};

}  // namespace shmtrain::comm
