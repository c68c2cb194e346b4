#include "shmtrain/train/progress.hpp"

#include <cmath>

#include <fmt/format.h>

namespace shmtrain::train {

std::string format_duration(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) return "?";
  const auto total = static_cast<std::int64_t>(std::llround(seconds));
  if (total >= 3600) return fmt::format("{}h{:02}m", total / 3600, (total % 3600) / 60);
  if (total >= 60) return fmt::format("{}m{:02}s", total / 60, total % 60);
  return fmt::format("{}s", total);
}

ProgressDisplay::ProgressDisplay(std::FILE* out, bool live, std::int64_t total_steps, std::int64_t first_step)
    : out_(out),
      live_(live),
      total_(total_steps),
      first_(first_step),
      step_(first_step),
      start_(std::chrono::steady_clock::now()),
      last_draw_(start_ - std::chrono::seconds(1)) {}

double ProgressDisplay::eta_seconds(std::int64_t step) const {
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  const std::int64_t done = step - first_;
  if (done <= 0) return NAN;
  return elapsed / static_cast<double>(done) * static_cast<double>(total_ - step);
}

void ProgressDisplay::step(std::int64_t step, double loss, double samples_per_second) {
  step_ = step;
  loss_ = loss;
  samples_per_second_ = samples_per_second;
  if (!live_) return;
  const auto now = std::chrono::steady_clock::now();
  if (now - last_draw_ < std::chrono::milliseconds(100) && step != total_) return;
  last_draw_ = now;
  draw();
}

void ProgressDisplay::window(double tokens_per_second, double exchange_share) {
  tokens_per_second_ = tokens_per_second;
  exchange_share_ = exchange_share;
}

void ProgressDisplay::draw() {
  const std::string window =
      tokens_per_second_ < 0
          ? std::string()
          : fmt::format(" | {:.0f} tokens/s | exchange {:.0f}%", tokens_per_second_, 100.0 * exchange_share_);
  const std::string line = fmt::format("  step {}/{} | loss {:.4f} | {:.1f} samples/s{} | ETA {}", step_, total_, loss_,
                                       samples_per_second_, window, format_duration(eta_seconds(step_)));
  const std::size_t pad = drawn_width_ > line.size() ? drawn_width_ - line.size() : 0;
  fmt::print(out_, "\r{}{:{}}", line, "", pad);
  std::fflush(out_);
  drawn_width_ = line.size();
}

void ProgressDisplay::print(const std::string& line) {
  if (live_ && drawn_width_ > 0) {
    fmt::print(out_, "\r{:{}}\r", "", drawn_width_);
    drawn_width_ = 0;
  }
  fmt::print(out_, "{}\n", line);
  if (live_ && !finished_ && step_ > first_) draw();
  std::fflush(out_);
}

void ProgressDisplay::finish() {
  finished_ = true;
  if (live_ && drawn_width_ > 0) {
    fmt::print(out_, "\n");
    std::fflush(out_);
    drawn_width_ = 0;
  }
}

}  // namespace shmtrain::train
