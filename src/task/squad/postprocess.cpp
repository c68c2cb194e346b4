#include "shmtrain/task/squad/postprocess.hpp"

#include <algorithm>
#include <numeric>
#include <optional>

#include <fmt/format.h>

#include "shmtrain/common/error.hpp"
#include "shmtrain/text/utf8.hpp"

namespace shmtrain::task {
namespace {

// The positions of the n largest values, largest first (np.argsort(x)[-1:-n-1:-1]; equal
// values by position).
std::vector<std::int64_t> top_positions(const float* logits, std::int64_t seq, std::int64_t n) {
  std::vector<std::int64_t> order(static_cast<std::size_t>(seq));
  std::iota(order.begin(), order.end(), std::int64_t{0});
  const auto count = static_cast<std::size_t>(std::min(n, seq));
  std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(count), order.end(),
                    [&](std::int64_t a, std::int64_t b) {
                      const float x = logits[2 * a];
                      const float y = logits[2 * b];
                      return x != y ? x > y : a < b;
                    });
  order.resize(count);
  return order;
}

// context[begin, end) in code points (Python's context[begin:end]), as UTF-8.
std::string slice_characters(std::string_view context, std::uint32_t begin, std::uint32_t end) {
  std::size_t byte = 0;
  std::uint32_t chars = 0;
  auto next = [&] {
    ++byte;
    while (byte < context.size() && text::is_utf8_continuation(context[byte])) ++byte;
    ++chars;
  };
  while (chars < begin && byte < context.size()) next();
  const std::size_t from = byte;
  while (chars < end && byte < context.size()) next();
  return std::string(context.substr(from, byte - from));
}

struct Best {
  float score;
  text::CharSpan span;
};

}  // namespace

std::vector<std::string> postprocess_qa_predictions(const SquadWindows& text,
                                                    std::span<const float> logits, std::int64_t seq,
                                                    const QaPostprocessOptions& options) {
  const std::size_t n_windows = text.windows.size();
  if (logits.size() != n_windows * static_cast<std::size_t>(seq) * 2) {
    throw Error(fmt::format("postprocess_qa_predictions: {} logits for {} windows of {} positions",
                            logits.size(), n_windows, seq));
  }
  std::vector<std::optional<Best>> best(text.file.examples.size());
  for (std::size_t w = 0; w < n_windows; ++w) {
    const QaWindow& window = text.windows[w];
    const float* row = logits.data() + w * static_cast<std::size_t>(seq) * 2;
    const std::int64_t first = window.context_begin;
    const std::int64_t last = first + static_cast<std::int64_t>(window.offsets.size()) - 1;
    const std::vector<std::int64_t> starts = top_positions(row, seq, options.n_best_size);
    const std::vector<std::int64_t> ends = top_positions(row + 1, seq, options.n_best_size);
    std::optional<Best>& answer = best[static_cast<std::size_t>(window.example)];
    for (const std::int64_t start : starts) {
      for (const std::int64_t end : ends) {
        if (start < first || start > last || end < first || end > last) continue;  // offsets None
        if (end < start || end - start + 1 > options.max_answer_length) continue;
        const float score = row[2 * start] + row[2 * end + 1];
        if (answer && !(score > answer->score)) continue;  // a tie keeps the earlier candidate
        answer = Best{score,
                      {window.offsets[static_cast<std::size_t>(start - first)].begin,
                       window.offsets[static_cast<std::size_t>(end - first)].end}};
      }
    }
  }
  std::vector<std::string> predictions;
  predictions.reserve(best.size());
  for (std::size_t e = 0; e < best.size(); ++e) {
    if (!best[e]) {
      predictions.emplace_back("empty");  // run_qa's answer when no span qualifies
      continue;
    }
    const std::string& context = text.file.context_of(text.file.examples[e]);
    predictions.push_back(slice_characters(context, best[e]->span.begin, best[e]->span.end));
  }
  return predictions;
}

}  // namespace shmtrain::task
