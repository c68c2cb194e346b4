#pragma once
// One TensorBoard Event record's bytes, as torch.utils.tensorboard.SummaryWriter writes them:
// the file's first record carries file_version "brain.Event:2" and source_metadata { writer },
// every add_scalar one Event { wall_time, step, summary { value { tag, simple_value } } }. The encoding is
// protobuf's (src/report/tensorboard_event.proto holds the fields, with event.proto's numbers).
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace shmtrain::report {

inline constexpr std::string_view kTensorBoardFileVersion = "brain.Event:2";
// The first record's source_metadata.writer (SummaryWriter's names its Python module).
inline constexpr std::string_view kTensorBoardSourceWriter = "shmtrain.report.tensorboard_writer";

// An Event's bytes (a TFRecord's data). The value is stored as float32, as add_scalar does.
// Throws InputError for a tag that is not UTF-8 (no protobuf reader would parse the Event).
std::string serialize_file_version_event(double wall_time);
std::string serialize_scalar_event(std::string_view tag, std::int64_t step, float value, double wall_time);

// The fields of an Event that shmtrain reads. file_version and source_writer are empty unless
// the record is a file's first; simple_values holds the (tag, simple_value) pairs of its summary, in order
// (Values with another kind of payload, such as images or tensors, are skipped).
struct TensorBoardEvent {
  double wall_time = 0;
  std::int64_t step = 0;
  std::string file_version;
  std::string source_writer;
  std::vector<std::pair<std::string, float>> simple_values;
};

// Throws InputError naming `source` (file and record, for the message) for bytes that are not
// an Event.
TensorBoardEvent parse_tensorboard_event(std::string_view bytes, std::string_view source);

}  // namespace shmtrain::report
