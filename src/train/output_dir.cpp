#include "shmtrain/train/output_dir.hpp"

#include <algorithm>
#include <charconv>
#include <cerrno>
#include <map>
#include <system_error>

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <unistd.h>

#include "shmtrain/common/error.hpp"
#include "shmtrain/io/atomic_file.hpp"
#include "shmtrain/io/atomic_folder.hpp"
#include "shmtrain/model/hf_config.hpp"
#include "shmtrain/model/model_weights.hpp"
#include "shmtrain/model/sentence/sentence_folder.hpp"

namespace shmtrain::train {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kCheckpointPrefix = "checkpoint-";

// Two runs writing one output_dir would interleave their checkpoints and results: a run holds
// an advisory lock (flock) on the folder itself while it, or any worker it forks, lives. The
// same process asking again (a resumed run in a test) keeps its lock.
void lock_output_dir(const fs::path& dir) {
  static std::map<std::string, int> held;  // canonical folder -> its locked descriptor
  std::error_code error;
  const std::string key = fs::weakly_canonical(dir, error).string();
  if (held.count(key) > 0) return;
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) throw_errno(fmt::format("open output_dir {}", dir.string()));
  // A run that just ended may still be exiting (its workers follow their launcher within a
  // moment): wait up to 3 s before calling the folder taken.
  int tries = 60;
  while (::flock(fd, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK && --tries > 0) ::usleep(50'000);
  if (tries == 0 || ::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    const int saved = tries == 0 ? EWOULDBLOCK : errno;
    ::close(fd);
    if (saved == EWOULDBLOCK) {
      fail_input("output_dir {} is in use by another shmtrain run: wait for it to end, or choose another folder",
                 dir.string());
    }
    throw SystemError(fmt::format("lock output_dir {}", dir.string()), saved);
  }
  held.emplace(key, fd);  // open until the process exits: the lock lasts as long as the run
}

// The files a run writes into output_dir itself (besides checkpoints).
constexpr const char* kRunFiles[] = {
    "model.safetensors", "config.json",        "vocab.txt",          "tokenizer_config.json",
    "special_tokens_map.json", "tokenizer.json", "vocab.json", "merges.txt", "sentencepiece.bpe.model", "spm.model",
    "shmtrain_config.toml", "metrics.jsonl", "trainer_state.json", "run_info.json", "report.html",
    "eval_results.json", "train_results.json", "predict_results.json", "all_results.json", "predictions.json",
    "predictions.txt",
    "eval_predictions.json", "eval_nbest_predictions.json", "eval_null_odds.json", "predict_predictions.json",
    "predict_nbest_predictions.json", "predict_null_odds.json", "predict_results_None.txt",
    "predict_results_mrpc.txt", "predict_results_sst2.txt", "predict_results_qqp.txt", "predict_results_qnli.txt",
    "predict_results_rte.txt", "predict_results_cola.txt", "predict_results_stsb.txt", "predict_results_mnli.txt",
};

std::int64_t checkpoint_step(const fs::path& path) {
  const std::string name = path.filename().string();
  if (name.rfind(kCheckpointPrefix, 0) != 0) return -1;
  std::int64_t step = -1;
  const char* begin = name.data() + kCheckpointPrefix.size();
  const char* end = name.data() + name.size();
  const auto [last, error] = std::from_chars(begin, end, step);
  if (error != std::errc{} || last != end || begin == end) return -1;
  return step;
}

bool is_empty_folder(const fs::path& folder) {
  std::error_code error;
  return fs::directory_iterator(folder, error) == fs::directory_iterator();
}

}  // namespace

std::vector<fs::path> list_checkpoints(const fs::path& output_dir) {
  std::vector<std::pair<std::int64_t, fs::path>> found;
  std::error_code error;
  for (fs::directory_iterator it(output_dir, error), end; !error && it != end; it.increment(error)) {
    const std::int64_t step = checkpoint_step(it->path());
    if (step >= 0 && it->is_directory()) found.emplace_back(step, it->path());
  }
  std::sort(found.begin(), found.end());
  std::vector<fs::path> paths;
  for (auto& [step, path] : found) paths.push_back(std::move(path));
  return paths;
}

fs::path prepare_output_dir(const TrainOptions& options, std::vector<std::string>& notes) {
  const fs::path& dir = options.output_dir;
  std::error_code error;
  if (fs::exists(dir, error) && !fs::is_directory(dir, error)) {
    fail_input("output_dir {} exists and is not a folder", dir.string());
  }
  if (!fs::exists(dir, error)) {
    fs::create_directories(dir, error);
    if (error) fail_input("output_dir {}: cannot create it: {}", dir.string(), error.message());
  }
  lock_output_dir(dir);  // before anything in it is touched: another run's temporaries are not stale
  if (const int removed = io::remove_stale_temporaries(dir); removed > 0) {
    notes.push_back(fmt::format("removed {} unfinished temporary file(s) an interrupted run left in {}", removed,
                                dir.string()));
  }
  if (!options.resume_from_checkpoint.empty()) {
    if (!fs::is_directory(options.resume_from_checkpoint, error)) {
      fail_input("resume_from_checkpoint {}: no such checkpoint folder", options.resume_from_checkpoint.string());
    }
    return options.resume_from_checkpoint;
  }
  if (!options.do_train || is_empty_folder(dir)) return {};

  if (options.overwrite_output_dir) {
    for (const fs::path& checkpoint : list_checkpoints(dir)) fs::remove_all(checkpoint, error);
    for (const char* name : kRunFiles) fs::remove(dir / name, error);
    notes.push_back(fmt::format("overwrite_output_dir: removed the previous run's files from {}", dir.string()));
    return {};
  }
  const std::vector<fs::path> checkpoints = list_checkpoints(dir);
  if (!checkpoints.empty() && !fs::exists(dir / "model.safetensors", error)) {
    notes.push_back(fmt::format("{} holds an interrupted run: resuming from {} (pass --overwrite_output_dir to "
                                "start over)",
                                dir.string(), checkpoints.back().filename().string()));
    return checkpoints.back();
  }
  fail_input("output_dir {} already holds {}; pass --overwrite_output_dir to replace it, or choose another folder",
             dir.string(), fs::exists(dir / "model.safetensors", error) ? "a finished run" : "other files");
}

fs::path prepare_restart(const TrainOptions& options, std::vector<std::string>& notes) {
  const fs::path& dir = options.output_dir;
  std::error_code error;
  io::remove_stale_temporaries(dir);
  const std::vector<fs::path> checkpoints = list_checkpoints(dir);
  if (!checkpoints.empty()) return checkpoints.back();
  for (const char* name : kRunFiles) fs::remove(dir / name, error);
  notes.push_back("no checkpoint was written yet: starting over");
  return options.resume_from_checkpoint;
}

void rotate_checkpoints(const fs::path& output_dir, std::int64_t limit, const fs::path& keep) {
  std::vector<fs::path> checkpoints = list_checkpoints(output_dir);
  // The best checkpoint stays, as Trainer keeps it: the oldest others go.
  if (!keep.empty()) std::erase(checkpoints, keep);
  if (!keep.empty() && limit > 0) --limit;
  std::error_code error;
  for (std::size_t i = 0; i + static_cast<std::size_t>(limit) < checkpoints.size(); ++i) {
    fs::remove_all(checkpoints[i], error);
  }
}

void write_model_folder(const fs::path& folder, const model::BertConfig& config,
                        const model::ParamTable& table, std::span<const float> params,
                        const text::Tokenizer& tokenizer, const std::string& options_toml) {
  model::save_model_weights(folder / "model.safetensors", table, params);
  model::write_hf_config(folder / "config.json", config);
  tokenizer.save(folder, static_cast<std::size_t>(config.max_sequence_length()));
  io::write_file_atomically(folder / "shmtrain_config.toml", options_toml);
  if (config.head == model::ModelHead::kSentenceEmbedding) {
    model::sentence::write_sentence_transformers_files(folder, config.sentence, config.hidden_size);
  }
  if (config.cross_encoder) model::sentence::write_cross_encoder_files(folder, config.num_labels() == 1);
}

}  // namespace shmtrain::train
