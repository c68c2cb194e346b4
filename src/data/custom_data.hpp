#pragma once
// Internal to data: the user's own files (--train_file, --validation_file), read as
// run_glue.py reads them (task_data.hpp states the rules).
#include "shmtrain/data/task_data.hpp"

namespace shmtrain::data {

// REQUIRES: options.train_file set, and options.validation_file when need_eval.
TaskData load_custom_data(const DataOptions& options, const text::BertTokenizer& tokenizer, bool need_train,
                          bool need_eval);

}  // namespace shmtrain::data
