#include "shmtrain/task/glue/classification_task.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "shmtrain/io/atomic_file.hpp"
#include "shmtrain/task/glue/metrics.hpp"

namespace shmtrain::task {

ClassificationTask::ClassificationTask(std::string name, data::LabelSet labels, std::optional<data::Dataset> train,
                                       std::optional<data::Dataset> validation) {
  name_ = std::move(name);
  labels_ = std::move(labels);
  train_ = std::move(train);
  validation_ = std::move(validation);
}

data::Target ClassificationTask::target() const {
  return labels_.regression ? data::Target::kRegression : data::Target::kClass;
}

Metrics ClassificationTask::score(const ModelOutputs& outputs, const std::filesystem::path& /*output_dir*/) const {
  const std::vector<data::Example>& examples = validation_->examples;
  const auto width = static_cast<std::size_t>(outputs.width);
  Predictions predictions;
  double loss_sum = 0;
  for (std::size_t row = 0; row < examples.size(); ++row) {
    const std::span<const float> logits = outputs.values.subspan(row * width, width);
    const data::Example& example = examples[row];
    if (labels_.regression) {
      const double diff = static_cast<double>(logits[0]) - example.target;
      loss_sum += diff * diff;
      predictions.scores.push_back(logits[0]);
      predictions.targets.push_back(example.target);
    } else {
      loss_sum += cross_entropy(logits, example.label);
      predictions.predicted.push_back(
          static_cast<std::int32_t>(std::max_element(logits.begin(), logits.end()) - logits.begin()));
      predictions.labels.push_back(example.label);
    }
  }
  const auto n = static_cast<double>(examples.size());
  Metrics metrics = {{"loss", examples.empty() ? 0.0 : loss_sum / n}};
  for (auto& metric : task_metrics(name_, labels_.regression, outputs.width, predictions)) {
    metrics.push_back(std::move(metric));
  }
  return metrics;
}

Prediction ClassificationTask::predict(const ModelOutputs& outputs,
                                       const std::filesystem::path& output_dir) const {
  const auto width = static_cast<std::size_t>(outputs.width);
  std::string text = "index\tprediction\n";
  for (std::size_t row = 0; row < test_->examples.size(); ++row) {
    const std::span<const float> logits = outputs.values.subspan(row * width, width);
    if (labels_.regression) {
      text += fmt::format("{}\t{:3.3f}\n", row, logits[0]);
    } else {
      const auto best = static_cast<std::size_t>(std::max_element(logits.begin(), logits.end()) - logits.begin());
      text += fmt::format("{}\t{}\n", row, labels_.names[best]);
    }
  }
  const std::filesystem::path file = output_dir / fmt::format("predict_results_{}.txt", name_.empty() ? "None" : name_);
  if (!output_dir.empty()) io::write_file_atomically(file, text);
  return {.file = file, .metrics = {}};  // run_glue predicts without the labels: no metrics
}

}  // namespace shmtrain::task
