#pragma once
// What a user watches while training runs. On a terminal: one live line, redrawn in place
// (step/total, loss, samples/s, tokens/s and the exposed exchange's share of the step as of
// the last logging window, ETA), with logged lines printed above it. Elsewhere (a file,
// a CI log): only the logged lines, one per logging step, so logs stay readable.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>

namespace shmtrain::train {

// "1h02m", "3m04s", "12s".
std::string format_duration(double seconds);

class ProgressDisplay {
 public:
  // live: redraw a status line on `out` (normally: out is a terminal and not disable_tqdm).
  ProgressDisplay(std::FILE* out, bool live, std::int64_t total_steps, std::int64_t first_step);

  // After each optimizer step; redraws the live line at most ten times a second.
  void step(std::int64_t step, double loss, double samples_per_second);
  // The last logging window's tokens/s and exposed-exchange share of the step time (0..1).
  void window(double tokens_per_second, double exchange_share);
  // A line that stays (a log record, an evaluation): printed above the live line.
  void print(const std::string& line);
  // Ends the live line.
  void finish();

  // Seconds left at the current pace, from the steps done since construction.
  double eta_seconds(std::int64_t step) const;

 private:
  void draw();

  std::FILE* out_;
  bool live_;
  std::int64_t total_;
  std::int64_t first_;
  std::int64_t step_ = 0;
  double loss_ = 0;
  double samples_per_second_ = 0;
  double tokens_per_second_ = -1;  // < 0: no window logged yet
  double exchange_share_ = 0;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_draw_;
  std::size_t drawn_width_ = 0;
  bool finished_ = false;
};

}  // namespace shmtrain::train
