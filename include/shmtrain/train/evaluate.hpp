#pragma once
// Evaluation over the task's validation rows, for any task: every worker runs the forward of
// its share (rows r, r + P, ...), the model's outputs are gathered, and every worker hands the
// whole set, in dataset order, to the task's score (task/task.hpp), so all agree on the result.
#include <cstdint>
#include <filesystem>

#include "shmtrain/comm/communicator.hpp"
#include "shmtrain/data/collate.hpp"
#include "shmtrain/model/encoder_model.hpp"
#include "shmtrain/task/task.hpp"

namespace shmtrain::train {

struct EvalSettings {
  std::int64_t batch_size = 8;
  std::int64_t max_seq_length = 128;
  data::Padding padding = data::Padding::kNone;
  std::int32_t pad_id = 0;
};

struct EvalResult {
  task::Metrics metrics;  // the task's, without "eval_"
  std::int64_t samples = 0;
  double seconds = 0;
};

// REQUIRES: task.validation() loaded; the model has the head of task.target().
// prediction_dir: where the task writes its prediction files (empty: none, on ranks other than 0).
EvalResult evaluate(model::EncoderModel& model, const task::Task& task, const EvalSettings& settings,
                    comm::Communicator& comm, const std::filesystem::path& prediction_dir);

struct PredictResult {
  task::Prediction prediction;  // the file written, and the metrics of labelled test rows
  std::int64_t samples = 0;     // test rows
  std::int64_t steps = 0;       // batches of all workers together, as Trainer counts them
  double seconds = 0;
};

// --do_predict: the same over task.test(), handed to the task's predict (its prediction file
// in prediction_dir, rank 0; the others pass an empty path).
// REQUIRES: task.test() loaded.
PredictResult predict(model::EncoderModel& model, const task::Task& task, const EvalSettings& settings,
                              comm::Communicator& comm, const std::filesystem::path& prediction_dir);

}  // namespace shmtrain::train
