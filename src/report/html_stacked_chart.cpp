// The stacked step-time chart of one worker: each phase a band over the run, each record's
// logging window (previous record's step to its own) as wide as the steps it averages.
#include <algorithm>

#include <fmt/format.h>

#include "html_chart.hpp"
#include "html_chart_frame.hpp"
#include "html_text.hpp"

namespace shmtrain::report {

std::string render_stacked_chart(const StackedChart& chart) {
  const std::size_t records = chart.window_end.size();
  const std::string attributes = fmt::format(R"(data-run="{}" data-worker="{}" data-points="{}")",
                                             escape(chart.run), chart.worker, records);
  if (records == 0) return empty_chart(chart.id, chart.title, chart.y_label, "no data", attributes);

  // tops[i][l]: the top of layer l in record i (the layers below it summed).
  std::vector<std::vector<double>> tops(records, std::vector<double>(chart.layers.size()));
  double highest = 0;
  for (std::size_t i = 0; i < records; ++i) {
    double sum = 0;
    for (std::size_t l = 0; l < chart.layers.size(); ++l) {
      sum += std::max(0.0, chart.layers[l].values[i]);
      tops[i][l] = sum;
    }
    highest = std::max(highest, sum);
  }
  std::vector<LegendEntry> legend;
  for (const StackedLayer& layer : chart.layers)
    legend.push_back({layer.label, layer.color, LegendEntry::Mark::kBand});
  const ChartLayout layout = layout_chart(chart.title, legend);
  const Scale x = nice_scale(0, std::max(chart.x_max, 1.0), layout.plot_left, layout.plot_right, 8, true);
  const Scale y = nice_scale(0, highest > 0 ? highest : 1, layout.plot_bottom, layout.plot_top, 5, false);

  std::string out = open_svg(chart.id, layout, attributes);
  out += layout.header;
  out += axes_svg(layout, x, y, chart.x_label, chart.y_label);
  for (std::size_t l = 0; l < chart.layers.size(); ++l) {
    // Along the layer's top from the first window to the last, back along its bottom.
    std::string path;
    for (std::size_t i = 0; i < records; ++i) {
      const double top = y(tops[i][l]);
      path += fmt::format("{}{} {}H{}", i == 0 ? "M" : "L", px(x(chart.window_start[i])), px(top),
                          px(x(chart.window_end[i])));
    }
    for (std::size_t i = records; i-- > 0;) {
      const double bottom = y(l == 0 ? 0.0 : tops[i][l - 1]);
      path += fmt::format("L{} {}H{}", px(x(chart.window_end[i])), px(bottom), px(x(chart.window_start[i])));
    }
    out += fmt::format(R"(<path d="{}Z" fill="{}" data-series="{}" data-points="{}"/>)", path,
                       chart.layers[l].color, escape(chart.layers[l].key), records);
  }
  for (std::size_t i = 0; i < records && records <= kMaxMarkers; ++i) {
    std::string split;
    for (const StackedLayer& layer : chart.layers) {
      split += fmt::format(", {} {} s", layer.key, format_value(layer.values[i]));
    }
    const double total = chart.layers.empty() ? 0.0 : tops[i].back();
    out += fmt::format(
        R"(<rect class="hover" x="{}" y="{}" width="{}" height="{}" data-run="{}" data-step="{}"><title>{} · worker {} · step {}: {} s per step{}</title></rect>)",
        px(x(chart.window_start[i])), px(y(total)),
        px(std::max(1.0, x(chart.window_end[i]) - x(chart.window_start[i]))), px(y(0) - y(total)),
        escape(chart.run), format_value(chart.window_end[i]), escape(chart.run), chart.worker,
        format_value(chart.window_end[i]), format_value(total), split);
  }
  out += "</svg>";
  return out;
}

}  // namespace shmtrain::report
