#pragma once
// Tokenized examples in file order, and the label set they are classified into.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace shmtrain::data {

// One row of a data file, tokenized ([CLS] a [SEP] b [SEP], truncated, not padded).
// The three arrays have the same length T_i.
struct Example {
  std::vector<std::int32_t> input_ids;       // (T_i), not padded (pre-tokenized rows: as given)
  std::vector<std::int32_t> token_type_ids;  // (T_i)
  std::vector<std::int32_t> attention_mask;  // (T_i)
  std::int32_t label = -1;                   // class id (classification)
  float target = 0.0f;                       // regression target (LabelSet::regression)
  std::int32_t start_position = 0;           // question answering: the answer's first token
  std::int32_t end_position = 0;             // and its last ([CLS], 0, when not in the row)
  // Token classification: a label per token (T_i), kIgnoredLabel where no loss is taken
  // (special tokens, a word's later sub-tokens), as run_ner.py aligns them.
  std::vector<std::int32_t> token_labels = {};
  // Multiple choice: the choices' rows laid end to end in the three arrays above, choice c
  // being choice_lengths[c] tokens; label is the right choice. Empty elsewhere.
  std::vector<std::int32_t> choice_lengths = {};
  // Sentence embeddings: a key per text (a hash of the text as the file has it, before any
  // prompt), for --batch_sampler no_duplicates. Empty elsewhere.
  std::vector<std::uint64_t> text_keys = {};
  // Listwise reranking (Target::kList): a label per candidate, the candidates' (query,
  // document) rows laid out as choices are. Empty elsewhere.
  std::vector<float> choice_targets = {};
};

// PyTorch's CrossEntropyLoss ignore_index, the label of tokens that take no loss.
inline constexpr std::int32_t kIgnoredLabel = -100;

// What a dataset's rows teach the model: a class, a regression target, an answer span, or a
// class per token.
// Masked LM: the tokens to predict, a label per token (kIgnoredLabel elsewhere), drawn per batch
// by the task's masking or brought by pre-tokenized rows. Multiple choice: an example is its
// choices' rows (Example::choice_lengths) and its label the right choice.
// Sentence embeddings (kTexts): an example is its texts' rows (anchor, positive, negatives; or a
// scored pair's two sentences) laid out as multiple choice lays out its choices, and target its
// score where the data has one.
// Listwise reranking (kList): an example is a query's candidates, each a (query, document) row,
// laid out as choices are but any number of them per example, and a label per candidate
// (choice_targets).
enum class Target { kClass, kRegression, kSpan, kTokens, kMaskedTokens, kChoice, kTexts, kList };

struct Dataset {
  std::string source;  // the file read, for messages
  std::vector<Example> examples;
};

// The scripts' --max_train_samples / --max_eval_samples / --max_predict_samples: keeps the
// first `max_samples` rows (all when unset).
void keep_first(Dataset& dataset, std::optional<std::size_t> max_samples);

// The classes of a task, id -> name, as config.json's id2label; or a regression target.
struct LabelSet {
  bool regression = false;
  std::vector<std::string> names;  // id -> name, empty when regression

  // The id of `name`, or nullopt when it is not one of names.
  std::optional<std::int32_t> id_of(std::string_view name) const;
  std::int64_t num_labels() const { return regression ? 1 : static_cast<std::int64_t>(names.size()); }
};

}  // namespace shmtrain::data
