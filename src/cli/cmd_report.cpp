// `shmtrain report RUN_DIR [RUN_DIR...] [-o report.html]`: one self-contained HTML page that
// overlays the runs' curves and sets their summaries side by side (report/html_report.hpp).
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "shmtrain/cli/commands.hpp"
#include "shmtrain/report/html_report.hpp"

namespace shmtrain::cli {

Command add_report_command(CLI::App& app) {
  auto folders = std::make_shared<std::vector<std::string>>();
  auto output = std::make_shared<std::string>("report.html");
  CLI::App* sub = app.add_subcommand(
      "report",
      "Write one self-contained HTML page comparing training runs: charts of loss, evaluation metrics, "
      "learning rate, throughput and step time, and each run's settings and results");
  sub->add_option("run_dirs", *folders,
                  "Output folders of training runs (--output_dir), overlaid in this order; a run still in "
                  "progress is fine")
      ->required();
  sub->add_option("-o,--output", *output, "The HTML file to write (opens offline; nothing else is needed)")
      ->capture_default_str();
  return {sub, [folders, output] {
            std::vector<std::filesystem::path> paths(folders->begin(), folders->end());
            report::write_html_report(paths, *output);
            fmt::print("report of {} run(s) written to {}\n", paths.size(), *output);
            return 0;
          }};
}

}  // namespace shmtrain::cli
