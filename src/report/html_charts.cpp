// The page's charts: which series of which runs each one overlays.
#include <algorithm>
#include <array>
#include <cmath>
#include <set>

#include <fmt/format.h>

#include "html_chart.hpp"
#include "html_chart_frame.hpp"
#include "html_sections.hpp"
#include "html_text.hpp"

namespace shmtrain::report {
namespace {

std::string figure(const std::string& svg) { return "<figure class=\"chart-box\">" + svg + "</figure>\n"; }

// The points of `key` in a run's records of one kind (training or evaluation).
std::vector<ChartPoint> points_of(const RunFolder& run, const std::string& key, bool evaluation) {
  std::vector<ChartPoint> points;
  for (const LogRecord& record : run.records) {
    if ((evaluation ? record.is_evaluation() : record.is_training()) == false) continue;
    if (const std::optional<double> y = record.value(key))
      points.push_back({static_cast<double>(record.step), *y});
  }
  return points;
}

// One series per run of a training key.
LineChart per_run_chart(const ReportRuns& report, std::string id, std::string title, std::string y_label,
                        bool zero_based) {
  LineChart chart;
  chart.title = std::move(title);
  chart.y_label = std::move(y_label);
  chart.x_max = report.x_max;
  chart.zero_based = zero_based;
  for (std::size_t r = 0; r < report.runs.size(); ++r) {
    const RunFolder& run = report.runs[r];
    chart.series.push_back({run.name, id, run.name, report.colors[r], false, points_of(run, id, false)});
  }
  chart.empty_text = fmt::format("no data: no training record has {}", id);
  chart.id = std::move(id);
  return chart;
}

// Evaluation keys that are not a model's quality: how long it took and on how much.
bool is_speed_or_count(std::string key) {
  if (key.ends_with("_mm")) key.resize(key.size() - 3);
  static const std::set<std::string> kKeys = {"eval_loss", "eval_runtime", "eval_samples",
                                              "eval_samples_per_second", "eval_steps_per_second"};
  return kKeys.contains(key);
}

constexpr std::array<const char*, 6> kPhases = {"forward",   "backward", "exchange",
                                                "optimizer", "data",     "wait"};
constexpr std::array<const char*, 6> kPhaseColors = {"#4e79a7", "#f28e2b", "#e15759",
                                                     "#76b7b2", "#59a14f", "#9d9590"};
constexpr std::array<const char*, 6> kPhaseLabels = {"forward",   "backward", "exchange (exposed)",
                                                     "optimizer", "data",     "wait for slowest"};

double phase(const StepSplit& s, std::size_t p) {
  const std::array<double, 6> parts = {s.forward, s.backward, s.exchange, s.optimizer, s.data, s.wait};
  return parts[p];
}

std::string placement_text(const RunFolder& run, std::size_t rank) {
  const auto workers = run.run_info.is_object() ? run.run_info.find("workers") : run.run_info.end();
  if (!run.run_info.is_object() || workers == run.run_info.end() || !workers->is_array() ||
      rank >= workers->size()) {
    return {};
  }
  const nlohmann::ordered_json& worker = (*workers)[rank];
  if (!worker.is_object()) return {};
  std::string text;
  for (const auto& [key, label] :
       {std::pair{"package", "package"}, std::pair{"numa", "NUMA"}, std::pair{"cpus", "cpus"}}) {
    const auto it = worker.find(key);
    if (it != worker.end() && !it->is_null())
      text += fmt::format("{}{} {}", text.empty() ? "" : ", ", label, json_text(*it));
  }
  return text.empty() ? text : " (" + text + ")";
}

std::string step_time_charts(const ReportRuns& report) {
  std::string out;
  for (const RunFolder& run : report.runs) {
    std::size_t workers = 0;
    for (const LogRecord& record : run.records) {
      if (record.is_training()) workers = std::max(workers, record.workers.size());
    }
    for (std::size_t w = 0; w < workers; ++w) {
      StackedChart chart;
      chart.id = "step_time";
      chart.title = fmt::format("Step time: {} · worker {}{}", run.name, w, placement_text(run, w));
      chart.y_label = "seconds per step";
      chart.run = run.name;
      chart.worker = static_cast<int>(w);
      chart.x_max = report.x_max;
      for (std::size_t p = 0; p < kPhases.size(); ++p)
        chart.layers.push_back({kPhases[p], "", kPhaseColors[p], {}});
      double previous = 0;
      for (const LogRecord& record : run.records) {
        if (!record.is_training()) continue;
        const double step = static_cast<double>(record.step);
        const double start = std::min(previous, step);
        previous = step;
        if (w >= record.workers.size()) continue;
        chart.window_start.push_back(start);
        chart.window_end.push_back(step);
        for (std::size_t p = 0; p < kPhases.size(); ++p)
          chart.layers[p].values.push_back(phase(record.workers[w], p));
      }
      double total = 0;
      std::vector<double> means(kPhases.size(), 0.0);
      for (std::size_t p = 0; p < kPhases.size(); ++p) {
        for (const double v : chart.layers[p].values) means[p] += v;
        means[p] /= static_cast<double>(std::max<std::size_t>(1, chart.window_end.size()));
        total += means[p];
      }
      for (std::size_t p = 0; p < kPhases.size(); ++p) {
        chart.layers[p].label = fmt::format("{} {:.3g} ms ({:.0f}%)", kPhaseLabels[p], 1e3 * means[p],
                                            total > 0 ? 100 * means[p] / total : 0.0);
      }
      out += figure(render_stacked_chart(chart));
    }
  }
  if (out.empty()) {
    out = figure(empty_chart("step_time", "Where a step's time goes, per worker", "seconds per step",
                             "no data: no training record has per-worker times", ""));
  }
  return out;
}

}  // namespace

std::string training_charts(const ReportRuns& report) {
  LineChart loss =
      per_run_chart(report, "loss", "Loss: training (solid) and evaluation (dashed)", "loss", false);
  for (ChartSeries& series : loss.series) series.label += " training";
  for (std::size_t r = 0; r < report.runs.size(); ++r) {
    const RunFolder& run = report.runs[r];
    loss.series.push_back({run.name, "eval_loss", run.name + " evaluation", report.colors[r], true,
                           points_of(run, "eval_loss", true)});
  }
  loss.empty_text = "no data: no training or evaluation loss";
  std::string out = figure(render_line_chart(loss));
  out += figure(
      render_line_chart(per_run_chart(report, "learning_rate", "Learning rate", "learning rate", true)));
  out += figure(render_line_chart(per_run_chart(
      report, "grad_norm", "Gradient norm (global, before clipping)", "gradient norm (L2)", true)));
  out += figure(render_line_chart(
      per_run_chart(report, "samples_per_second", "Throughput: samples", "samples/s", true)));
  out += figure(
      render_line_chart(per_run_chart(report, "tokens_per_second", "Throughput: tokens", "tokens/s", true)));
  return out;
}

std::string evaluation_charts(const ReportRuns& report) {
  std::vector<std::string> keys;
  for (const RunFolder& run : report.runs) {
    for (const LogRecord& record : run.records) {
      if (!record.is_evaluation()) continue;
      for (const auto& [key, value] : record.values) {
        if (key.starts_with("eval_") && !is_speed_or_count(key) &&
            std::find(keys.begin(), keys.end(), key) == keys.end()) {
          keys.push_back(key);
        }
      }
    }
  }
  if (keys.empty()) {
    return figure(empty_chart("eval", "Evaluation metrics", "metric", "no data: no evaluation records", ""));
  }
  std::string out;
  for (const std::string& key : keys) {
    const std::string name = key.substr(5);
    LineChart chart;
    chart.id = key;
    chart.title = fmt::format("Evaluation: {}", name);
    chart.y_label = name;
    chart.x_max = report.x_max;
    for (std::size_t r = 0; r < report.runs.size(); ++r) {
      const RunFolder& run = report.runs[r];
      chart.series.push_back({run.name, key, run.name, report.colors[r], false, points_of(run, key, true)});
    }
    out += figure(render_line_chart(chart));
  }
  return out;
}

std::string compute_charts(const ReportRuns& report) {
  LineChart gflops =
      per_run_chart(report, "gflops", "Achieved model GFLOP/s and the machine's GEMM rate", "GFLOP/s", true);
  // One line per distinct GEMM rate: runs on the same machine share theirs.
  for (std::size_t r = 0; r < report.runs.size(); ++r) {
    const std::optional<double> rate = report.facts[r].machine_gemm_gflops;
    if (!rate) continue;
    const auto same =
        std::find_if(gflops.references.begin(), gflops.references.end(),
                     [&](const ReferenceLine& line) { return std::abs(line.y - *rate) <= 0.005 * *rate; });
    if (same != gflops.references.end()) {
      same->color = "#555";
      same->label =
          fmt::format("GEMM rate measured at start: {} GFLOP/s (runs share it)", format_value(same->y));
      continue;
    }
    gflops.references.push_back(
        {*rate,
         fmt::format("{}: GEMM rate measured at start, {} GFLOP/s", report.runs[r].name, format_value(*rate)),
         report.colors[r]});
  }
  std::string out = figure(render_line_chart(gflops));

  LineChart wait;
  wait.id = "worker_wait";
  wait.title = "Waiting for the slowest worker";
  wait.y_label = "share of step time (%)";
  wait.x_max = report.x_max;
  wait.zero_based = true;
  for (std::size_t r = 0; r < report.runs.size(); ++r) {
    const RunFolder& run = report.runs[r];
    for (std::size_t w = 0;; ++w) {
      ChartSeries series{run.name,
                         fmt::format("worker_wait.{}", w),
                         fmt::format("{} worker {}", run.name, w),
                         report.colors[r],
                         w % 2 == 1,
                         {}};
      for (const LogRecord& record : run.records) {
        if (w < record.worker_wait.size()) {
          series.points.push_back({static_cast<double>(record.step), 100 * record.worker_wait[w]});
        }
      }
      if (series.points.empty()) break;
      wait.series.push_back(std::move(series));
    }
  }
  if (!wait.series.empty()) out += figure(render_line_chart(wait));
  out += step_time_charts(report);
  return out;
}

}  // namespace shmtrain::report
