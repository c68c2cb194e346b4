#include "shmtrain/task/task.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "shmtrain/common/error.hpp"

namespace shmtrain::task {

std::string Task::describe() const {
  std::string line = name_.empty() ? "custom files" : name_;
  if (train_) line += fmt::format(" | train {} {}", train_->examples.size(), row_noun());
  if (validation_) {
    line += fmt::format(" | eval {} {}{}", validation_->examples.size(), row_noun(), describe_validation());
  }
  return line + " | " + describe_labels();
}

std::string Task::describe_labels() const {
  if (labels_.regression) return "regression";
  std::string text;
  for (const std::string& name : labels_.names) text += (text.empty() ? "" : ", ") + name;
  return fmt::format("{} labels ({})", labels_.names.size(), text);
}

std::int64_t Task::output_width(std::int64_t num_labels, std::int64_t /*max_seq_length*/) const {
  return num_labels;
}

Prediction Task::predict(const ModelOutputs& /*outputs*/, const std::filesystem::path& /*output_dir*/) const {
  fail_input("--do_predict is not implemented for task '{}' yet (it is for ner, pos and chunk)", name_.empty() ? "custom files" : name_);
}

void Task::prepare_batch(data::Batch& /*batch*/, std::uint64_t /*epoch*/) const {}

std::optional<data::Dataset> Task::batch_examples(std::span<const std::int64_t> /*rows*/,
                                                  std::uint64_t /*seed*/) const {
  return std::nullopt;
}

double cross_entropy(std::span<const float> logits, std::int32_t label) {
  double max = logits[0];
  for (const float x : logits) max = std::max<double>(max, x);
  double sum = 0;
  for (const float x : logits) sum += std::exp(static_cast<double>(x) - max);
  return std::log(sum) + max - static_cast<double>(logits[static_cast<std::size_t>(label)]);
}

}  // namespace shmtrain::task
