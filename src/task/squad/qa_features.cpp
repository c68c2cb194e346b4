#include "shmtrain/task/squad/qa_features.hpp"

#include <algorithm>
#include <mutex>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include "shmtrain/common/error.hpp"
#include "shmtrain/text/unicode_rules.hpp"
#include "shmtrain/text/utf8.hpp"

namespace shmtrain::task {

using data::Example;
namespace {

using text::CharSpan;

// Python's str.lstrip(): drops leading whitespace (str.isspace: the Unicode White_Space
// characters and the ASCII separators \x1c-\x1f).
std::string_view lstrip(std::string_view s) {
  std::size_t pos = 0;
  while (pos < s.size()) {
    char32_t cp;
    const std::size_t length = text::decode_utf8(s, pos, cp);
    if (length == 0) break;  // the tokenizer reports invalid UTF-8
    if (!text::is_bert_whitespace(cp) && !(cp >= 0x1C && cp <= 0x1F)) break;
    pos += length;
  }
  return s.substr(pos);
}

struct Tokens {
  std::vector<std::int32_t> ids;
  std::vector<CharSpan> offsets;
};

// The start and end positions of the answer [start_char, end_char) in one window whose
// context tokens are at [first, last] with `offsets` (of the window's context tokens).
std::pair<std::int32_t, std::int32_t> label_window(const std::vector<CharSpan>& offsets, std::int32_t first,
                                                   std::int64_t start_char, std::int64_t end_char) {
  if (offsets.empty()) return {0, 0};
  const auto n = static_cast<std::int32_t>(offsets.size());
  if (!(offsets.front().begin <= start_char && offsets.back().end >= end_char)) return {0, 0};
  std::int32_t i = 0;
  while (i < n && offsets[i].begin <= start_char) ++i;
  std::int32_t j = n - 1;
  while (j >= 0 && offsets[j].end >= end_char) --j;
  return {first + i - 1, first + j + 1};
}

}  // namespace

QaFeatures build_qa_features(SquadFile file, const text::Tokenizer& tokenizer,
                             const QaFeatureOptions& options) {
  QaFeatures out;
  out.dataset.source = file.source;
  if (options.max_samples && file.examples.size() > *options.max_samples)
    file.examples.resize(*options.max_samples);
  const std::size_t n_examples = file.examples.size();

  // Contexts are shared by their questions: each is tokenized once.
  std::vector<Tokens> contexts(file.contexts.size());
  std::vector<std::vector<std::int32_t>> questions(n_examples);
  std::mutex mutex;
  std::size_t first_bad = n_examples + file.contexts.size();
  std::string first_message;
  auto record_error = [&](std::size_t rank, std::string message) {
    const std::lock_guard lock(mutex);
    if (rank < first_bad) {
      first_bad = rank;
      first_message = std::move(message);
    }
  };
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, file.contexts.size(), 64),
                    [&](const tbb::blocked_range<std::size_t>& range) {
                      for (std::size_t c = range.begin(); c != range.end(); ++c) {
                        try {
                          tokenizer.tokenize_with_offsets(file.contexts[c], contexts[c].ids,
                                                          contexts[c].offsets, "context");
                        } catch (const InputError& e) {
                          record_error(c, fmt::format("{}: context {}: {}", file.source, c + 1, e.what()));
                        }
                      }
                    });
  tbb::parallel_for(
      tbb::blocked_range<std::size_t>(0, n_examples, 256), [&](const tbb::blocked_range<std::size_t>& range) {
        for (std::size_t i = range.begin(); i != range.end(); ++i) {
          try {
            tokenizer.tokenize(lstrip(file.examples[i].question), questions[i], "question");
          } catch (const InputError& e) {
            record_error(file.contexts.size() + i,
                         fmt::format("{}: question '{}': {}", file.source, file.examples[i].id, e.what()));
          }
        }
      });
  if (!first_message.empty()) throw InputError(first_message);

  const std::size_t max_length = options.max_seq_length;
  const std::size_t specials = tokenizer.num_special_tokens(true);
  text::Encoding assembled;
  for (std::size_t i = 0; i < n_examples; ++i) {
    const SquadExample& example = file.examples[i];
    const std::vector<std::int32_t>& question = questions[i];
    const Tokens& context = contexts[example.context];
    const std::size_t n_context = context.ids.size();
    const std::size_t fixed = question.size() + specials;  // [CLS] question [SEP] ... [SEP], <s> q </s></s> ... </s>
    std::size_t room = n_context;
    if (fixed + n_context > max_length) {
      room = max_length > fixed ? max_length - fixed : 0;
      if (room <= options.doc_stride) {
        fail_input(
            "{}: question '{}' has {} tokens, which leaves {} of max_seq_length {} for its context: "
            "fewer than doc_stride {} + 1, so the context cannot be cut into windows; raise "
            "--max_seq_length or lower --doc_stride",
            file.source, example.id, question.size(), room, max_length, options.doc_stride);
      }
    }
    std::int64_t start_char = -1;
    std::int64_t end_char = -1;
    if (!example.answers.empty()) {
      start_char = example.answers.front().answer_start;
      end_char =
          start_char + static_cast<std::int64_t>(text::count_code_points(example.answers.front().text));
    }
    for (std::size_t begin = 0;; begin += room - options.doc_stride) {
      const std::size_t end = std::min(begin + room, n_context);
      Example& row = out.dataset.examples.emplace_back();
      const auto window_ids = std::span<const std::int32_t>(context.ids).subspan(begin, end - begin);
      const auto context_begin = static_cast<std::int32_t>(tokenizer.assemble(question, window_ids, assembled));
      row.input_ids = assembled.input_ids;
      row.token_type_ids = assembled.token_type_ids;
      row.attention_mask = assembled.attention_mask;

      QaWindow& window = out.text.windows.emplace_back();
      window.example = static_cast<std::int64_t>(i);
      window.context_begin = context_begin;
      window.offsets.assign(context.offsets.begin() + static_cast<std::ptrdiff_t>(begin),
                            context.offsets.begin() + static_cast<std::ptrdiff_t>(end));
      // A question without answers (SQuAD 2.0's unanswerable ones) keeps start = end = 0: run_qa's
      // cls_index, the position of [CLS] / <s>, which assemble() puts first.
      if (start_char >= 0) {
        std::tie(row.start_position, row.end_position) =
            label_window(window.offsets, context_begin, start_char, end_char);
      }
      if (end >= n_context) break;
    }
  }
  if (options.max_samples && out.text.windows.size() > *options.max_samples) {
    out.text.windows.resize(*options.max_samples);
    out.dataset.examples.resize(*options.max_samples);
  }
  out.text.file = std::move(file);
  return out;
}

}  // namespace shmtrain::task
