// Line charts: a metric per logged step, one series per run (and per kind: a run's training
// loss and its evaluation loss share the loss chart), with optional reference lines.
#include <algorithm>
#include <limits>

#include <fmt/format.h>

#include "html_chart.hpp"
#include "html_chart_frame.hpp"
#include "html_text.hpp"

namespace shmtrain::report {
namespace {

// A point's radius: smaller as a series grows, so that a long run stays a line.
double point_radius(std::size_t points) {
  if (points <= 60) return 3;
  if (points <= 200) return 2.2;
  return 1.4;
}

std::string series_svg(const ChartSeries& series, const Scale& x, const Scale& y) {
  std::string path;
  for (const ChartPoint& p : series.points) {
    path += fmt::format("{}{} {}", path.empty() ? "M" : "L", px(x(p.x)), px(y(p.y)));
  }
  std::string out = fmt::format(
      R"(<g class="series"><path d="{}" fill="none" stroke="{}" stroke-width="{}"{} data-run="{}" data-series="{}" data-points="{}"/>)",
      path, series.color, series.dashed ? "1.6" : "1.8", series.dashed ? R"( stroke-dasharray="6 4")" : "",
      escape(series.run), escape(series.key), series.points.size());
  const double r = point_radius(series.points.size()) + (series.dashed ? 0.6 : 0);
  const std::string fill = series.dashed ? "#fff" : series.color;
  for (const ChartPoint& p : series.points) {
    if (series.points.size() > kMaxMarkers) break;
    out += fmt::format(
        R"(<circle cx="{}" cy="{}" r="{}" fill="{}" stroke="{}" stroke-width="1.4" data-run="{}" data-series="{}" data-step="{}"><title>{} · step {} · {} {}</title></circle>)",
        px(x(p.x)), px(y(p.y)), px(r), fill, series.color, escape(series.run), escape(series.key),
        format_value(p.x), escape(series.run), format_value(p.x), escape(series.key),
        escape(format_value(p.y)));
  }
  out += "</g>";
  return out;
}

}  // namespace

std::string render_line_chart(const LineChart& chart) {
  double lo = std::numeric_limits<double>::infinity();
  double hi = -lo;
  std::size_t points = 0;
  for (const ChartSeries& series : chart.series) {
    for (const ChartPoint& p : series.points) {
      lo = std::min(lo, p.y);
      hi = std::max(hi, p.y);
    }
    points += series.points.size();
  }
  if (points == 0) return empty_chart(chart.id, chart.title, chart.y_label, chart.empty_text, "");
  for (const ReferenceLine& line : chart.references) {
    lo = std::min(lo, line.y);
    hi = std::max(hi, line.y);
  }
  if (chart.zero_based) lo = std::min(lo, 0.0);

  std::vector<LegendEntry> legend;
  for (const ChartSeries& series : chart.series) {
    if (series.points.empty()) continue;
    legend.push_back({series.label, series.color,
                      series.dashed ? LegendEntry::Mark::kDashedLine : LegendEntry::Mark::kLine});
  }
  for (const ReferenceLine& line : chart.references) {
    legend.push_back({line.label, line.color, LegendEntry::Mark::kDottedLine});
  }
  const ChartLayout layout = layout_chart(chart.title, legend);
  const Scale x = nice_scale(0, std::max(chart.x_max, 1.0), layout.plot_left, layout.plot_right, 8, true);
  const Scale y = nice_scale(lo, hi, layout.plot_bottom, layout.plot_top, 5, false);

  std::string out = open_svg(chart.id, layout, "");
  out += layout.header;
  out += axes_svg(layout, x, y, chart.x_label, chart.y_label);
  for (const ReferenceLine& line : chart.references) {
    out += fmt::format(
        R"(<path class="reference" d="M{} {}H{}" stroke="{}" stroke-width="1.5" stroke-dasharray="2 2"><title>{}</title></path>)",
        px(layout.plot_left), px(y(line.y)), px(layout.plot_right), line.color, escape(line.label));
  }
  for (const ChartSeries& series : chart.series) {
    if (!series.points.empty()) out += series_svg(series, x, y);
  }
  out += "</svg>";
  return out;
}

}  // namespace shmtrain::report
