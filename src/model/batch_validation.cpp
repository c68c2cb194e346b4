#include "shmtrain/model/batch_validation.hpp"

#include <algorithm>
#include <tuple>

#include "shmtrain/common/error.hpp"
#include "shmtrain/data/dataset.hpp"

namespace shmtrain::model {
namespace {

// The layout's own sizes: padded B x T cells, or packed offsets that cover the tokens.
void validate_layout(const data::Batch& rows, const std::string& source) {
  if (rows.batch <= 0 || rows.seq <= 0) fail_input("{}: empty batch ({} x {})", source, rows.batch, rows.seq);
  if (!rows.row_ids.empty() && rows.row_ids.size() != static_cast<std::size_t>(rows.batch)) {
    fail_input("{}: {} row ids for {} rows", source, rows.row_ids.size(), rows.batch);
  }
  if (!rows.packed()) {
    const auto n = static_cast<std::size_t>(rows.batch * rows.seq);
    if (rows.input_ids.size() != n || rows.token_type_ids.size() != n || rows.attention_mask.size() != n) {
      fail_input("{}: input_ids, token_type_ids and attention_mask must each hold {} x {} values", source,
                 rows.batch, rows.seq);
    }
    return;
  }
  if (rows.offsets.size() != static_cast<std::size_t>(rows.batch + 1) || rows.offsets.front() != 0) {
    fail_input("{}: a packed batch of {} rows needs {} offsets from 0", source, rows.batch, rows.batch + 1);
  }
  for (std::int64_t b = 0; b < rows.batch; ++b) {
    if (rows.row_length(b) <= 0 || rows.row_length(b) > rows.seq) {
      fail_input("{}: row {}: length {} is outside [1, {}] (the batch's longest row)", source, b,
                 rows.row_length(b), rows.seq);
    }
  }
  const auto n = static_cast<std::size_t>(rows.tokens());
  if (rows.input_ids.size() != n || rows.token_type_ids.size() != n || !rows.attention_mask.empty()) {
    fail_input("{}: a packed batch needs {} input_ids and token_type_ids and no attention_mask", source, n);
  }
}

// The row a token index of either layout belongs to.
std::int64_t row_of(const data::Batch& rows, std::size_t token) {
  if (!rows.packed()) return static_cast<std::int64_t>(token) / rows.seq;
  const auto after =
      std::upper_bound(rows.offsets.begin(), rows.offsets.end(), static_cast<std::int32_t>(token));
  return static_cast<std::int64_t>(after - rows.offsets.begin()) - 1;
}

}  // namespace

void validate_batch(const data::Batch& rows, const BertConfig& c, const std::string& source) {
  validate_layout(rows, source);
  const std::int64_t batch = rows.batch;
  const std::int64_t seq = rows.seq;
  const std::int64_t choices = rows.choices;
  const auto& [input_ids, token_type_ids, labels, targets, start_positions, end_positions] =
      std::tie(rows.input_ids, rows.token_type_ids, rows.labels, rows.targets, rows.start_positions,
               rows.end_positions);
  const auto n = static_cast<std::size_t>(rows.tokens());
  if (seq > c.max_sequence_length()) {
    fail_input("{}: sequence length {} is above the {} positions of max_position_embeddings {}", source, seq,
               c.max_sequence_length(), c.max_position_embeddings);
  }
  for (std::size_t i = 0; i < n; ++i) {
    if (input_ids[i] < 0 || input_ids[i] >= c.vocab_size) {
      fail_input("{}: row {}: token id {} is outside the vocabulary (vocab_size {})", source, row_of(rows, i),
                 input_ids[i], c.vocab_size);
    }
    if (c.has_token_types() && (token_type_ids[i] < 0 || token_type_ids[i] >= c.type_vocab_size)) {
      fail_input("{}: row {}: token type {} is outside [0, {})", source, row_of(rows, i), token_type_ids[i],
                 c.type_vocab_size);
    }
  }
  if (c.head == ModelHead::kQuestionAnswering) {
    if (start_positions.size() != end_positions.size() ||
        (!start_positions.empty() && start_positions.size() != static_cast<std::size_t>(batch))) {
      fail_input("{}: {} start and {} end positions for {} rows", source, start_positions.size(),
                 end_positions.size(), batch);
    }
    for (std::size_t b = 0; b < start_positions.size(); ++b) {
      const std::int64_t length = rows.row_length(static_cast<std::int64_t>(b));
      if (start_positions[b] < 0 || start_positions[b] >= length || end_positions[b] < 0 ||
          end_positions[b] >= length) {
        fail_input("{}: row {}: answer positions {}..{} are outside the sequence [0, {})", source, b,
                   start_positions[b], end_positions[b], length);
      }
    }
    return;
  }
  if (c.is_regression()) {
    if (!rows.list_lengths.empty()) {  // listwise: whole lists, a label per row
      std::int64_t listed = 0;
      for (const std::int32_t length : rows.list_lengths) {
        if (length < 1) fail_input("{}: a list of {} candidates", source, length);
        listed += length;
      }
      if (listed != batch) fail_input("{}: lists of {} candidates in all for {} rows", source, listed, batch);
    }
    if (!targets.empty() && targets.size() != static_cast<std::size_t>(batch)) {
      fail_input("{}: {} regression targets for {} rows", source, targets.size(), batch);
    }
    return;
  }
  if (c.head == ModelHead::kTokenClassification || c.head == ModelHead::kMaskedLm) {
    // Masked LM: a label is the token to predict, an id of the vocabulary.
    const std::int64_t classes = c.head_outputs();
    const char* what = c.head == ModelHead::kMaskedLm ? "masked-LM label" : "token label";
    if (!labels.empty() && labels.size() != n) fail_input("{}: {} {}s for {} tokens", source, labels.size(), what, n);
    for (std::size_t i = 0; i < labels.size(); ++i) {
      if (labels[i] != data::kIgnoredLabel && (labels[i] < 0 || labels[i] >= classes)) {
        fail_input("{}: row {}: {} {} is outside [0, {})", source, row_of(rows, i), what, labels[i], classes);
      }
    }
    return;
  }
  if (c.head == ModelHead::kSentenceEmbedding) {  // an example's texts as rows; a score per example
    if (choices < 1 || batch % choices != 0) {
      fail_input("{}: {} rows are not whole examples of {} texts", source, batch, choices);
    }
    if (!targets.empty() && targets.size() != static_cast<std::size_t>(batch / choices)) {
      fail_input("{}: {} scores for {} examples", source, targets.size(), batch / choices);
    }
    return;
  }
  std::int64_t examples = batch;
  std::int64_t classes = c.num_labels();
  if (c.head == ModelHead::kMultipleChoice) {  // a label per example: the index of its right choice
    if (choices < 1 || batch % choices != 0) {
      fail_input("{}: {} rows are not whole examples of {} choices", source, batch, choices);
    }
    examples = batch / choices;
    classes = choices;
  }
  if (!labels.empty() && labels.size() != static_cast<std::size_t>(examples)) {
    fail_input("{}: {} labels for {} {}", source, labels.size(), examples,
               c.head == ModelHead::kMultipleChoice ? "examples" : "rows");
  }
  for (std::size_t b = 0; b < labels.size(); ++b) {
    if (labels[b] < 0 || labels[b] >= classes) {
      fail_input("{}: {} {}: label {} is outside [0, {})", source,
                 c.head == ModelHead::kMultipleChoice ? "example" : "row", b, labels[b], classes);
    }
  }
}

}  // namespace shmtrain::model
