// Reading a run's output folder for the HTML report: tolerant of everything a run in
// progress, an older shmtrain or Hugging Face's Trainer leaves (a missing file or key is
// skipped), strict only where silence would hide a damaged log (a bad line inside
// metrics.jsonl).
#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <system_error>

#include <fmt/format.h>
#include <toml++/toml.h>

#include "shmtrain/common/error.hpp"
#include "shmtrain/io/json_error.hpp"
#include "shmtrain/io/json_nesting.hpp"
#include "shmtrain/report/html_report.hpp"

namespace shmtrain::report {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

std::optional<std::string> read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Parses `text` as one JSON value; on failure returns null and sets `error`.
Json parse_json(std::string_view text, std::string& error) {
  if (const std::size_t at = io::json_nesting_overflow(text); at != std::string_view::npos) {
    error = fmt::format("JSON nests deeper than {} levels (byte {})", io::kMaxJsonNesting, at);
    return nullptr;
  }
  try {
    return Json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    error = io::json_error_text(e.what());
    return nullptr;
  }
}

// A JSON object file, or null when it is absent; a file that is not a JSON object is noted.
Json read_json_object(const fs::path& folder, const char* name, std::vector<std::string>& notes) {
  std::error_code ec;
  const fs::path path = folder / name;
  if (!fs::is_regular_file(path, ec)) return nullptr;
  const std::optional<std::string> text = read_text(path);
  if (!text) {
    notes.push_back(fmt::format("{}: cannot be read, skipped", name));
    return nullptr;
  }
  std::string error;
  Json json = parse_json(*text, error);
  if (!json.is_object()) {
    notes.push_back(fmt::format("{}: {}, skipped", name, error.empty() ? "not a JSON object" : error));
    return nullptr;
  }
  return json;
}

std::optional<double> finite_number(const Json& value) {
  if (!value.is_number()) return std::nullopt;
  const double x = value.get<double>();
  if (!std::isfinite(x)) return std::nullopt;
  return x;
}

std::vector<StepSplit> step_splits(const Json& workers) {
  std::vector<StepSplit> out;
  if (!workers.is_array()) return out;
  for (const Json& worker : workers) {
    if (!worker.is_object()) return {};
    const auto field = [&worker](const char* key) {
      const auto it = worker.find(key);
      return it == worker.end() ? 0.0 : finite_number(*it).value_or(0.0);
    };
    out.push_back({.forward = field("forward"),
                   .backward = field("backward"),
                   .exchange = field("exchange"),
                   .optimizer = field("optimizer"),
                   .data = field("data"),
                   .wait = field("wait")});
  }
  return out;
}

// A log record, or nullopt when it has no integral "step" (nothing to place it on the axis).
std::optional<LogRecord> to_record(const Json& object) {
  const auto step = object.find("step");
  if (step == object.end() || !step->is_number()) return std::nullopt;
  const double s = step->get<double>();
  if (!std::isfinite(s) || s != std::floor(s)) return std::nullopt;
  LogRecord record;
  record.step = static_cast<std::int64_t>(s);
  for (const auto& [key, value] : object.items()) {
    if (key == "step") continue;
    if (key == "workers") {
      record.workers = step_splits(value);
    } else if (key == "worker_wait") {
      if (!value.is_array()) continue;
      for (const Json& share : value) record.worker_wait.push_back(finite_number(share).value_or(0.0));
    } else if (const std::optional<double> x = finite_number(value)) {
      record.values.emplace_back(key, *x);
    }
  }
  return record;
}

// metrics.jsonl: every non-blank line must be a JSON object, except the last, which a run
// still writing it (or killed while writing it) leaves cut short.
void read_metrics_jsonl(const fs::path& path, const std::string& text, RunFolder& run) {
  std::vector<std::pair<std::size_t, std::string_view>> lines;  // (line number, text)
  std::size_t number = 0;
  for (std::size_t begin = 0; begin < text.size();) {
    std::size_t end = text.find('\n', begin);
    if (end == std::string::npos) end = text.size();
    ++number;
    std::string_view line(text.data() + begin, end - begin);
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t'))
      line.remove_suffix(1);
    if (!line.empty()) lines.emplace_back(number, line);
    begin = end + 1;
  }
  std::size_t without_step = 0;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const auto [line_number, line] = lines[i];
    std::string error;
    const Json object = parse_json(line, error);
    if (!object.is_object()) {
      if (error.empty()) error = "not a JSON object";
      if (i + 1 == lines.size()) {
        run.notes.push_back(
            fmt::format("metrics.jsonl:{}: the last line is incomplete ({}), skipped: a run still "
                        "writing it, or one stopped while writing it",
                        line_number, error));
        break;
      }
      fail_input("{}:{}: {} (each line of metrics.jsonl is one JSON object; only the last may be incomplete)",
                 path.string(), line_number, error);
    }
    if (std::optional<LogRecord> record = to_record(object)) {
      run.records.push_back(std::move(*record));
    } else {
      ++without_step;
    }
  }
  if (without_step > 0)
    run.notes.push_back(fmt::format("metrics.jsonl: {} record(s) without a step skipped", without_step));
}

void read_log_history(const Json& trainer_state, RunFolder& run) {
  const auto history = trainer_state.find("log_history");
  if (history == trainer_state.end() || !history->is_array()) return;
  for (const Json& entry : *history) {
    if (!entry.is_object()) continue;
    if (std::optional<LogRecord> record = to_record(entry)) run.records.push_back(std::move(*record));
  }
  run.records_source = "trainer_state.json";
}

std::string toml_text(const toml::node& node) {
  if (const auto* s = node.as_string()) return s->get();
  if (const auto* b = node.as_boolean()) return b->get() ? "true" : "false";
  if (const auto* i = node.as_integer()) return fmt::format("{}", i->get());
  if (const auto* f = node.as_floating_point()) {
    // As shmtrain writes floats elsewhere (run_info.json's options): 15.0, not 15.
    const double x = f->get();
    return x == std::floor(x) && std::fabs(x) < 1e15 ? fmt::format("{:.1f}", x) : fmt::format("{}", x);
  }
  std::ostringstream out;
  if (const auto* array = node.as_array()) out << *array;
  if (const auto* table = node.as_table()) out << *table;
  return out.str();
}

// shmtrain_config.toml's keys in the order the file has them (toml++ iterates in key order).
void read_config_toml(const fs::path& folder, RunFolder& run) {
  std::error_code ec;
  const fs::path path = folder / "shmtrain_config.toml";
  if (!fs::is_regular_file(path, ec)) return;
  toml::table table;
  try {
    table = toml::parse_file(path.string());
  } catch (const toml::parse_error& e) {
    run.notes.push_back(
        fmt::format("shmtrain_config.toml:{}: {}, skipped", e.source().begin.line, e.description()));
    return;
  }
  std::vector<std::pair<toml::source_index, std::pair<std::string, std::string>>> keyed;
  for (const auto& [key, node] : table) {
    keyed.push_back({node.source().begin.line, {std::string(key.str()), toml_text(node)}});
  }
  std::stable_sort(keyed.begin(), keyed.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  for (auto& entry : keyed) run.config_options.push_back(std::move(entry.second));
}

void read_results(const fs::path& folder, RunFolder& run) {
  run.results = read_json_object(folder, "all_results.json", run.notes);
  if (!run.results.is_null()) return;
  for (const char* name : {"train_results.json", "eval_results.json"}) {
    const Json part = read_json_object(folder, name, run.notes);
    if (part.is_null()) continue;
    if (run.results.is_null()) run.results = Json::object();
    for (const auto& [key, value] : part.items()) run.results[key] = value;
  }
}

std::string folder_name(const fs::path& folder) {
  fs::path normal = folder.lexically_normal();
  if (!normal.has_filename()) normal = normal.parent_path();
  std::string name = normal.filename().string();
  if (name.empty() || name == "." || name == "..") {
    std::error_code ec;
    const fs::path absolute = fs::weakly_canonical(folder, ec);
    if (!ec && absolute.has_filename()) name = absolute.filename().string();
  }
  return name.empty() ? folder.string() : name;
}

}  // namespace

std::optional<double> LogRecord::value(std::string_view key) const {
  for (const auto& [name, x] : values) {
    if (name == key) return x;
  }
  return std::nullopt;
}

bool LogRecord::is_training() const { return value("loss").has_value(); }

bool LogRecord::is_evaluation() const {
  return std::any_of(values.begin(), values.end(),
                     [](const auto& v) { return v.first.starts_with("eval_"); });
}

RunFolder read_run_folder(const fs::path& folder) {
  std::error_code ec;
  if (!fs::is_directory(folder, ec)) {
    fail_input("{}: no such run folder (pass the --output_dir of a training run)", folder.string());
  }
  RunFolder run;
  run.path = folder;
  run.name = folder_name(folder);
  run.run_info = read_json_object(folder, "run_info.json", run.notes);
  run.trainer_state = read_json_object(folder, "trainer_state.json", run.notes);
  run.model_config = read_json_object(folder, "config.json", run.notes);
  read_results(folder, run);
  read_config_toml(folder, run);

  const fs::path metrics = folder / "metrics.jsonl";
  if (fs::is_regular_file(metrics, ec)) {
    const std::optional<std::string> text = read_text(metrics);
    if (!text) throw_errno(fmt::format("read {}", metrics.string()));
    run.records_source = "metrics.jsonl";
    read_metrics_jsonl(metrics, *text, run);
  } else if (run.trainer_state.is_object()) {
    read_log_history(run.trainer_state, run);
  }
  return run;
}

}  // namespace shmtrain::report
