#include "shmtrain/model/batch_validation.hpp"
#include "shmtrain/train/evaluate.hpp"
#include "shmtrain/common/fault_injection.hpp"

#include <algorithm>
#include <chrono>
#include <vector>

#include "shmtrain/data/collate.hpp"

namespace shmtrain::train {

namespace {

// The model's outputs over every row of `dataset`, gathered from all workers in dataset order.
// `labelled` false: test rows, whose labels (absent, or not read) the batches do not carry.
std::vector<float> gather_outputs(model::EncoderModel& model, const task::Task& task, const data::Dataset& dataset,
                                  const EvalSettings& settings, comm::Communicator& comm, std::int64_t& width_out,
                                  bool labelled) {
  const auto n = static_cast<std::int64_t>(dataset.examples.size());
  const std::int64_t world = comm.size();
  const std::int64_t rank = comm.rank();
  const std::int64_t width = task.output_width(model.config().num_labels(), settings.max_seq_length);
  width_out = width;
  // Every worker evaluates `share` rows (the last ones may be past the end: left as filler),
  // so the gather has equal sizes.
  const std::int64_t share = (n + world - 1) / world;
  std::vector<float> local(static_cast<std::size_t>(share * width), task.missing_output());
  std::vector<std::int64_t> rows;
  for (std::int64_t k = 0; k < share && k * world + rank < n; ++k) rows.push_back(k * world + rank);

  for (std::size_t first = 0; first < rows.size(); first += static_cast<std::size_t>(settings.batch_size)) {
    const std::size_t count =
        std::min<std::size_t>(static_cast<std::size_t>(settings.batch_size), rows.size() - first);
    data::Batch batch = data::collate(dataset, std::span(rows).subspan(first, count),
                                            static_cast<std::size_t>(settings.max_seq_length),
                                            settings.padding, settings.pad_id, task.target());
    task.prepare_batch(batch, task::Task::kEvaluationEpoch);
    if (!labelled) {
      batch.labels.clear();
      batch.targets.clear();
      batch.start_positions.clear();
      batch.end_positions.clear();
    }
    model::validate_batch(batch, model.config(), dataset.source);
    fault_point("eval.forward", comm.rank());
    model.forward(batch, model::StepContext{.train = false});
    // A row's outputs fill the front of its `width` floats (a token head's row may be shorter
    // than max_seq_length); the rest keep the task's missing value.
    for (std::size_t b = 0; b < count; ++b) {
      const std::span<const float> outputs = model.row_logits(static_cast<std::int64_t>(b));
      std::copy(outputs.begin(), outputs.end(),
                local.begin() + static_cast<std::ptrdiff_t>((first + b) * static_cast<std::size_t>(width)));
    }
  }

  std::vector<float> all(static_cast<std::size_t>(share * world * width));
  fault_point("eval.gather", comm.rank());
  comm.allgather(local, all);
  // Row k * world + r sits at (r * share + k): put the rows back in dataset order.
  std::vector<float> ordered(static_cast<std::size_t>(n * width));
  for (std::int64_t row = 0; row < n; ++row) {
    std::copy_n(all.begin() + ((row % world) * share + row / world) * width, width, ordered.begin() + row * width);
  }

  return ordered;
}

}  // namespace

EvalResult evaluate(model::EncoderModel& model, const task::Task& task, const EvalSettings& settings,
                    comm::Communicator& comm, const std::filesystem::path& prediction_dir) {
  const auto start = std::chrono::steady_clock::now();
  std::int64_t width = 0;
  const std::vector<float> outputs = gather_outputs(model, task, *task.validation(), settings, comm, width, true);
  EvalResult result;
  result.metrics = task.score(task::ModelOutputs{.values = outputs, .width = width}, prediction_dir);
  result.samples = static_cast<std::int64_t>(task.validation()->examples.size());
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

PredictResult predict(model::EncoderModel& model, const task::Task& task, const EvalSettings& settings,
                      comm::Communicator& comm, const std::filesystem::path& prediction_dir) {
  const auto start = std::chrono::steady_clock::now();
  std::int64_t width = 0;
  const std::vector<float> outputs = gather_outputs(model, task, *task.test(), settings, comm, width, false);
  PredictResult result;
  result.prediction = task.predict(task::ModelOutputs{.values = outputs, .width = width}, prediction_dir);
  result.samples = static_cast<std::int64_t>(task.test()->examples.size());
  // Trainer's speed_metrics: ceil(samples / (per-device batch size x workers)) steps.
  const std::int64_t batch = settings.batch_size * comm.size();
  result.steps = (result.samples + batch - 1) / batch;
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace shmtrain::train
