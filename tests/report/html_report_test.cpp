// The HTML report from hand-made run folders (the files a run writes, with every field the
// trainer logs): each chart draws one point per record of its kind, the tables say what the run
// was, every run text is escaped; and the folders a run in progress, an empty run, a run with
// evaluation only or Hugging Face's Trainer leave all render.
#include <filesystem>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/html_markup.hpp"
#include "shmtrain/common/error.hpp"
#include "shmtrain/report/html_report.hpp"
#include "support/test_support.hpp"

namespace {

namespace fs = std::filesystem;
using nlohmann::ordered_json;
using shmtrain::report::read_run_folder;
using shmtrain::report::render_html_report;
using shmtrain::report::RunFolder;
using shmtrain::testing::charts_in;
using shmtrain::testing::elements;
using shmtrain::testing::error_of;
using shmtrain::testing::point_counts;
using shmtrain::testing::TempDir;
using shmtrain::testing::write_file;

constexpr int kWorkers = 2;

ordered_json training_record(int step, double lr) {
  ordered_json workers = ordered_json::array();
  for (int w = 0; w < kWorkers; ++w) {
    workers.push_back({{"forward", 0.040 + 0.001 * w},
                       {"backward", 0.080},
                       {"exchange", 0.004},
                       {"optimizer", 0.002},
                       {"data", 0.001},
                       {"wait", 0.003 * (1 - w)}});
  }
  return {{"step", step},
          {"epoch", step / 100.0},
          {"loss", 0.7 - 0.001 * step},
          {"learning_rate", lr * (1 - step / 100.0)},
          {"grad_norm", 1.0 + 0.01 * step},
          {"samples_per_second", 250.0 + step},
          {"tokens_per_second", 16000.0 + step},
          {"gflops", 80.0 + 0.1 * step},
          {"workers", workers},
          {"worker_wait", {0.02, 0.0}}};
}

ordered_json evaluation_record(int step) {
  return {{"step", step},
          {"epoch", step / 100.0},
          {"eval_loss", 0.6 - 0.001 * step},
          {"eval_accuracy", 0.6},
          {"eval_f1", 0.55},
          {"eval_runtime", 1.5},
          {"eval_samples", 500},
          {"eval_samples_per_second", 333.3}};
}

ordered_json run_info(double lr, bool finished) {
  return {{"shmtrain_version", "0.1.0"},
          {"build", "GNU 12.2.0 Release, Nov 25 2026"},
          {"started", "2026-11-25T10:00:00Z"},
          {"finished", finished},
          {"wall_seconds", finished ? 125.5 : 0.0},
          {"model",
           {{"architecture", "BertForSequenceClassification"},
            {"model_type", "bert"},
            {"layers", 2},
            {"hidden", 128},
            {"heads", 4},
            {"parameters", 452600},
            {"weights", "random weights"}}},
          {"task", "mrpc"},
          {"data", {{"train_rows", 8000}, {"validation_rows", 500}}},
          {"precision", "fp32"},
          {"total_steps", 40},
          {"global_batch", 64},
          {"workers",
           {{{"rank", 0}, {"package", 0}, {"numa", 0}, {"cores", 8}, {"threads", 8}, {"cpus", "0-7"}},
            {{"rank", 1}, {"package", 1}, {"numa", 1}, {"cores", 8}, {"threads", 8}, {"cpus", "8-15"}}}},
          {"machine_gemm_gflops", 410.5},
          {"options",
           {{"task_name", "mrpc"},
            {"learning_rate", lr},
            {"num_train_epochs", 3.0},
            {"run_name", "<b>lr & \"x\"</b>"}}},
          {"defaults",
           {{"task_name", ""}, {"learning_rate", 5e-05}, {"num_train_epochs", 3.0}, {"run_name", ""}}}};
}

// 8 training logs (every 5 steps) and 2 evaluations (steps 20 and 40), all finished.
void write_finished_run(const fs::path& dir, double lr) {
  std::string lines;
  for (int step = 5; step <= 40; step += 5) {
    lines += training_record(step, lr).dump() + "\n";
    if (step % 20 == 0) lines += evaluation_record(step).dump() + "\n";
  }
  write_file(dir / "metrics.jsonl", lines);
  write_file(dir / "run_info.json", run_info(lr, true).dump(2));
  write_file(
      dir / "all_results.json",
      ordered_json{{"epoch", 0.4}, {"eval_accuracy", 0.6}, {"eval_f1", 0.55}, {"train_loss", 0.68}}.dump(4));
}

std::string render(const std::vector<fs::path>& folders) {
  std::vector<RunFolder> runs;
  for (const fs::path& folder : folders) runs.push_back(read_run_folder(folder));
  return render_html_report(std::move(runs));
}

std::vector<std::string> chart_ids(const std::string& html) {
  std::vector<std::string> ids;
  for (const auto& chart : charts_in(html)) ids.push_back(chart.attributes.at("data-chart"));
  return ids;
}

int count_of(const std::vector<std::string>& ids, const std::string& id) {
  return static_cast<int>(std::count(ids.begin(), ids.end(), id));
}

TEST(HtmlReport, TwoFinishedRunsDrawEveryRecordOnEveryChart) {
  const TempDir dir;
  write_finished_run(dir / "lr-1e-4", 1e-4);
  write_finished_run(dir / "lr-3e-4", 3e-4);
  const std::string html = render({dir / "lr-1e-4", dir / "lr-3e-4"});

  const std::vector<std::string> ids = chart_ids(html);
  for (const char* id : {"loss", "learning_rate", "grad_norm", "samples_per_second", "tokens_per_second",
                         "eval_accuracy", "eval_f1", "gflops", "worker_wait"}) {
    EXPECT_EQ(count_of(ids, id), 1) << id;
  }
  EXPECT_EQ(count_of(ids, "step_time"), 2 * kWorkers);  // one per run and worker
  EXPECT_EQ(count_of(ids, "eval_runtime"), 0) << "a speed, not a metric";
  EXPECT_EQ(html.find("data-empty"), std::string::npos);

  std::map<std::string, int> expected;
  for (const std::string run : {"lr-1e-4", "lr-3e-4"}) {
    for (const char* key :
         {"loss", "learning_rate", "grad_norm", "samples_per_second", "tokens_per_second", "gflops"}) {
      expected[fmt::format("{}|{}|{}", key, run, key)] = 8;
    }
    expected[fmt::format("loss|{}|eval_loss", run)] = 2;
    expected[fmt::format("eval_accuracy|{}|eval_accuracy", run)] = 2;
    expected[fmt::format("eval_f1|{}|eval_f1", run)] = 2;
    for (int w = 0; w < kWorkers; ++w) {
      expected[fmt::format("worker_wait|{}|worker_wait.{}", run, w)] = 8;
      expected[fmt::format("step_time|{}|worker {}", run, w)] = 8;
    }
  }
  EXPECT_EQ(point_counts(html), expected);

  // The legend names both runs in order; each run's summary says what it was.
  const auto legend = elements(html.substr(html.find("data-legend=\"runs\"")), "li");
  ASSERT_GE(legend.size(), 2u);
  EXPECT_EQ(legend[0].at("data-run"), "lr-1e-4");
  EXPECT_EQ(legend[1].at("data-run"), "lr-3e-4");
  for (const char* text :
       {"0.1.0", "GNU 12.2.0 Release, Nov 25 2026", "BertForSequenceClassification", "452.6k", "8000", "8-15",
        "410.5 GFLOP/s", "2:06", "Options that differ from the defaults", "GEMM rate measured at start",
        "useful / machine rate"}) {
    EXPECT_NE(html.find(text), std::string::npos) << text;
  }
  // The options that differ come first (learning_rate, task_name), then all of them.
  const std::size_t changed = html.find("Options that differ from the defaults");
  const std::size_t all = html.find("All 4 options");
  ASSERT_NE(all, std::string::npos);
  const std::string changed_table = html.substr(changed, all - changed);
  EXPECT_NE(changed_table.find("learning_rate"), std::string::npos);
  EXPECT_EQ(changed_table.find("num_train_epochs"), std::string::npos) << "3.0 is the default";
  // The runs side by side: learning_rate is the option in which they differ.
  const std::size_t comparison = html.find("id=\"comparison\"");
  ASSERT_NE(comparison, std::string::npos);
  EXPECT_NE(html.find("learning_rate", comparison), std::string::npos);
}

TEST(HtmlReport, EscapesEveryRunText) {
  const TempDir dir;
  const fs::path odd = dir / "a<b>&\"c'";
  write_finished_run(odd, 1e-4);
  const std::string html = render({odd});
  EXPECT_EQ(html.find("<b>"), std::string::npos);
  EXPECT_EQ(html.find("a<b>"), std::string::npos);
  EXPECT_NE(html.find("a&lt;b&gt;&amp;&quot;c&#39;"), std::string::npos);
  EXPECT_NE(html.find("&lt;b&gt;lr &amp; &quot;x&quot;&lt;/b&gt;"), std::string::npos);
  EXPECT_EQ(html.find("<script"), std::string::npos) << "the page runs no script";
  EXPECT_NE(html.find("default-src 'none'"), std::string::npos) << "and fetches nothing";
}

TEST(HtmlReport, TornLastLineIsSkippedAsARunStillWriting) {
  const TempDir dir;
  write_finished_run(dir / "run", 1e-4);
  write_file(dir / "run" / "run_info.json", run_info(1e-4, false).dump());
  fs::remove(dir / "run" / "all_results.json");
  std::string lines = shmtrain::testing::read_file(dir / "run" / "metrics.jsonl");
  lines += R"({"step":45,"epoch":0.45,"loss":0.6)";  // cut while being written
  write_file(dir / "run" / "metrics.jsonl", lines);

  const RunFolder run = read_run_folder(dir / "run");
  EXPECT_EQ(run.records.size(), 10u);
  ASSERT_EQ(run.notes.size(), 1u);
  EXPECT_NE(run.notes[0].find("metrics.jsonl:11:"), std::string::npos) << run.notes[0];
  const std::string html = render_html_report({run});
  EXPECT_EQ(point_counts(html).at("loss|run|loss"), 8);
  EXPECT_NE(html.find("in progress"), std::string::npos);
  EXPECT_NE(html.find("Latest metrics"), std::string::npos);
}

TEST(HtmlReport, BadLineInTheMiddleIsAnInputErrorNamingFileAndLine) {
  const TempDir dir;
  write_file(dir / "run" / "metrics.jsonl", training_record(5, 1e-4).dump() + "\n{\"step\": 10, oops}\n" +
                                                training_record(15, 1e-4).dump() + "\n");
  const std::string error = error_of([&] { read_run_folder(dir / "run"); });
  EXPECT_NE(error.find((dir / "run" / "metrics.jsonl").string() + ":2:"), std::string::npos) << error;
  write_file(dir / "run2" / "metrics.jsonl", "[1, 2]\n" + training_record(15, 1e-4).dump() + "\n");
  EXPECT_NE(error_of([&] { read_run_folder(dir / "run2"); }).find("metrics.jsonl:1: not a JSON object"),
            std::string::npos);
}

TEST(HtmlReport, MissingFolderIsAnInputErrorNamingIt) {
  const TempDir dir;
  const std::string error = error_of([&] { read_run_folder(dir / "no-such-run"); });
  EXPECT_NE(error.find((dir / "no-such-run").string()), std::string::npos) << error;
  EXPECT_NE(error.find("no such run folder"), std::string::npos) << error;
}

TEST(HtmlReport, RunsWithoutRecordsSayNoData) {
  const TempDir dir;
  write_file(dir / "empty" / "metrics.jsonl", "");
  fs::create_directories(dir / "bare");  // nothing written yet
  const std::string html = render({dir / "empty", dir / "bare"});
  EXPECT_TRUE(point_counts(html).empty());
  for (const auto& chart : charts_in(html)) {
    EXPECT_EQ(chart.attributes.count("data-empty"), 1u) << chart.attributes.at("data-chart");
    EXPECT_NE(chart.body.find("no data"), std::string::npos);
  }
  const std::vector<std::string> ids = chart_ids(html);
  for (const char* id : {"loss", "learning_rate", "eval", "gflops", "step_time"})
    EXPECT_EQ(count_of(ids, id), 1) << id;
  EXPECT_NE(html.find("none (no metrics.jsonl)"), std::string::npos);
}

TEST(HtmlReport, EvaluationOnlyRunDrawsItsEvaluations) {
  const TempDir dir;
  write_file(dir / "eval-only" / "metrics.jsonl", evaluation_record(0).dump() + "\n");
  const std::string html = render({dir / "eval-only"});
  const std::map<std::string, int> expected = {{"loss|eval-only|eval_loss", 1},
                                               {"eval_accuracy|eval-only|eval_accuracy", 1},
                                               {"eval_f1|eval-only|eval_f1", 1}};
  EXPECT_EQ(point_counts(html), expected);
  for (const auto& chart : charts_in(html)) {
    const std::string& id = chart.attributes.at("data-chart");
    const bool empty = id != "loss" && id != "eval_accuracy" && id != "eval_f1";
    EXPECT_EQ(chart.attributes.count("data-empty"), empty ? 1u : 0u) << id;
  }
}

TEST(HtmlReport, TrainerStateLogHistoryWhenThereIsNoMetricsJsonl) {
  // What Hugging Face's Trainer leaves: trainer_state.json with its log history, config.json.
  const TempDir dir;
  const ordered_json state = {
      {"global_step", 20},
      {"max_steps", 20},
      {"log_history",
       {{{"epoch", 0.5}, {"grad_norm", 1.5}, {"learning_rate", 2e-5}, {"loss", 0.69}, {"step", 10}},
        {{"epoch", 1.0}, {"grad_norm", 1.2}, {"learning_rate", 0.0}, {"loss", 0.65}, {"step", 20}},
        {{"epoch", 1.0}, {"eval_accuracy", 0.7}, {"eval_loss", 0.6}, {"step", 20}},
        {{"epoch", 1.0}, {"step", 20}, {"train_loss", 0.67}, {"train_runtime", 61.0}}}}};
  write_file(dir / "hf" / "trainer_state.json", state.dump(2));
  write_file(
      dir / "hf" / "config.json",
      R"({"architectures": ["DistilBertForSequenceClassification"], "model_type": "distilbert", "n_layers": 6, "dim": 768})");
  write_file(dir / "hf" / "shmtrain_config.toml", "learning_rate = 2e-5\nnum_train_epochs = 1.0\n");
  const RunFolder run = read_run_folder(dir / "hf");
  EXPECT_EQ(run.records_source, "trainer_state.json");
  ASSERT_EQ(run.config_options.size(), 2u);
  EXPECT_EQ(run.config_options[1], (std::pair<std::string, std::string>("num_train_epochs", "1.0")));
  const std::string html = render_html_report({run});
  const std::map<std::string, int> expected = {{"loss|hf|loss", 2},
                                               {"loss|hf|eval_loss", 1},
                                               {"learning_rate|hf|learning_rate", 2},
                                               {"grad_norm|hf|grad_norm", 2},
                                               {"eval_accuracy|hf|eval_accuracy", 1}};
  EXPECT_EQ(point_counts(html), expected);
  for (const char* row :
       {"<th scope=\"row\">architecture</th><td>DistilBertForSequenceClassification</td>",
        "<th scope=\"row\">layers</th><td>6</td>", "<th scope=\"row\">hidden size</th><td>768</td>",
        "<th scope=\"row\">training time</th><td>1:01</td>"}) {
    EXPECT_NE(html.find(row), std::string::npos) << row;
  }
}

TEST(HtmlReport, RunsOfTheSameFolderNameAreToldApart) {
  const TempDir dir;
  write_finished_run(dir / "a" / "run", 1e-4);
  write_finished_run(dir / "b" / "run", 3e-4);
  const std::string html = render({dir / "a" / "run", dir / "b" / "run"});
  EXPECT_EQ(point_counts(html).at("loss|a/run|loss"), 8);
  EXPECT_EQ(point_counts(html).at("loss|b/run|loss"), 8);
}

TEST(HtmlReport, LongRunsAreLinesWithoutMarkers) {
  // 2500 logs: each series is one path with a vertex per record, no circle per record.
  const TempDir dir;
  std::string lines;
  for (int step = 1; step <= 2500; ++step) lines += training_record(step, 1e-4).dump() + "\n";
  write_file(dir / "long" / "metrics.jsonl", lines);
  const std::string html = render({dir / "long"});
  EXPECT_TRUE(point_counts(html).empty());
  int loss_paths = 0;
  for (const auto& chart : charts_in(html)) {
    for (const auto& path : elements(chart.body, "path")) {
      if (!path.contains("data-points")) continue;
      EXPECT_EQ(path.at("data-points"), "2500") << chart.attributes.at("data-chart");
      if (chart.attributes.at("data-chart") == "loss") ++loss_paths;
    }
  }
  EXPECT_EQ(loss_paths, 1);
  EXPECT_LT(html.size(), 4'000'000u);
}

}  // namespace
