// The page's tables: the runs side by side, then each run's own.
#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

#include "html_sections.hpp"
#include "html_text.hpp"

namespace shmtrain::report {
namespace {

std::string table(const std::string& caption, const TextRows& rows, const char* css_class = "facts") {
  if (rows.empty()) return {};
  std::string out =
      fmt::format("<table class=\"{}\"><caption>{}</caption><tbody>", css_class, escape(caption));
  for (const auto& [label, value] : rows) {
    out += fmt::format("<tr><th scope=\"row\">{}</th><td>{}</td></tr>", escape(label), escape(value));
  }
  return out + "</tbody></table>\n";
}

std::string compute_table(const RunFacts& facts) {
  TextRows rows;
  if (facts.machine_gemm_gflops) {
    rows.emplace_back("machine's rate on the model's linears (measured at start)",
                      fmt::format("{} GFLOP/s", format_value(*facts.machine_gemm_gflops)));
  }
  if (facts.achieved_gflops) {
    rows.emplace_back("useful work achieved (median of the logs)",
                      fmt::format("{} GFLOP/s", format_value(*facts.achieved_gflops)));
  }
  if (facts.machine_gemm_gflops && facts.achieved_gflops && *facts.machine_gemm_gflops > 0) {
    rows.emplace_back("useful / machine rate",
                      fmt::format("{:.1f}%", 100 * *facts.achieved_gflops / *facts.machine_gemm_gflops));
  }
  if (!facts.mean_split.empty()) {
    static const char* kNames[] = {"forward",   "backward", "exchange (exposed)",
                                   "optimizer", "data",     "wait for slowest"};
    double total = 0;
    for (const double s : facts.mean_split) total += s;
    rows.emplace_back("step time (mean of workers)", fmt::format("{} s", format_value(total)));
    for (std::size_t i = 0; i < facts.mean_split.size() && i < std::size(kNames); ++i) {
      rows.emplace_back(kNames[i], fmt::format("{} s ({:.0f}%)", format_value(facts.mean_split[i]),
                                               total > 0 ? 100 * facts.mean_split[i] / total : 0.0));
    }
  }
  return table("Compute", rows);
}

std::string placement_table(const RunFacts& facts) {
  if (facts.placement.empty()) return {};
  std::string out = "<table class=\"grid-table\"><caption>Placement</caption><thead><tr>";
  for (const std::string& column : facts.placement_columns) out += fmt::format("<th>{}</th>", escape(column));
  out += "</tr></thead><tbody>";
  for (const std::vector<std::string>& row : facts.placement) {
    out += "<tr>";
    for (const std::string& cell : row) out += fmt::format("<td>{}</td>", escape(cell));
    out += "</tr>";
  }
  return out + "</tbody></table>\n";
}

std::string options_tables(const RunFacts& facts) {
  if (facts.options.empty()) return {};
  std::string out;
  if (!facts.defaults.empty()) {
    std::string rows;
    for (const auto& [key, value] : facts.options) {
      const auto it = facts.defaults.find(key);
      if (it != facts.defaults.end() && it->second == value) continue;
      rows += fmt::format("<tr><th scope=\"row\">{}</th><td>{}</td><td class=\"muted\">{}</td></tr>",
                          escape(key), escape(value), it == facts.defaults.end() ? "" : escape(it->second));
    }
    out +=
        "<table class=\"grid-table options-changed\"><caption>Options that differ from the defaults</caption>"
        "<thead><tr><th>option</th><th>value</th><th>default</th></tr></thead><tbody>";
    out += rows.empty() ? "<tr><td colspan=\"3\">none</td></tr>" : rows;
    out += "</tbody></table>\n";
  }
  out += fmt::format("<div class=\"all-options\"><h4>All {} options{}</h4><dl>", facts.options.size(),
                     facts.defaults.empty() ? " (shmtrain_config.toml)" : "");
  for (const auto& [key, value] : facts.options) {
    out += fmt::format("<div><dt>{}</dt><dd>{}</dd></div>", escape(key), escape(value));
  }
  return out + "</dl></div>\n";
}

// A row per option whose value is not the same in every run (an option a run lacks counts).
std::vector<std::string> differing_options(const ReportRuns& report) {
  std::vector<std::string> keys;
  std::set<std::string> seen;
  for (const RunFacts& facts : report.facts) {
    for (const auto& [key, value] : facts.options) {
      if (seen.insert(key).second) keys.push_back(key);
    }
  }
  std::vector<std::string> differing;
  for (const std::string& key : keys) {
    if (key == "output_dir" || key == "logging_dir" || key == "run_name") continue;  // differ by construction
    std::set<std::string> values;
    for (const RunFacts& facts : report.facts) {
      const auto it = std::find_if(facts.options.begin(), facts.options.end(),
                                   [&](const auto& o) { return o.first == key; });
      values.insert(it == facts.options.end() ? std::string("\x01") : it->second);
    }
    if (values.size() > 1) differing.push_back(key);
  }
  return differing;
}

std::string lookup(const TextRows& rows, const std::string& key) {
  for (const auto& [label, value] : rows) {
    if (label == key) return value;
  }
  return "";
}

}  // namespace

std::string swatch(const std::string& color) {
  return fmt::format(
      R"(<svg class="swatch" viewBox="0 0 24 12" aria-hidden="true"><path d="M1 6h22" stroke="{}" )"
      R"(stroke-width="2.5"/><circle cx="12" cy="6" r="3.5" fill="{}"/></svg>)",
      color, color);
}

std::string comparison_table(const ReportRuns& report) {
  std::string out = "<table class=\"grid-table comparison\"><thead><tr><th></th>";
  for (std::size_t r = 0; r < report.runs.size(); ++r) {
    out += fmt::format("<th scope=\"col\" data-run=\"{}\">{}{}</th>", escape(report.runs[r].name),
                       swatch(report.colors[r]), escape(report.runs[r].name));
  }
  out += "</tr></thead><tbody>";
  const auto row = [&](const std::string& label, auto&& value_of) {
    std::string cells;
    bool any = false;
    for (std::size_t r = 0; r < report.runs.size(); ++r) {
      const std::string value = value_of(r);
      any = any || !value.empty();
      cells += fmt::format("<td>{}</td>", escape(value));
    }
    if (any) out += fmt::format("<tr><th scope=\"row\">{}</th>{}</tr>", escape(label), cells);
  };
  row("status", [&](std::size_t r) { return report.facts[r].status; });
  row("task", [&](std::size_t r) { return report.facts[r].task; });
  row("model", [&](std::size_t r) { return report.facts[r].model; });
  row("precision", [&](std::size_t r) { return lookup(report.facts[r].run, "precision"); });
  row("steps", [&](std::size_t r) { return lookup(report.facts[r].run, "steps"); });
  row("wall time", [&](std::size_t r) {
    const RunFacts& f = report.facts[r];
    return f.wall_seconds ? format_duration(*f.wall_seconds) : std::string();
  });
  row("achieved GFLOP/s", [&](std::size_t r) {
    const RunFacts& f = report.facts[r];
    return f.achieved_gflops ? format_value(*f.achieved_gflops) : std::string();
  });
  row("share of the machine's rate", [&](std::size_t r) {
    const RunFacts& f = report.facts[r];
    if (!f.achieved_gflops || !f.machine_gemm_gflops || *f.machine_gemm_gflops <= 0) return std::string();
    return fmt::format("{:.1f}%", 100 * *f.achieved_gflops / *f.machine_gemm_gflops);
  });
  for (const std::string& key : differing_options(report)) {
    row(key, [&](std::size_t r) { return lookup(report.facts[r].options, key); });
  }
  std::vector<std::string> metrics;
  for (const RunFacts& facts : report.facts) {
    for (const auto& [key, value] : facts.final_metrics) {
      if ((key.starts_with("eval_") || key == "train_loss") &&
          std::find(metrics.begin(), metrics.end(), key) == metrics.end()) {
        metrics.push_back(key);
      }
    }
  }
  for (const std::string& key : metrics) {
    row(key, [&](std::size_t r) { return lookup(report.facts[r].final_metrics, key); });
  }
  return out + "</tbody></table>\n";
}

std::string run_summaries(const ReportRuns& report) {
  std::string out;
  for (std::size_t r = 0; r < report.runs.size(); ++r) {
    const RunFolder& run = report.runs[r];
    const RunFacts& facts = report.facts[r];
    out +=
        fmt::format("<article class=\"run\" data-run=\"{}\"><h3>{}{}</h3><p class=\"path\">{}</p>\n",
                    escape(run.name), swatch(report.colors[r]), escape(run.name), escape(run.path.string()));
    if (!run.notes.empty()) {
      out += "<ul class=\"notes\">";
      for (const std::string& note : run.notes) out += fmt::format("<li>{}</li>", escape(note));
      out += "</ul>\n";
    }
    out += "<div class=\"tables\">";
    out += table("Run", facts.run);
    out += table("Model", facts.model_rows);
    out += table("Task and data", facts.data);
    out += table(run.results.is_object() ? "Final metrics" : "Latest metrics (no results file yet)",
                 facts.final_metrics);
    out += compute_table(facts);
    out += placement_table(facts);
    out += "</div>\n";
    out += options_tables(facts);
    out += "</article>\n";
  }
  return out;
}

}  // namespace shmtrain::report
