#pragma once
// Internal to report: the page's sections, each from every run at once (runs are overlaid in
// one chart, or set side by side in one table). Returns HTML, every run's text escaped.
#include <string>
#include <vector>

#include "html_run_facts.hpp"
#include "shmtrain/report/html_report.hpp"

namespace shmtrain::report {

struct ReportRuns {
  std::vector<RunFolder> runs;
  std::vector<RunFacts> facts;      // one per run
  std::vector<std::string> colors;  // one per run
  double x_max = 1;                 // every chart's step axis spans [0, x_max]
};

// Loss (training and evaluation), learning rate, gradient norm, samples/s, tokens/s.
std::string training_charts(const ReportRuns& report);
// One chart per eval_* metric the records have (not the loss, runtime or sample counts).
std::string evaluation_charts(const ReportRuns& report);
// Achieved GFLOP/s with the machines' GEMM rates, the wait shares, each worker's step split.
std::string compute_charts(const ReportRuns& report);

// The runs side by side: status, task, model, the options in which they differ, final metrics.
std::string comparison_table(const ReportRuns& report);
// Each run's tables: run, model, data, final metrics, compute, placement, options, notes.
std::string run_summaries(const ReportRuns& report);

// A small inline SVG of the run's colour, as the charts draw its line.
std::string swatch(const std::string& color);

}  // namespace shmtrain::report
