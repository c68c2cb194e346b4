#include "shmtrain/model/batch_validation.hpp"

#include "shmtrain/common/error.hpp"

namespace shmtrain::model {

void validate_batch(const data::Batch& rows, const BertConfig& c, const std::string& source) {
  const auto& [batch, seq, input_ids, token_type_ids, attention_mask, labels, targets, start_positions,
               end_positions] = rows;
  const auto n = static_cast<std::size_t>(batch * seq);
  if (batch <= 0 || seq <= 0) fail_input("{}: empty batch ({} x {})", source, batch, seq);
  if (input_ids.size() != n || token_type_ids.size() != n || attention_mask.size() != n) {
    fail_input("{}: input_ids, token_type_ids and attention_mask must each hold {} x {} values", source,
               batch, seq);
  }
  if (seq > c.max_position_embeddings) {
    fail_input("{}: sequence length {} is above max_position_embeddings {}", source, seq,
               c.max_position_embeddings);
  }
  for (std::size_t i = 0; i < n; ++i) {
    if (input_ids[i] < 0 || input_ids[i] >= c.vocab_size) {
      fail_input("{}: row {}: token id {} is outside the vocabulary (vocab_size {})", source, i / seq,
                 input_ids[i], c.vocab_size);
    }
    if (c.has_token_types() && (token_type_ids[i] < 0 || token_type_ids[i] >= c.type_vocab_size)) {
      fail_input("{}: row {}: token type {} is outside [0, {})", source, i / seq, token_type_ids[i],
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
      if (start_positions[b] < 0 || start_positions[b] >= seq || end_positions[b] < 0 ||
          end_positions[b] >= seq) {
        fail_input("{}: row {}: answer positions {}..{} are outside the sequence [0, {})", source, b,
                   start_positions[b], end_positions[b], seq);
      }
    }
    return;
  }
  if (c.is_regression()) {
    if (!targets.empty() && targets.size() != static_cast<std::size_t>(batch)) {
      fail_input("{}: {} regression targets for {} rows", source, targets.size(), batch);
    }
    return;
  }
  if (!labels.empty() && labels.size() != static_cast<std::size_t>(batch)) {
    fail_input("{}: {} labels for {} rows", source, labels.size(), batch);
  }
  for (std::size_t b = 0; b < labels.size(); ++b) {
    if (labels[b] < 0 || labels[b] >= c.num_labels()) {
      fail_input("{}: row {}: label {} is outside [0, {})", source, b, labels[b], c.num_labels());
    }
  }
}

}  // namespace shmtrain::model
