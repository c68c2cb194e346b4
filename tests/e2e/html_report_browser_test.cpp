// `shmtrain report` on what the trainer really writes: two short runs of the built-in demo at two
// learning rates, overlaid. The reader is checked against the files, and the page from a
// browser's side: headless Chromium loads it with no console message (a script error, a
// blocked fetch), each chart of the DOM it builds has one point per record of its kind in
// metrics.jsonl, the legend names both runs, and a screenshot lands in the build folder.
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/html_markup.hpp"
#include "shmtrain/report/html_report.hpp"
#include "support/test_support.hpp"

namespace {

namespace fs = std::filesystem;
using shmtrain::testing::CliRun;
using shmtrain::testing::elements;
using shmtrain::testing::point_counts;
using shmtrain::testing::read_file;
using shmtrain::testing::run_command;
using shmtrain::testing::run_shmtrain;
using shmtrain::testing::TempDir;

const std::vector<std::string> kRuns = {"lr-5e-4", "lr-1e-3"};

class ReportOfRealRuns : public ::testing::Test {
 protected:
  // A run is made the first time a test asks for it (a few seconds on 2 cores) and kept for
  // the suite's other tests.
  static fs::path run_dir(const std::string& name) {
    if (dir_ == nullptr) dir_ = new TempDir();
    const fs::path folder = dir_->path() / name;
    if (!fs::exists(folder / "all_results.json")) {
      const CliRun run =
          run_shmtrain(fmt::format("train --config configs/demo.toml --max_steps 20 --logging_steps 2 "
                                   "--eval_steps 10 --learning_rate {} --output_dir {}",
                                   name.substr(3), folder.string()),
                       shmtrain::testing::source_dir());
      EXPECT_EQ(run.exit_code, 0) << run.output();
    }
    return folder;
  }
  static void TearDownTestSuite() {
    delete dir_;
    dir_ = nullptr;
  }

  static TempDir* dir_;
};

TempDir* ReportOfRealRuns::dir_ = nullptr;

// Keys the evaluation charts leave out: speed and sizes, not quality (eval_loss is on the loss chart).
bool is_charted_metric(const std::string& key) {
  std::string base = key;
  if (base.ends_with("_mm")) base.resize(base.size() - 3);
  return key.starts_with("eval_") && base != "eval_loss" && base != "eval_runtime" &&
         base != "eval_samples" && base != "eval_samples_per_second" && base != "eval_steps_per_second";
}

// What each chart must draw, counted from metrics.jsonl itself.
std::map<std::string, int> expected_points(const fs::path& folder, const std::string& run) {
  std::map<std::string, int> expected;
  std::ifstream in(folder / "metrics.jsonl");
  for (std::string line; std::getline(in, line);) {
    const nlohmann::json record = nlohmann::json::parse(line);
    if (record.contains("loss")) {
      for (const char* key :
           {"loss", "learning_rate", "grad_norm", "samples_per_second", "tokens_per_second", "gflops"}) {
        if (record.contains(key)) ++expected[fmt::format("{}|{}|{}", key, run, key)];
      }
      if (record.contains("workers")) {
        for (std::size_t w = 0; w < record["workers"].size(); ++w)
          ++expected[fmt::format("step_time|{}|worker {}", run, w)];
      }
      if (record.contains("worker_wait")) {
        for (std::size_t w = 0; w < record["worker_wait"].size(); ++w) {
          ++expected[fmt::format("worker_wait|{}|worker_wait.{}", run, w)];
        }
      }
    }
    for (const auto& [key, value] : record.items()) {
      if (key == "eval_loss") ++expected[fmt::format("loss|{}|eval_loss", run)];
      if (is_charted_metric(key) && value.is_number()) ++expected[fmt::format("{}|{}|{}", key, run, key)];
    }
  }
  return expected;
}

TEST_F(ReportOfRealRuns, ReaderTakesWhatTheTrainerWrites) {
  const shmtrain::report::RunFolder run = shmtrain::report::read_run_folder(run_dir("lr-5e-4"));
  EXPECT_EQ(run.name, "lr-5e-4");
  EXPECT_EQ(run.records_source, "metrics.jsonl");
  EXPECT_TRUE(run.notes.empty()) << run.notes.front();
  std::size_t training = 0;
  std::size_t evaluations = 0;
  for (const auto& record : run.records) {
    training += record.is_training();
    evaluations += record.is_evaluation();
  }
  EXPECT_EQ(training, 10u);    // steps 2, 4, ..., 20
  EXPECT_EQ(evaluations, 2u);  // steps 10, 20
  EXPECT_TRUE(run.results.is_object());
  EXPECT_FALSE(run.config_options.empty());
  if (run.run_info.is_object()) {  // written by this shmtrain's trainer
    EXPECT_EQ(run.run_info.value("finished", false), true);
    EXPECT_EQ(run.run_info.value("task", ""), "mrpc");
  }
}

TEST(ReportCommand, RefusesAFolderThatIsNotThere) {
  const TempDir out;
  fs::create_directories(out.path() / "empty-run");
  const CliRun run =
      run_shmtrain(fmt::format("report {} {} -o {}", (out.path() / "empty-run").string(),
                               (out.path() / "missing").string(), (out.path() / "r.html").string()));
  EXPECT_EQ(run.exit_code, 1) << run.output();
  EXPECT_NE(run.err.find((out.path() / "missing").string() + ": no such run folder"), std::string::npos)
      << run.err;
  EXPECT_FALSE(fs::exists(out.path() / "r.html"));
}

// `chromium` or a namesake on PATH, or "".
std::string find_chromium() {
  for (const char* name : {"chromium", "chromium-browser", "google-chrome"}) {
    const CliRun which = run_command(fmt::format("command -v {}", name));
    if (which.exit_code == 0 && !which.out.empty()) return which.out.substr(0, which.out.find('\n'));
  }
  return "";
}

std::string chromium_command(const std::string& chromium, const fs::path& profile, const std::string& action,
                             const std::string& url) {
  // --no-sandbox: tests may run as root, where Chromium's sandbox refuses to start.
  return fmt::format(
      "timeout 60 '{}' --headless=new --no-sandbox --disable-gpu --no-first-run "
      "--no-default-browser-check --user-data-dir='{}' --enable-logging=stderr --v=0 {} '{}'",
      chromium, profile.string(), action, url);
}

std::string tail(const std::string& text, std::size_t n = 1500) {
  return text.size() <= n ? text : text.substr(text.size() - n);
}

TEST_F(ReportOfRealRuns, PageLoadsInChromiumWithEveryPoint) {
  const TempDir out;
  const fs::path page = out.path() / "report.html";
  const CliRun report = run_shmtrain(fmt::format("report {} {} -o {}", run_dir(kRuns[0]).string(),
                                                 run_dir(kRuns[1]).string(), page.string()));
  ASSERT_EQ(report.exit_code, 0) << report.output();
  ASSERT_TRUE(fs::exists(page));

  const std::string chromium = find_chromium();
  if (chromium.empty())
    GTEST_SKIP() << "Chromium is not installed (Debian: apt-get install chromium; tools/test.sh does)";
  const std::string url = "file://" + page.string();
  const CliRun dom = run_command(chromium_command(chromium, out.path() / "profile", "--dump-dom", url));
  if (dom.exit_code != 0 || dom.out.find("<html") == std::string::npos) {
    const CliRun blank =
        run_command(chromium_command(chromium, out.path() / "probe", "--dump-dom", "about:blank"));
    if (blank.exit_code != 0 || blank.out.find("<html") == std::string::npos) {
      GTEST_SKIP() << "Chromium cannot start here: " << tail(blank.err);
    }
    FAIL() << "Chromium starts but did not load the report (exit " << dom.exit_code << "): " << tail(dom.err);
  }

  // Console messages (script errors, a blocked fetch of anything outside the page) come as
  // "...:INFO:CONSOLE(LINE)] ..." or "...:CONSOLE:LINE] ..." lines.
  std::string console;
  for (std::size_t at = dom.err.find("CONSOLE"); at != std::string::npos;
       at = dom.err.find("CONSOLE", at + 1)) {
    const std::size_t begin = dom.err.rfind('\n', at);
    console += dom.err.substr(begin == std::string::npos ? 0 : begin + 1,
                              dom.err.find('\n', at) - (begin == std::string::npos ? 0 : begin + 1)) +
               "\n";
  }
  EXPECT_EQ(console, "") << "the page logged to the console";

  std::map<std::string, int> expected;
  for (const std::string& run : kRuns) expected.merge(expected_points(run_dir(run), run));
  ASSERT_GT(expected.size(), 6u);
  EXPECT_EQ(point_counts(dom.out), expected);

  const std::size_t legend = dom.out.find("data-legend=\"runs\"");
  ASSERT_NE(legend, std::string::npos);
  const auto entries = elements(dom.out.substr(legend, dom.out.find("</ul>", legend) - legend), "li");
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries[0].at("data-run"), kRuns[0]);
  EXPECT_EQ(entries[1].at("data-run"), kRuns[1]);

  const fs::path screenshot = shmtrain::testing::shmtrain_binary().parent_path() / "report_screenshot.png";
  fs::remove(screenshot);
  const CliRun shot = run_command(chromium_command(
      chromium, out.path() / "profile",
      fmt::format("--hide-scrollbars --window-size=1280,2400 --screenshot='{}'", screenshot.string()), url));
  ASSERT_EQ(shot.exit_code, 0) << tail(shot.err);
  ASSERT_TRUE(fs::exists(screenshot)) << tail(shot.err);
  EXPECT_EQ(read_file(screenshot).substr(0, 8), "\x89PNG\r\n\x1a\n");
}

}  // namespace
