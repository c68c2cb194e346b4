#pragma once
// TensorBoard event files as Hugging Face's Trainer writes them with --report_to tensorboard
// (transformers' TensorBoardCallback over torch.utils.tensorboard.SummaryWriter), so that
// `tensorboard --logdir OUTPUT_DIR/runs` shows a shmtrain run beside a PyTorch one:
//   - the folder: OUTPUT_DIR/runs/<Mon><DD>_<HH>-<MM>-<SS>_<hostname> (TrainingArguments.logging_dir);
//   - the file: events.out.tfevents.<unix seconds, 10 digits>.<hostname>.<pid>.<n>, n counting the
//     writers this process opened from 0 (tensorboard's EventFileWriter);
//   - the records: TFRecord-framed Events (tfrecord.hpp, tensorboard_event.hpp);
//   - the tags: train/<key> for a training log's keys, eval/<name> for eval_<name>, test/<name>
//     for test_<name> (transformers' rewrite_logs), at the record's step.
#include <chrono>
#include <cstdint>
#include <ctime>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace shmtrain::report {

// Seconds since the Unix epoch, as Python's time.time().
double unix_time_now();

class TensorBoardWriter {
 public:
  // Creates `dir` (with its parents) and a new event file in it, and writes the file's first
  // record (file_version "brain.Event:2", source_metadata). Throws SystemError naming the folder
  // or the file.
  explicit TensorBoardWriter(const std::filesystem::path& dir);
  ~TensorBoardWriter();
  TensorBoardWriter(const TensorBoardWriter&) = delete;
  TensorBoardWriter& operator=(const TensorBoardWriter&) = delete;

  // Appends one Event { wall_time, step, summary { value { tag, simple_value } } }; the value
  // is stored as float32, as SummaryWriter.add_scalar stores it. Each record is handed to the
  // kernel in one pwrite(2) (more only when the disk fills) before this returns, so a process
  // killed at any point leaves whole records (and a reader such as TensorBoard stops at a torn
  // last one after a power loss). Throws InputError for a tag that is not UTF-8, SystemError
  // naming the file for a failed write (ENOSPC, EIO); the file is first cut back to its last
  // whole record so that it stays readable. After a failed cut every later call throws.
  void add_scalar(std::string_view tag, std::int64_t step, double value, double wall_time);

  // fsync(2): the records written so far survive a power loss. Throws SystemError naming the file.
  void flush();

  const std::filesystem::path& path() const { return path_; }

 private:
  void append(std::string_view event);

  std::filesystem::path path_;
  int fd_ = -1;
  std::uint64_t size_ = 0;  // bytes of whole records in the file
};

// One scalar of an event file: an Event's step and wall time with one of its simple_values.
struct TensorBoardScalar {
  std::string tag;
  std::int64_t step = 0;
  float value = 0;
  double wall_time = 0;
};

// The scalars of an event file in file order, every record's length and data checksums
// checked. Throws InputError naming the file and the record (numbered from 0) for a checksum
// that does not match, a record cut short (a writer stopped mid-record) or a record that is
// not an Event, and when the first record is not a "brain.Event:" file-version record.
std::vector<TensorBoardScalar> read_tensorboard_events(const std::filesystem::path& file);

// "<Mon><DD>_<HH>-<MM>-<SS>_<hostname>", e.g. "Mar07_14-05-09_node1": the last part of
// TrainingArguments.logging_dir's default (Python's strftime("%b%d_%H-%M-%S") in the C locale).
std::string hf_run_name(const std::tm& local_time, std::string_view hostname);

// OUTPUT_DIR/runs/<hf_run_name of the local time `now` and this host's name>.
std::filesystem::path default_tensorboard_dir(
    const std::filesystem::path& output_dir,
    std::chrono::system_clock::time_point now = std::chrono::system_clock::now());

// A run's TensorBoard folder: `logging_dir` (transformers 4's --logging_dir) when given, else the
// TENSORBOARD_LOGGING_DIR variable (what transformers 5 reads instead), else
// default_tensorboard_dir(output_dir).
std::filesystem::path tensorboard_dir(const std::filesystem::path& logging_dir, const std::filesystem::path& output_dir);

// The TensorBoard tag Trainer logs `key` under: "eval_loss" -> "eval/loss", "test_f1" ->
// "test/f1", any other key k -> "train/k" ("loss", "learning_rate", "epoch", "train_runtime").
std::string hf_tensorboard_tag(std::string_view key);

// Writes one metrics.jsonl record (train/training_run: {"step":3,"epoch":0.075,"loss":0.69,...},
// or an evaluation's {"step":3,"epoch":0.075,"eval_loss":0.70,"eval_accuracy":0.42,...}) as
// TensorBoardCallback.on_log writes Trainer's logs: one scalar per number (booleans as 0/1,
// like Python's isinstance(v, (int, float))) under hf_tensorboard_tag(key), at the record's
// "step". "step" itself and values that are not numbers (arrays, objects, strings, null) are
// skipped. REQUIRES: record is an object. Throws InputError when "step" is missing or is
// not an integer.
void write_log_record(TensorBoardWriter& writer, const nlohmann::ordered_json& record,
                      double wall_time = unix_time_now());

}  // namespace shmtrain::report
