#pragma once
// A batch checked against the model it is for, before the model reads it.
#include <string>

#include "shmtrain/data/batch.hpp"
#include "shmtrain/model/bert_config.hpp"

namespace shmtrain::model {

// Throws InputError naming `source` and the first bad value: sizes, ids outside the
// vocabulary, token types (models that have them), sequence longer than the position table,
// labels or answer positions out of range.
void validate_batch(const data::Batch& batch, const BertConfig& config, const std::string& source);

}  // namespace shmtrain::model
