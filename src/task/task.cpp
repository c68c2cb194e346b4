#include "shmtrain/task/task.hpp"

#include "shmtrain/common/error.hpp"

#include <fmt/format.h>

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

std::filesystem::path Task::predict(const ModelOutputs& /*outputs*/, const std::filesystem::path& /*output_dir*/) const {
  fail_input("--do_predict is not implemented for task '{}' yet (it is for ner, pos and chunk)", name_.empty() ? "custom files" : name_);
}

}  // namespace shmtrain::task
