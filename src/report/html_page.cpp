// The report page: its style (screen and print), the runs' legend, the sections in order.
#include <algorithm>
#include <array>
#include <ctime>
#include <map>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "html_sections.hpp"
#include "html_text.hpp"
#include "shmtrain/io/atomic_file.hpp"
#include "shmtrain/report/html_report.hpp"

namespace shmtrain::report {
namespace {

// Okabe and Ito's colours, told apart with the common colour-vision deficiencies too
// (https://jfly.uni-koeln.de/color/); yellow is left out, too faint on white.
constexpr std::array<const char*, 7> kRunColors = {"#0072b2", "#d55e00", "#009e73", "#cc79a7",
                                                   "#e69f00", "#56b4e9", "#000000"};

constexpr const char* kStyle = R"css(
:root { color-scheme: light; }
body { font: 14px/1.45 system-ui, "DejaVu Sans", "Helvetica Neue", Arial, sans-serif; color: #222; background: #fff;
       margin: 0 auto; max-width: 1500px; padding: 12px 24px 40px; }
h1 { font-size: 22px; margin: 8px 0 2px; }
h2 { font-size: 18px; margin: 28px 0 10px; padding-bottom: 3px; border-bottom: 1px solid #ccc; }
h3 { font-size: 16px; margin: 18px 0 2px; display: flex; align-items: center; }
h4 { font-size: 13px; margin: 8px 0 4px; }
.meta, .path, .hint { color: #555; margin: 2px 0; font-size: 13px; }
.path { font-family: "DejaVu Sans Mono", monospace; font-size: 12px; word-break: break-all; }
ul.legend { list-style: none; display: flex; flex-wrap: wrap; gap: 6px 28px; padding: 0; margin: 10px 0 4px; }
ul.legend li { display: flex; align-items: center; font-weight: 600; font-size: 15px; }
svg.swatch { width: 26px; height: 13px; margin-right: 7px; flex: none; }
.charts { display: grid; grid-template-columns: repeat(auto-fill, minmax(460px, 1fr)); gap: 14px 22px; }
figure.chart-box { margin: 0; break-inside: avoid; page-break-inside: avoid; }
svg.chart { width: 100%; height: auto; display: block; font-family: system-ui, "DejaVu Sans", Arial, sans-serif; }
svg.chart text { font-size: 11px; fill: #222; }
svg.chart .title { font-size: 13.5px; font-weight: 600; }
svg.chart .axis-label { font-size: 12px; fill: #333; }
svg.chart .tick text { fill: #555; }
svg.chart .grid path { stroke: #e4e4e4; stroke-width: 1; }
svg.chart .frame { fill: none; stroke: #999; stroke-width: 1; }
svg.chart .no-data { font-size: 14px; fill: #777; }
svg.chart rect.hover { fill: transparent; }
svg.chart rect.hover:hover { fill: rgba(0, 0, 0, 0.10); }
svg.chart circle:hover { stroke-width: 3.5; }
table { border-collapse: collapse; font-size: 13px; margin: 0 0 12px; }
caption { text-align: left; font-weight: 600; padding: 4px 0; }
th, td { text-align: left; padding: 2px 12px 2px 0; vertical-align: top; border-bottom: 1px solid #eee; }
tbody th { font-weight: normal; color: #555; }
table.comparison th[scope="col"] { white-space: nowrap; }
table.comparison th[scope="col"] svg.swatch { vertical-align: middle; }
.muted { color: #777; }
.tables { display: flex; flex-wrap: wrap; gap: 0 36px; align-items: flex-start; }
.all-options dl { columns: 4 250px; column-gap: 28px; font-size: 12px; margin: 0; }
.all-options dl div { display: flex; gap: 8px; break-inside: avoid; border-bottom: 1px solid #f0f0f0; }
.all-options dt { color: #555; }
.all-options dd { margin: 0 0 0 auto; font-family: "DejaVu Sans Mono", monospace; word-break: break-all; }
ul.notes { color: #8a4500; font-size: 13px; margin: 4px 0; }
@media print {
  body { max-width: none; padding: 0; font-size: 11px; }
  .charts { grid-template-columns: 1fr; gap: 3mm; }
  svg.chart { height: 80mm; }  /* three to an A4 page; the drawing keeps its proportions, centred */
  h2 { break-after: avoid; page-break-after: avoid; }
  #runs, article.run + article.run { break-before: page; }
  svg.chart rect.hover { display: none; }
}
@page { size: A4; margin: 12mm; }
)css";

// Folder names that two runs share get their parent folder's name too ("a/run", "b/run"),
// then a count if that is not enough.
void make_names_unique(std::vector<RunFolder>& runs) {
  std::map<std::string, int> seen;
  for (const RunFolder& run : runs) ++seen[run.name];
  for (RunFolder& run : runs) {
    if (seen[run.name] < 2) continue;
    const std::filesystem::path parent = run.path.lexically_normal().parent_path().filename();
    if (!parent.empty() && parent != "." && parent != "..") run.name = parent.string() + "/" + run.name;
  }
  std::map<std::string, int> count;
  for (RunFolder& run : runs) {
    const int n = ++count[run.name];
    if (n > 1) run.name += fmt::format(" ({})", n);
  }
}

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%d %H:%M UTC", &utc);
  return text;
}

}  // namespace

std::string render_html_report(std::vector<RunFolder> runs) {
  make_names_unique(runs);
  ReportRuns report;
  for (std::size_t r = 0; r < runs.size(); ++r) {
    report.colors.push_back(kRunColors[r % kRunColors.size()]);
    report.facts.push_back(run_facts(runs[r]));
    const RunFacts& facts = report.facts.back();
    report.x_max = std::max(
        {report.x_max, static_cast<double>(facts.last_step), static_cast<double>(facts.total_steps)});
  }
  report.runs = std::move(runs);

  std::vector<std::string> names;
  for (const RunFolder& run : report.runs) names.push_back(run.name);
  std::string out = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  // Nothing is fetched, ever: the page is complete as it is (and a browser says so if not).
  out +=
      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src "
      "'unsafe-inline'\">\n";
  out += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  out +=
      fmt::format("<title>shmtrain report: {}</title>\n", escape(fmt::format("{}", fmt::join(names, ", "))));
  out += fmt::format("<style>{}</style>\n</head>\n<body>\n", kStyle);
  out += "<header>\n<h1>shmtrain report</h1>\n";
  out += fmt::format("<p class=\"meta\">{} run{}, written {}. Hover a point for its value.</p>\n",
                     report.runs.size(), report.runs.size() == 1 ? "" : "s", utc_now());
  out += "<ul class=\"legend\" data-legend=\"runs\">";
  for (std::size_t r = 0; r < report.runs.size(); ++r) {
    out += fmt::format("<li data-run=\"{}\">{}{}</li>", escape(report.runs[r].name), swatch(report.colors[r]),
                       escape(report.runs[r].name));
  }
  out += "</ul>\n</header>\n";
  if (report.runs.size() > 1) {
    out += "<section id=\"comparison\">\n<h2>The runs side by side</h2>\n" + comparison_table(report) +
           "</section>\n";
  }
  out +=
      "<section id=\"training\">\n<h2>Training</h2>\n<p class=\"hint\">Each point is one logged record: the "
      "mean "
      "over its logging window, placed at the window's last optimizer step.</p>\n<div class=\"charts\">\n";
  out += training_charts(report);
  out += "</div>\n</section>\n<section id=\"evaluation\">\n<h2>Evaluation</h2>\n<div class=\"charts\">\n";
  out += evaluation_charts(report);
  out += "</div>\n</section>\n<section id=\"compute\">\n<h2>Compute</h2>\n<div class=\"charts\">\n";
  out += compute_charts(report);
  out += "</div>\n</section>\n<section id=\"runs\">\n<h2>Each run</h2>\n";
  out += run_summaries(report);
  out += "</section>\n</body>\n</html>\n";
  return out;
}

void write_html_report(const std::vector<std::filesystem::path>& folders, const std::filesystem::path& out) {
  std::vector<RunFolder> runs;
  for (const std::filesystem::path& folder : folders) runs.push_back(read_run_folder(folder));
  io::write_file_atomically(out, render_html_report(std::move(runs)));
}

}  // namespace shmtrain::report
