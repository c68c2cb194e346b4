#include "shmtrain/io/metrics_log.hpp"

#include <cerrno>
#include <fstream>
#include <string>

#include <fmt/format.h>

#include "shmtrain/common/error.hpp"
#include "shmtrain/io/atomic_file.hpp"
#include "shmtrain/io/json_nesting.hpp"

namespace shmtrain::io {
namespace {

// The lines of an existing log whose step is at most `step`; lines that are not JSON objects
// with a step (a line cut by a crash) are dropped.
std::string kept_lines(const std::filesystem::path& path, std::int64_t step) {
  std::ifstream in(path);
  std::string kept;
  std::string line;
  while (std::getline(in, line)) {
    if (json_nesting_overflow(line) != std::string_view::npos) continue;
    const nlohmann::json record = nlohmann::json::parse(line, nullptr, false);
    if (record.is_discarded() || !record.is_object()) continue;
    const auto it = record.find("step");
    if (it == record.end() || !it->is_number_integer() || it->get<std::int64_t>() > step) continue;
    kept += line;
    kept += '\n';
  }
  return kept;
}

}  // namespace

MetricsLog::MetricsLog(std::filesystem::path path, std::int64_t keep_through_step) : path_(std::move(path)) {
  const std::string kept = keep_through_step >= 0 ? kept_lines(path_, keep_through_step) : std::string();
  write_file_atomically(path_, kept);
  file_ = std::fopen(path_.c_str(), "a");
  if (file_ == nullptr) throw_errno(fmt::format("open {}", path_.string()));
}

MetricsLog::~MetricsLog() {
  if (file_ != nullptr) std::fclose(file_);
}

void MetricsLog::append(const nlohmann::ordered_json& record) {
  const std::string line = record.dump() + "\n";
  if (std::fwrite(line.data(), 1, line.size(), file_) != line.size() || std::fflush(file_) != 0) {
    throw_errno(fmt::format("write {}", path_.string()));
  }
}

}  // namespace shmtrain::io
