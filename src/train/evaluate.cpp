#include "shmtrain/train/evaluate.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "shmtrain/data/collate.hpp"
#include "shmtrain/train/metrics.hpp"

namespace shmtrain::train {
namespace {

// -log softmax(logits)[label], in double.
double cross_entropy(std::span<const float> logits, std::int32_t label) {
  double max = logits[0];
  for (const float x : logits) max = std::max<double>(max, x);
  double sum = 0;
  for (const float x : logits) sum += std::exp(static_cast<double>(x) - max);
  return std::log(sum) + max - static_cast<double>(logits[static_cast<std::size_t>(label)]);
}

}  // namespace

EvalResult evaluate(EncoderModel& model, const data::Dataset& dataset, const EvalSettings& settings,
                    comm::Communicator& comm) {
  const auto start = std::chrono::steady_clock::now();
  const std::int64_t n = static_cast<std::int64_t>(dataset.examples.size());
  const std::int64_t world = comm.size();
  const std::int64_t rank = comm.rank();
  const std::int64_t labels = model.config().num_labels();
  const bool regression = settings.labels->regression;
  // Every worker evaluates `share` rows (the last ones may be past the end: left zero), so the
  // gather has equal sizes.
  const std::int64_t share = (n + world - 1) / world;
  std::vector<float> local(static_cast<std::size_t>(share * labels), 0.0f);
  std::vector<std::int64_t> rows;
  for (std::int64_t k = 0; k < share && k * world + rank < n; ++k) rows.push_back(k * world + rank);

  for (std::size_t first = 0; first < rows.size(); first += static_cast<std::size_t>(settings.batch_size)) {
    const std::size_t count = std::min<std::size_t>(static_cast<std::size_t>(settings.batch_size), rows.size() - first);
    const Batch batch = data::collate(dataset, std::span(rows).subspan(first, count),
                                      static_cast<std::size_t>(settings.max_seq_length), settings.pad_to_max_length,
                                      settings.pad_id, regression ? data::Target::kRegression : data::Target::kClass);
    batch.validate(model.config(), dataset.source);
    model.forward(batch, StepContext{.train = false});
    const std::span<const float> logits = model.logits();
    std::copy(logits.begin(), logits.end(), local.begin() + static_cast<std::ptrdiff_t>(first * labels));
  }

  std::vector<float> all(static_cast<std::size_t>(share * world * labels));
  comm.allgather(local, all);

  // k outer, rank inner: row k * world + r comes out in dataset order.
  Predictions predictions;
  double loss_sum = 0;
  for (std::int64_t k = 0; k < share; ++k) {
    for (std::int64_t r = 0; r < world; ++r) {
      const std::int64_t row = k * world + r;
      if (row >= n) continue;
      const std::span<const float> logits(all.data() + (r * share + k) * labels, static_cast<std::size_t>(labels));
      const data::Example& example = dataset.examples[static_cast<std::size_t>(row)];
      if (regression) {
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
  }
  EvalResult result;
  result.samples = n;
  result.loss = n > 0 ? loss_sum / static_cast<double>(n) : 0.0;
  result.metrics = task_metrics(settings.task_name, regression, labels, predictions);
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace shmtrain::train
