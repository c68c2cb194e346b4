#pragma once
// One batch of tokenized examples as the data module produces it (collate.hpp); the model
// checks it against its config (model/batch_validation.hpp). Two layouts:
// - padded: `batch` rows of `seq` tokens, row-major, attention_mask 0 on the padding;
// - packed (offsets not empty): the rows laid end to end without padding, row b being tokens
//   [offsets[b], offsets[b + 1]); seq is the longest row and attention_mask stays empty.
#include <cstdint>
#include <string>
#include <vector>

namespace shmtrain::data {

struct Batch {
  std::int64_t batch = 0;
  std::int64_t seq = 0;
  std::vector<std::int32_t> input_ids;       // (N): N = B * T padded, the rows' lengths summed packed
  std::vector<std::int32_t> token_type_ids;  // (N); ignored by models without token types
  std::vector<std::int32_t> attention_mask;  // padded (B, T): 1 token, 0 padding; packed: empty
  // Multiple choice: rows per example (rows [e * choices, (e + 1) * choices) are example e's
  // choices, in order); labels then holds one class id per example, the right choice. 0 elsewhere.
  std::int64_t choices = 0;
  // Listwise reranking: rows per example, examples of any size laid end to end (example e's
  // rows follow example e - 1's); targets then holds a label per row. Empty elsewhere.
  std::vector<std::int32_t> list_lengths;
  // (B) class ids, classification heads; token classification: (N) a class id per token of
  // the layout, kIgnoredLabel (-100, dataset.hpp) on tokens without a loss and on padding.
  std::vector<std::int32_t> labels;
  std::vector<float> targets;                // (B) regression targets (num_labels == 1)
  std::vector<std::int32_t> start_positions;  // (B) question answering: the answer's first token
  std::vector<std::int32_t> end_positions;    // (B) and its last token (both 0, [CLS], when absent)
  std::vector<std::int32_t> offsets;          // packed: (B + 1) row starts, from 0; padded: empty
  // (B) each row's index in its dataset: its dropout masks are drawn from it, so that they do
  // not depend on the worker or the batch a row lands in. Empty: rows numbered by the model.
  std::vector<std::int64_t> row_ids;
  // Token classification and masked LM: the factor on this batch's mean loss that makes the step's gradient
  // the mean over the labelled tokens of the whole global batch (every micro-batch of every
  // worker), whatever share of them this batch holds; 1 elsewhere.
  float loss_weight = 1.0f;

  bool packed() const { return !offsets.empty(); }
  // The tokens the model computes on: B * T padded, the real ones packed.
  std::int64_t tokens() const { return packed() ? offsets.back() : batch * seq; }
  // Row b's first token and its length (padded: the padding included).
  std::int64_t row_begin(std::int64_t b) const { return packed() ? offsets[b] : b * seq; }
  std::int64_t row_length(std::int64_t b) const { return packed() ? offsets[b + 1] - offsets[b] : seq; }
  // Row b's real tokens: all of a packed row, the unmasked ones of a padded row (all of it
  // without a mask). The useful-FLOP count and mean pooling read these, never the padding.
  std::int64_t real_length(std::int64_t b) const;
  // The batch's real tokens: real_length summed over its rows.
  std::int64_t real_tokens() const;
};

// Rows [first, first + count) of `batch` as a batch of their own, in the same layout: their
// tokens and masks (a packed slice's offsets from 0, its seq its longest row; a padded slice
// keeps the batch's seq), their row ids, and the per-row labels and targets (not token
// labels, question-answering positions or choices: the slice is for the encoder).
// REQUIRES: 0 <= first, first + count <= batch.batch.
Batch slice_rows(const Batch& batch, std::int64_t first, std::int64_t count);

}  // namespace shmtrain::data
