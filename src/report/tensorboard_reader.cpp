#include "shmtrain/common/error.hpp"
#include "shmtrain/report/tensorboard.hpp"
#include "shmtrain/report/tensorboard_event.hpp"
#include "shmtrain/report/tfrecord.hpp"

namespace shmtrain::report {

std::vector<TensorBoardScalar> read_tensorboard_events(const std::filesystem::path& file) {
  const std::vector<std::string> records = read_tfrecords(file);
  std::vector<TensorBoardScalar> scalars;
  for (std::size_t i = 0; i < records.size(); ++i) {
    const std::string source = fmt::format("{}: record {}", file.string(), i);
    TensorBoardEvent event = parse_tensorboard_event(records[i], source);
    // Every writer (tensorflow's EventsWriter, tensorboard's EventFileWriter, tensorboardX)
    // opens a file with its version record; without one this is not an event file.
    if (i == 0 && !event.file_version.starts_with("brain.Event:")) {
      fail_input("{}: not a TensorBoard event file (its first record has no \"brain.Event:\" file version)",
                 source);
    }
    for (auto& [tag, value] : event.simple_values) {
      scalars.push_back(
          {.tag = std::move(tag), .step = event.step, .value = value, .wall_time = event.wall_time});
    }
  }
  return scalars;
}

}  // namespace shmtrain::report
