#include "shmtrain/train/qa_evaluate.hpp"

#include <algorithm>
#include <chrono>

#include "shmtrain/data/collate.hpp"

namespace shmtrain::train {
namespace {

// What positions past a batch's padded length get, as run_qa's create_and_fill_np_array.
constexpr float kMissingLogit = -100.0f;

}  // namespace

QaEvalResult evaluate_qa(EncoderModel& model, const data::Dataset& features, const data::SquadWindows& text,
                         const QaEvalSettings& settings, comm::Communicator& comm) {
  const auto start = std::chrono::steady_clock::now();
  const auto n = static_cast<std::int64_t>(features.examples.size());
  const std::int64_t world = comm.size();
  const std::int64_t rank = comm.rank();
  const std::int64_t seq = settings.max_seq_length;
  const std::int64_t row_floats = seq * 2;
  // Every worker evaluates `share` rows (the last ones may be past the end: left as filler),
  // so the gather has equal sizes.
  const std::int64_t share = (n + world - 1) / world;
  std::vector<float> local(static_cast<std::size_t>(share * row_floats), kMissingLogit);
  std::vector<std::int64_t> rows;
  for (std::int64_t k = 0; k < share && k * world + rank < n; ++k) rows.push_back(k * world + rank);

  for (std::size_t first = 0; first < rows.size(); first += static_cast<std::size_t>(settings.batch_size)) {
    const std::size_t count =
        std::min<std::size_t>(static_cast<std::size_t>(settings.batch_size), rows.size() - first);
    const Batch batch =
        data::collate(features, std::span(rows).subspan(first, count), static_cast<std::size_t>(seq),
                      settings.pad_to_max_length, settings.pad_id, data::Target::kSpan);
    batch.validate(model.config(), features.source);
    model.forward(batch, StepContext{.train = false});
    const std::span<const float> logits = model.logits();  // (count, batch.seq, 2)
    for (std::size_t b = 0; b < count; ++b) {
      std::copy_n(logits.begin() + static_cast<std::ptrdiff_t>(b * batch.seq * 2), batch.seq * 2,
                  local.begin() + static_cast<std::ptrdiff_t>((first + b) * row_floats));
    }
  }

  std::vector<float> all(static_cast<std::size_t>(share * world * row_floats));
  comm.allgather(local, all);
  // Row k * world + r sits at (r * share + k): put the windows back in dataset order.
  std::vector<float> ordered(static_cast<std::size_t>(n * row_floats));
  for (std::int64_t row = 0; row < n; ++row) {
    const std::int64_t r = row % world;
    const std::int64_t k = row / world;
    std::copy_n(all.begin() + (r * share + k) * row_floats, row_floats, ordered.begin() + row * row_floats);
  }

  QaEvalResult result;
  result.predictions = postprocess_qa_predictions(text, ordered, seq, settings.postprocess);
  std::vector<std::vector<std::string>> golds;
  golds.reserve(text.file.examples.size());
  for (const data::SquadExample& example : text.file.examples) {
    std::vector<std::string>& answers = golds.emplace_back();
    for (const data::SquadAnswer& answer : example.answers) answers.push_back(answer.text);
  }
  result.scores = squad_scores(result.predictions, golds);
  result.samples = n;
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace shmtrain::train
