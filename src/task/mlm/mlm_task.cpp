#include "shmtrain/task/mlm/mlm_task.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "shmtrain/common/error.hpp"

namespace shmtrain::task {
namespace {

// How the vocabulary marks words: WordPiece's "##" continuations, or byte-level BPE's "Ġ" and
// SentencePiece's "▁" word starts, whichever its tokens carry most.
data::TokenClasses token_classes(const text::Tokenizer& tokenizer, bool whole_word, std::string& marks) {
  const auto n = static_cast<std::int32_t>(tokenizer.vocab_size());
  data::TokenClasses classes;
  classes.special.assign(static_cast<std::size_t>(n), 0);
  for (const std::int32_t id : tokenizer.special_ids()) {
    if (id >= 0 && id < n) classes.special[static_cast<std::size_t>(id)] = 1;
  }
  if (!whole_word) return classes;
  std::vector<std::int32_t> ids(static_cast<std::size_t>(n));
  for (std::int32_t i = 0; i < n; ++i) ids[static_cast<std::size_t>(i)] = i;
  const std::vector<std::string> tokens = tokenizer.tokens(ids);
  const std::array<data::WordMarks, 3> kinds = {data::WordMarks::kWordPiece, data::WordMarks::kByteLevel,
                                                data::WordMarks::kMetaspace};
  const std::array<const char*, 3> prefixes = {"##", "\u0120", "\u2581"};
  const std::array<const char*, 3> names = {"WordPiece ##", "byte-level \u0120", "SentencePiece \u2581"};
  std::array<std::size_t, 3> counts{};
  for (const std::string& token : tokens) {
    for (std::size_t k = 0; k < 3; ++k) counts[k] += token.starts_with(prefixes[k]);
  }
  const std::size_t best = static_cast<std::size_t>(std::max_element(counts.begin(), counts.end()) - counts.begin());
  classes.continuation.assign(static_cast<std::size_t>(n), 0);
  if (counts[best] == 0) {
    marks = "no word marks: every token a word";
    return classes;
  }
  marks = names[best];
  for (std::size_t id = 0; id < tokens.size(); ++id) {
    classes.continuation[id] = classes.special[id] == 0 && data::continues_word(tokens[id], kinds[best]);
  }
  return classes;
}

}  // namespace

std::unique_ptr<Task> MlmTask::load(const TaskOptions& options, const text::Tokenizer& tokenizer, bool need_train,
                                    bool need_eval) {
  if (!options.data_dir.empty()) {
    fail_input("--task_name mlm reads --train_file/--validation_file or --dataset_name, not --data_dir");
  }
  if (!(options.mlm_probability >= 0.0 && options.mlm_probability <= 1.0)) {
    fail_input("--mlm_probability {} is not in [0, 1]", options.mlm_probability);
  }
  if (options.validation_split_percentage < 0 || options.validation_split_percentage > 100) {
    fail_input("--validation_split_percentage {} is not in [0, 100]", options.validation_split_percentage);
  }
  const DatasetSplits* hub = options.dataset ? &*options.dataset : nullptr;
  const bool has_train = hub ? !hub->train.empty() : !options.train_file.empty();
  const bool has_validation = hub ? !hub->validation.empty() : !options.validation_file.empty();
  if ((need_train || (need_eval && !has_validation)) && !has_train) {
    fail_input("--task_name mlm needs --train_file (a .txt, .csv, .json/.jsonl or .parquet file) or --dataset_name");
  }
  auto task = std::make_unique<MlmTask>();
  task->name_ = "mlm";
  task->line_by_line_ = options.line_by_line;
  task->seed_ = options.seed;
  task->rule_ = {options.mlm_probability, tokenizer.mask_id(), static_cast<std::int32_t>(tokenizer.vocab_size()),
                 options.whole_word_mask};
  if (task->rule_.mask_id < 0) {
    fail_input("{}: the tokenizer has no mask token ([MASK] or <mask>), which masked-LM training needs",
               tokenizer.source());
  }
  task->classes_ = token_classes(tokenizer, options.whole_word_mask, task->marks_);

  std::optional<MlmSource> train, validation;
  if (need_train || (need_eval && !has_validation)) {
    train = read_mlm_source(hub ? &hub->train : nullptr, options.train_file, "--train_file");
  }
  if (need_eval && has_validation) {
    validation = read_mlm_source(hub ? &hub->validation : nullptr, options.validation_file, "--validation_file");
  } else if (need_eval) {  // run_mlm: validation = train[:p%], train = train[p%:]
    const std::size_t n = source_rows(*train);
    const auto cut = static_cast<std::size_t>(
        std::nearbyint(static_cast<double>(options.validation_split_percentage) * static_cast<double>(n) / 100.0));
    validation = slice_source(*train, 0, cut);
    validation->source = fmt::format("{} (its first {}%)", train->source, options.validation_split_percentage);
    train = slice_source(*train, cut, n);
  }
  const auto rows = [&](const MlmSource& source, const std::optional<std::size_t>& max_samples, const char* what) {
    data::Dataset dataset = mlm_rows(source, tokenizer, options.max_seq_length, options.line_by_line);
    data::keep_first(dataset, max_samples);
    if (dataset.examples.empty()) {
      fail_input("{}: no {} rows: {}", source.source, what,
                 options.line_by_line ? "every line is blank"
                                      : fmt::format("the texts hold fewer than max_seq_length ({}) tokens per 1,000 "
                                                    "lines (run_mlm's group_texts drops each batch's remainder)",
                                                    options.max_seq_length));
    }
    return dataset;
  };
  if (need_train) task->train_ = rows(*train, options.max_train_samples, "training");
  if (need_eval) task->validation_ = rows(*validation, options.max_eval_samples, "evaluation");
  return task;
}

std::string MlmTask::describe_labels() const {
  return fmt::format("masked LM ({:g} of the tokens{})", rule_.probability,
                     rule_.whole_word ? fmt::format(", whole words by {}", marks_) : std::string());
}

void MlmTask::prepare_batch(data::Batch& batch, std::uint64_t epoch) const {
  data::mask_batch(batch, rule_, classes_, seed_, epoch);
}

Metrics MlmTask::score(const ModelOutputs& outputs, const std::filesystem::path& /*output_dir*/) const {
  double loss = 0, count = 0, hits = 0;
  const auto rows = static_cast<std::size_t>(outputs.values.size() / static_cast<std::size_t>(outputs.width));
  for (std::size_t row = 0; row < rows; ++row) {
    loss += outputs.values[row * 3];
    count += outputs.values[row * 3 + 1];
    hits += outputs.values[row * 3 + 2];
  }
  const double mean = count > 0 ? loss / count : 0.0;
  // run_mlm: perplexity = math.exp(eval_loss), inf on overflow.
  const double perplexity = mean > std::log(std::numeric_limits<double>::max()) ? std::numeric_limits<double>::infinity()
                                                                                 : std::exp(mean);
  return {{"loss", mean}, {"accuracy", count > 0 ? hits / count : 0.0}, {"perplexity", perplexity}};
}

}  // namespace shmtrain::task
