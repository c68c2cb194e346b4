#pragma once
// The benchmarks' timing: the median of 3 timings, each repeating `run` for at least
// `min_seconds`, after one warm-up call; in seconds per call.
#include <algorithm>
#include <chrono>
#include <functional>
#include <vector>

namespace shmtrain::bench_timing {

inline double median_seconds(const std::function<void()>& run, double min_seconds) {
  using Clock = std::chrono::steady_clock;
  run();
  std::vector<double> times;
  for (int r = 0; r < 3; ++r) {
    int reps = 0;
    const auto t0 = Clock::now();
    double elapsed = 0;
    do {
      run();
      ++reps;
      elapsed = std::chrono::duration<double>(Clock::now() - t0).count();
    } while (elapsed < min_seconds);
    times.push_back(elapsed / reps);
  }
  std::sort(times.begin(), times.end());
  return times[1];
}

}  // namespace shmtrain::bench_timing
