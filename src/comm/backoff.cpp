#include "shmtrain/comm/backoff.hpp"

#include <sched.h>
#include <time.h>

#include <algorithm>

namespace shmtrain::comm {

void Backoff::pause(std::chrono::steady_clock::time_point now) {
  if (now - start_ < yield_phase_) {
    sched_yield();
    return;
  }
  timespec ts{0, static_cast<long>(nap_.count()) * 1000};
  nanosleep(&ts, nullptr);  // EINTR just ends the nap early
  nap_ = std::min(nap_ * 2, max_sleep_);
}

}  // namespace shmtrain::comm
