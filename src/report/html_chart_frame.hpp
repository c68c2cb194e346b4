#pragma once
// Internal to report: what every chart shares: its title and legend above the plot, the
// scales and their ticks, the axes with their labels, the empty chart.
#include <string>
#include <string_view>
#include <vector>

namespace shmtrain::report {

struct LegendEntry {
  std::string label;
  std::string color;
  enum class Mark { kLine, kDashedLine, kDottedLine, kBand } mark = Mark::kLine;
};

// Where things go in a chart's viewBox (user units; the page scales the SVG to its column).
struct ChartLayout {
  double width = 640;
  double height = 0;
  double plot_left = 0;
  double plot_right = 0;
  double plot_top = 0;
  double plot_bottom = 0;
  std::string header;  // the title and the legend, as SVG
};

// The title on top, the legend's entries flowing in rows below it, then a plot of fixed height.
ChartLayout layout_chart(std::string_view title, const std::vector<LegendEntry>& legend);

// A linear map from data to the plot, its domain widened to ticks 1, 2 or 5 x 10^k apart.
struct Scale {
  double lo = 0;
  double hi = 1;
  double from = 0;  // pixel of lo
  double to = 1;    // pixel of hi
  double spacing = 1;
  std::vector<double> ticks;
  double operator()(double value) const { return from + (value - lo) / (hi - lo) * (to - from); }
};

// About `count` ticks covering [lo, hi]; `integers`: ticks at whole numbers (steps).
Scale nice_scale(double lo, double hi, double from, double to, int count, bool integers);

// `<svg data-chart="ID" ...>` with its viewBox; `attributes` are further attributes, escaped.
std::string open_svg(std::string_view id, const ChartLayout& layout, std::string_view attributes);

// Grid lines, the tick labels, the plot's frame and both axis labels.
std::string axes_svg(const ChartLayout& layout, const Scale& x, const Scale& y, std::string_view x_label,
                     std::string_view y_label);

// A chart with nothing to plot: its frame and `text` ("no data") in the middle.
std::string empty_chart(std::string_view id, std::string_view title, std::string_view y_label,
                        std::string_view text, std::string_view attributes);

// "12.5": a coordinate with one decimal, enough at the page's scale.
std::string px(double value);

}  // namespace shmtrain::report
