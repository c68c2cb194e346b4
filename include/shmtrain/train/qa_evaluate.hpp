#pragma once
// Question-answering evaluation over the validation windows, sharded like evaluate.hpp: every
// worker runs the forward of its share of the windows (rows r, r + P, ...), the start and end
// logits are gathered, and every worker post-processes them into answers
// (qa_postprocess.hpp) and scores them (squad_metric.hpp), so all agree on the result.
#include <cstdint>
#include <string>
#include <vector>

#include "shmtrain/comm/communicator.hpp"
#include "shmtrain/data/dataset.hpp"
#include "shmtrain/data/qa_features.hpp"
#include "shmtrain/model/encoder_model.hpp"
#include "shmtrain/train/qa_postprocess.hpp"
#include "shmtrain/train/squad_metric.hpp"

namespace shmtrain::train {

struct QaEvalSettings {
  std::int64_t batch_size = 8;
  std::int64_t max_seq_length = 384;
  bool pad_to_max_length = true;
  std::int32_t pad_id = 0;
  QaPostprocessOptions postprocess;
};

struct QaEvalResult {
  SquadScores scores;
  std::vector<std::string> predictions;  // one answer per question, in the file's order
  std::int64_t samples = 0;              // windows evaluated (run_qa's eval_samples)
  double seconds = 0;
};

// REQUIRES: `text` describes the rows of `features` (data::build_qa_features); the model has
// the question-answering head.
QaEvalResult evaluate_qa(EncoderModel& model, const data::Dataset& features, const data::SquadWindows& text,
                         const QaEvalSettings& settings, comm::Communicator& comm);

}  // namespace shmtrain::train
