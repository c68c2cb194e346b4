#pragma once
// Internal to report: the page's charts as inline SVG, drawn here so that the page needs no
// script and prints as it shows. Every chart is an <svg data-chart="ID"> whose data can be
// counted from its markup: each series is a <path data-series="KEY" data-points="N"> with a
// vertex per point and, up to kMaxMarkers points, one <circle data-run="RUN" data-series="KEY"
// data-step="STEP"> per point (its <title> is the value a pointer hovering over it shows); a
// chart without data says "no data" and carries data-empty="true".
#include <cstddef>
#include <string>
#include <vector>

namespace shmtrain::report {

// Beyond this many points a series is its line alone: a run logged every step for 100k steps
// would otherwise make a page of hundreds of megabytes.
inline constexpr std::size_t kMaxMarkers = 2000;

struct ChartPoint {
  double x = 0;
  double y = 0;
};

struct ChartSeries {
  std::string run;    // data-run: the run's name
  std::string key;    // data-series: the metrics.jsonl key it plots
  std::string label;  // the legend's text
  std::string color;
  bool dashed = false;  // an evaluation series: dashed line, hollow points
  std::vector<ChartPoint> points;
};

// A horizontal line across the plot: a limit to compare with (the machine's GEMM rate).
struct ReferenceLine {
  double y = 0;
  std::string label;
  std::string color;
};

struct LineChart {
  std::string id;  // data-chart
  std::string title;
  std::string y_label;  // with its unit
  std::string x_label = "step";
  double x_max = 1;         // the x axis spans [0, x_max], the same on every chart of a page
  bool zero_based = false;  // the y axis starts at 0 (rates and times; not losses or scores)
  std::string empty_text = "no data";
  std::vector<ChartSeries> series;
  std::vector<ReferenceLine> references;
};

std::string render_line_chart(const LineChart& chart);

// One phase of a step (forward, backward, ...): its seconds per step in each record's window.
struct StackedLayer {
  std::string key;
  std::string label;
  std::string color;
  std::vector<double> values;  // one per record
};

// Where one worker's steps went over a run: the phases stacked, each record's logging window
// (from the previous record's step to its own) a band as tall as its seconds per step.
// Carries data-run, data-worker and data-points (the records); up to kMaxMarkers records, each
// is one <rect data-step="STEP"> whose <title> lists the split.
struct StackedChart {
  std::string id;
  std::string title;
  std::string y_label;
  std::string x_label = "step";
  std::string run;
  int worker = 0;
  double x_max = 1;
  std::vector<double> window_start;  // per record
  std::vector<double> window_end;    // per record: its step
  std::vector<StackedLayer> layers;  // bottom first
};

std::string render_stacked_chart(const StackedChart& chart);

}  // namespace shmtrain::report
