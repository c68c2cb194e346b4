#pragma once
// One batch of tokenized examples, row-major (batch, seq), as the data module produces it
// (collate.hpp); the model checks it against its config (model/batch_validation.hpp).
#include <cstdint>
#include <string>
#include <vector>

namespace shmtrain::data {

struct Batch {
  std::int64_t batch = 0;
  std::int64_t seq = 0;
  std::vector<std::int32_t> input_ids;       // (B, T)
  std::vector<std::int32_t> token_type_ids;  // (B, T); ignored by models without token types
  std::vector<std::int32_t> attention_mask;  // (B, T): 1 token, 0 padding
  std::vector<std::int32_t> labels;          // (B) class ids, classification heads
  std::vector<float> targets;                // (B) regression targets (num_labels == 1)
  std::vector<std::int32_t> start_positions;  // (B) question answering: the answer's first token
  std::vector<std::int32_t> end_positions;    // (B) and its last token (both 0, [CLS], when absent)
};

}  // namespace shmtrain::data
