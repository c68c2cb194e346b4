#pragma once
// Evaluation over the validation set: every worker runs the forward of its share (rows r,
// r + P, ...), the logits are gathered, and every worker computes the same metrics over the
// whole set in its order. The loss is recomputed from the logits in double, per example, and
// averaged over examples as Hugging Face's eval_loss.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "shmtrain/comm/communicator.hpp"
#include "shmtrain/data/dataset.hpp"
#include "shmtrain/model/encoder_model.hpp"

namespace shmtrain::train {

struct EvalSettings {
  std::string task_name;
  const data::LabelSet* labels = nullptr;
  std::int64_t batch_size = 8;
  std::int64_t max_seq_length = 128;
  bool pad_to_max_length = true;
  std::int32_t pad_id = 0;
};

struct EvalResult {
  double loss = 0;
  std::vector<std::pair<std::string, double>> metrics;  // run_glue's names, without "eval_"
  std::int64_t samples = 0;
  double seconds = 0;
};

EvalResult evaluate(EncoderModel& model, const data::Dataset& dataset, const EvalSettings& settings,
                    comm::Communicator& comm);

}  // namespace shmtrain::train
