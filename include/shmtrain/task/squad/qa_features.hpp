#pragma once
// SQuAD examples -> model inputs, as run_qa.py's prepare_train_features and
// prepare_validation_features build them with BertTokenizerFast:
//   - the question, left-stripped, first; the context second; truncation of the context only
//     ("only_second"), in overlapping windows: with q question tokens, each window holds up to
//     room = max_seq_length - q - 3 context tokens and the next starts room - doc_stride tokens
//     later (tokenizers' overflowing tokens with stride), until one reaches the context's end;
//   - each window is [CLS] question [SEP] context-window [SEP], token types 0 then 1;
//   - the answer (the first gold answer) is labelled by walking the context tokens' character
//     offsets: start = the last token starting at or before the answer's first character,
//     end = the first token ending at or after its end; [CLS] (0) for both when the answer is
//     not wholly inside the window or the question has no answer.
// One deliberate difference: run_qa.py's start walk does not stop at the context's end, so when
// the answer starts in a window's last context token it runs through [SEP] and the padding
// (their offsets are (0, 0)) and labels the last position of the sequence. Here the walk stops
// at the last context token, which is the answer's start.
//
// Windows keep, for evaluation, the character span of each context token (run_qa sets the
// other tokens' offsets to None) and which example they came from.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "shmtrain/data/dataset.hpp"
#include "shmtrain/task/squad/squad_file.hpp"
#include "shmtrain/text/tokenizer.hpp"

namespace shmtrain::task {

struct QaFeatureOptions {
  std::size_t max_seq_length = 384;
  std::size_t doc_stride = 128;
  // run_qa's max_train_samples / max_eval_samples: the first N examples, then the first N
  // of their windows.
  std::optional<std::size_t> max_samples;
};

// The link of one window (feature) back to its text.
struct QaWindow {
  std::int64_t example = 0;             // index into SquadFile::examples
  std::int32_t context_begin = 0;       // position of the window's first context token
  std::vector<text::CharSpan> offsets;  // each context token's span of the context, in code points
};

// The questions and contexts, and each window's place in them: what run_qa's post-processing
// needs besides the logits.
struct SquadWindows {
  SquadFile file;
  std::vector<QaWindow> windows;  // windows[i] describes row i of the features' dataset
};

struct QaFeatures {
  data::Dataset dataset;  // one row per window: ids, token types, mask, start/end positions
  SquadWindows text;
};

// Tokenizes (in parallel; windows in example order) and labels every example of `file`.
// Throws InputError naming the file and the question id when a question leaves no room for
// the context (room <= 0) or no more room than doc_stride (room <= doc_stride: the windows
// would not advance), as the fast tokenizer refuses those.
QaFeatures build_qa_features(SquadFile file, const text::Tokenizer& tokenizer,
                             const QaFeatureOptions& options);

}  // namespace shmtrain::task
