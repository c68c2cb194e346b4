#pragma once
// output_dir/metrics.jsonl: one JSON object per line, appended and flushed as each is logged,
// so `tail -f` follows a run and a killed run keeps every line it logged. A resumed run
// truncates the lines logged after its checkpoint's step first, so the file never holds two
// records of one step.
#include <cstdint>
#include <cstdio>
#include <filesystem>

#include <nlohmann/json.hpp>

namespace shmtrain::io {

class MetricsLog {
 public:
  // Opens (creating) the file for appending. With keep_through_step >= 0, first drops the
  // records whose "step" is greater (a resume from that step); with -1 the file starts empty.
  MetricsLog(std::filesystem::path path, std::int64_t keep_through_step);
  ~MetricsLog();
  MetricsLog(const MetricsLog&) = delete;
  MetricsLog& operator=(const MetricsLog&) = delete;

  // Writes one line and flushes. Throws SystemError naming the file.
  void append(const nlohmann::ordered_json& record);

  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
  std::FILE* file_ = nullptr;
};

}  // namespace shmtrain::io
