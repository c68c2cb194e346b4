#include "html_chart_frame.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "html_text.hpp"

namespace shmtrain::report {
namespace {

constexpr double kWidth = 640;
constexpr double kLeft = 72;  // room for the y tick labels and the y axis label
constexpr double kRight = 20;
constexpr double kPlotHeight = 220;
constexpr double kBelowPlot = 46;  // x tick labels and the x axis label
constexpr double kTitleHeight = 26;
constexpr double kLegendRow = 18;
constexpr double kTextLeft = 16;         // the title and the legend start here
constexpr double kCharWidth = 6.6;       // an 11-unit sans-serif character, on average
constexpr double kTitleCharWidth = 8.2;  // a 13.5-unit bold one

// `text` cut to what `width` holds at `char_width` a character, the cut marked with "…"; cuts
// only between UTF-8 characters.
std::string fit(std::string_view text, double char_width, double width) {
  const auto fits = static_cast<std::size_t>(std::max(4.0, width / char_width));
  std::size_t chars = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if ((static_cast<unsigned char>(text[i]) & 0xC0) == 0x80) continue;
    if (++chars == fits) return std::string(text.substr(0, i)) + "…";
  }
  return std::string(text);
}

std::string legend_mark(const LegendEntry& entry, double x, double y) {
  switch (entry.mark) {
    case LegendEntry::Mark::kBand:
      return fmt::format(R"(<rect x="{}" y="{}" width="16" height="10" fill="{}"/>)", px(x), px(y - 5),
                         entry.color);
    case LegendEntry::Mark::kDashedLine:
      return fmt::format(R"(<path d="M{} {}h18" stroke="{}" stroke-width="2" stroke-dasharray="5 3"/>)"
                         R"(<circle cx="{}" cy="{}" r="3.2" fill="#fff" stroke="{}" stroke-width="1.5"/>)",
                         px(x - 1), px(y), entry.color, px(x + 8), px(y), entry.color);
    case LegendEntry::Mark::kDottedLine:
      return fmt::format(R"(<path d="M{} {}h18" stroke="{}" stroke-width="1.5" stroke-dasharray="2 2"/>)",
                         px(x - 1), px(y), entry.color);
    case LegendEntry::Mark::kLine:
      break;
  }
  return fmt::format(
      R"(<path d="M{} {}h18" stroke="{}" stroke-width="2"/><circle cx="{}" cy="{}" r="3" fill="{}"/>)",
      px(x - 1), px(y), entry.color, px(x + 8), px(y), entry.color);
}

}  // namespace

std::string px(double value) {
  std::string text = fmt::format("{:.1f}", value);
  if (text.ends_with(".0")) text.resize(text.size() - 2);
  return text == "-0" ? "0" : text;
}

ChartLayout layout_chart(std::string_view title, const std::vector<LegendEntry>& legend) {
  ChartLayout layout;
  layout.width = kWidth;
  layout.plot_left = kLeft;
  layout.plot_right = kWidth - kRight;
  layout.header = fmt::format(R"(<text class="title" x="{}" y="18">{}</text>)", px(kTextLeft),
                              escape(fit(title, kTitleCharWidth, kWidth - kTextLeft - kRight)));
  double x = kTextLeft;
  double y = kTitleHeight + 8;
  for (const LegendEntry& entry : legend) {
    const std::string label = fit(entry.label, kCharWidth, layout.plot_right - kTextLeft - 24);
    const double width = 24 + kCharWidth * static_cast<double>(label.size()) + 14;
    if (x > kTextLeft && x + width > layout.plot_right) {
      x = kTextLeft;
      y += kLegendRow;
    }
    layout.header +=
        fmt::format(R"(<g class="legend-entry">{}<text class="legend" x="{}" y="{}">{}</text></g>)",
                    legend_mark(entry, x, y), px(x + 24), px(y + 4), escape(label));
    x += width;
  }
  layout.plot_top = legend.empty() ? kTitleHeight + 8 : y + kLegendRow - 4;
  layout.plot_bottom = layout.plot_top + kPlotHeight;
  layout.height = layout.plot_bottom + kBelowPlot;
  return layout;
}

Scale nice_scale(double lo, double hi, double from, double to, int count, bool integers) {
  if (!(hi > lo)) {  // one value: a range around it, not below 0 when it is not (an F1 of 0)
    const double pad = lo == 0 ? 1 : std::fabs(lo) * 0.1;
    lo = lo >= 0 ? std::max(0.0, lo - pad) : lo - pad;
    hi += pad;
  }
  const double rough = (hi - lo) / std::max(count, 1);
  const double power = std::pow(10.0, std::floor(std::log10(rough)));
  double spacing = power * 10;
  for (const double m : {1.0, 2.0, 5.0}) {
    if (power * m >= rough) {
      spacing = power * m;
      break;
    }
  }
  if (integers) spacing = std::max(1.0, std::round(spacing));
  Scale scale;
  scale.spacing = spacing;
  scale.lo = std::floor(lo / spacing + 1e-9) * spacing;
  scale.hi = std::ceil(hi / spacing - 1e-9) * spacing;
  scale.from = from;
  scale.to = to;
  const long long n = std::llround((scale.hi - scale.lo) / spacing);
  for (long long i = 0; i <= n; ++i) scale.ticks.push_back(scale.lo + static_cast<double>(i) * spacing);
  return scale;
}

std::string open_svg(std::string_view id, const ChartLayout& layout, std::string_view attributes) {
  return fmt::format(R"(<svg class="chart" data-chart="{}"{}{} viewBox="0 0 {} {}" role="img">)", escape(id),
                     attributes.empty() ? "" : " ", attributes, px(layout.width), px(layout.height));
}

std::string axes_svg(const ChartLayout& layout, const Scale& x, const Scale& y, std::string_view x_label,
                     std::string_view y_label) {
  std::string out = R"(<g class="grid">)";
  for (const double tick : y.ticks) {
    out += fmt::format(R"(<path d="M{} {}H{}"/>)", px(layout.plot_left), px(y(tick)), px(layout.plot_right));
  }
  for (const double tick : x.ticks) {
    out += fmt::format(R"(<path d="M{} {}V{}"/>)", px(x(tick)), px(layout.plot_top), px(layout.plot_bottom));
  }
  out += "</g><g class=\"tick\">";
  for (const double tick : y.ticks) {
    out += fmt::format(R"(<text x="{}" y="{}" text-anchor="end">{}</text>)", px(layout.plot_left - 6),
                       px(y(tick) + 4), escape(format_tick(tick, y.spacing)));
  }
  for (const double tick : x.ticks) {
    out += fmt::format(R"(<text x="{}" y="{}" text-anchor="middle">{}</text>)", px(x(tick)),
                       px(layout.plot_bottom + 16), escape(format_tick(tick, x.spacing)));
  }
  out += "</g>";
  out += fmt::format(R"(<rect class="frame" x="{}" y="{}" width="{}" height="{}"/>)", px(layout.plot_left),
                     px(layout.plot_top), px(layout.plot_right - layout.plot_left),
                     px(layout.plot_bottom - layout.plot_top));
  out += fmt::format(R"(<text class="axis-label" x="{}" y="{}" text-anchor="middle">{}</text>)",
                     px((layout.plot_left + layout.plot_right) / 2), px(layout.plot_bottom + 36),
                     escape(x_label));
  const double middle = (layout.plot_top + layout.plot_bottom) / 2;
  out += fmt::format(
      R"svg(<text class="axis-label" transform="translate(16 {}) rotate(-90)" text-anchor="middle">{}</text>)svg",
      px(middle), escape(y_label));
  return out;
}

std::string empty_chart(std::string_view id, std::string_view title, std::string_view y_label,
                        std::string_view text, std::string_view attributes) {
  const ChartLayout layout = layout_chart(title, {});
  std::string out =
      open_svg(id, layout, std::string(attributes) + (attributes.empty() ? "" : " ") + "data-empty=\"true\"");
  out += layout.header;
  out += fmt::format(R"(<rect class="frame" x="{}" y="{}" width="{}" height="{}"/>)", px(layout.plot_left),
                     px(layout.plot_top), px(layout.plot_right - layout.plot_left),
                     px(layout.plot_bottom - layout.plot_top));
  out += fmt::format(R"(<text class="no-data" x="{}" y="{}" text-anchor="middle">{}</text>)",
                     px((layout.plot_left + layout.plot_right) / 2),
                     px((layout.plot_top + layout.plot_bottom) / 2), escape(text));
  const double middle = (layout.plot_top + layout.plot_bottom) / 2;
  out += fmt::format(
      R"svg(<text class="axis-label" transform="translate(16 {}) rotate(-90)" text-anchor="middle">{}</text>)svg",
      px(middle), escape(y_label));
  out += "</svg>";
  return out;
}

}  // namespace shmtrain::report
