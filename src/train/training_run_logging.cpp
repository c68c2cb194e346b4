// TrainingRun's log records: one per logging window (loss, learning rate, gradient norm,
// throughput, where each worker's steps went), to metrics.jsonl, trainer_state's log history
// and the console.
#include <cmath>

#include "training_run.hpp"
#include "run_report.hpp"
#include "shmtrain/common/fault_injection.hpp"
#include "shmtrain/report/html_report.hpp"

namespace shmtrain::train {
namespace {

// metrics.jsonl's "workers": each rank's seconds per step, rounded to the microsecond.
nlohmann::json workers_json(const std::vector<WorkerSeconds>& workers) {
  const auto us = [](double seconds) { return std::round(seconds * 1e6) / 1e6; };
  nlohmann::json out = nlohmann::json::array();
  for (const WorkerSeconds& w : workers) {
    out.push_back({{"forward", us(w.forward)},
                   {"backward", us(w.backward)},
                   {"exchange", us(w.exchange)},
                   {"optimizer", us(w.optimizer)},
                   {"data", us(w.data)},
                   {"wait", us(w.wait)}});
  }
  return out;
}

}  // namespace

void TrainingRun::log_step(const StepPlan& plan, double loss, double grad_norm, double lr, bool epoch_end) {
  state_.window_loss_sum += loss;
  ++state_.window_steps;
  const bool last = state_.global_step == plan.total_steps;
  if (state_.global_step % plan.logging_steps != 0 && !last && !(options_.log_each_epoch && epoch_end)) return;
  const double seconds = seconds_since(window_start_);
  nlohmann::ordered_json record;
  record["step"] = state_.global_step;
  record["epoch"] = state_.epoch();
  record["loss"] = state_.window_loss_sum / static_cast<double>(state_.window_steps);
  record["learning_rate"] = lr;
  record["grad_norm"] = grad_norm;
  record["samples_per_second"] = seconds > 0 ? static_cast<double>(window_samples_) / seconds : 0.0;
  fault_point("log", comm_.rank());
  const StepProfile::Window window = profile_.take(comm_);  // collective
  record["tokens_per_second"] = seconds > 0 ? window.tokens / seconds : 0.0;
  const double gflops = seconds > 0 ? window.flops / seconds * 1e-9 : 0.0;
  record["gflops"] = gflops;
  // Useful GFLOP/s as a share of the machine's rate on the model's own linears.
  if (machine_rate_ && machine_rate_->of_run() > 0) record["gemm_share"] = gflops / machine_rate_->of_run();
  record["workers"] = workers_json(window.workers);
  if (window.wait_shares.size() > 1) {
    // Each worker's wait for the others at the exchange, as a share of its step time.
    nlohmann::json shares = nlohmann::json::array();
    for (const double w : window.wait_shares) shares.push_back(std::round(w * 1e4) / 1e4);
    record["worker_wait"] = shares;
  }
  state_.window_loss_sum = 0;
  state_.window_steps = 0;
  window_samples_ = 0;
  window_start_ = Clock::now();
  if (!leader_) return;
  if (progress_) {
    double exchange = 0;
    double total = 0;
    for (const WorkerSeconds& w : window.workers) {
      exchange += w.exchange;
      total += w.forward + w.backward + w.exchange + w.optimizer + w.data + w.wait;
    }
    progress_->window(seconds > 0 ? window.tokens / seconds : 0.0, total > 0 ? exchange / total : 0.0);
  }
  publish(record);
  print_line(format_record(record, plan.total_steps));
}

void TrainingRun::write_report() {
  if (!leader_ || !options_.writes_report()) return;
  try {
    report::write_html_report({options_.output_dir}, options_.output_dir / "report.html");
  } catch (const std::exception& e) {
    // The run's results stand without their picture: say so and go on.
    print_line(fmt::format("warning: report.html not written: {}", e.what()));
  }
}

}  // namespace shmtrain::train
