#include "shmtrain/task/squad/postprocess.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
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

// A candidate before its text is cut (utils_qa's prelim_predictions entries).
struct Prelim {
  float score;
  float start_logit;
  float end_logit;
  text::CharSpan span;  // characters of the context; the null candidate's is (0, 0)
};

// NumPy's pairwise summation (pairwise_sum in its loops_utils), which np.sum uses over a
// contiguous array, in T: the sums of eight interleaved lanes combined as a tree, blocks of
// 128 split in halves.
template <typename T>
T pairwise_sum(const T* a, std::size_t n) {
  if (n < 8) {
    T sum = 0;
    for (std::size_t i = 0; i < n; ++i) sum += a[i];
    return sum;
  }
  if (n <= 128) {
    T r[8];
    for (std::size_t j = 0; j < 8; ++j) r[j] = a[j];
    std::size_t i = 8;
    for (; i < n - n % 8; i += 8) {
      for (std::size_t j = 0; j < 8; ++j) r[j] += a[i + j];
    }
    T sum = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
    for (; i < n; ++i) sum += a[i];
    return sum;
  }
  std::size_t half = n / 2;
  half -= half % 8;
  return pairwise_sum(a, half) + pairwise_sum(a + half, n - half);
}

// softmax(scores) as utils_qa computes it with NumPy in T: exp(s - max) / sum.
template <typename T>
std::vector<double> softmax(const std::vector<T>& scores) {
  const T top = *std::max_element(scores.begin(), scores.end());
  std::vector<T> exps(scores.size());
  for (std::size_t i = 0; i < scores.size(); ++i) exps[i] = std::exp(static_cast<T>(scores[i] - top));
  const T sum = static_cast<T>(T{0} + pairwise_sum(exps.data(), exps.size()));
  std::vector<double> probabilities(scores.size());
  for (std::size_t i = 0; i < scores.size(); ++i)
    probabilities[i] = static_cast<double>(static_cast<T>(exps[i] / sum));
  return probabilities;
}

// Sort key of a score: NaN (a diverged model) sorts last, so the order stays strict and weak.
float sort_key(float score) { return std::isnan(score) ? -std::numeric_limits<float>::infinity() : score; }

QaPrediction predict_question(const SquadWindows& text, std::span<const std::size_t> windows,
                              std::span<const float> logits, std::int64_t seq,
                              const QaPostprocessOptions& options, const std::string& context) {
  std::vector<Prelim> prelim;
  std::optional<Prelim> min_null;
  for (const std::size_t w : windows) {
    const QaWindow& window = text.windows[w];
    const float* row = logits.data() + w * static_cast<std::size_t>(seq) * 2;
    const float null_score = row[0] + row[1];
    if (!min_null || min_null->score > null_score) min_null = Prelim{null_score, row[0], row[1], {0, 0}};
    const std::int64_t first = window.context_begin;
    const std::int64_t last = first + static_cast<std::int64_t>(window.offsets.size()) - 1;
    const std::vector<std::int64_t> starts = top_positions(row, seq, options.n_best_size);
    const std::vector<std::int64_t> ends = top_positions(row + 1, seq, options.n_best_size);
    for (const std::int64_t start : starts) {
      for (const std::int64_t end : ends) {
        if (start < first || start > last || end < first || end > last) continue;  // offsets None
        if (end < start || end - start + 1 > options.max_answer_length) continue;
        prelim.push_back({row[2 * start] + row[2 * end + 1],
                          row[2 * start],
                          row[2 * end + 1],
                          {window.offsets[static_cast<std::size_t>(start - first)].begin,
                           window.offsets[static_cast<std::size_t>(end - first)].end}});
      }
    }
  }
  const bool with_null = options.version_2_with_negative && min_null.has_value();
  if (with_null) prelim.push_back(*min_null);
  std::stable_sort(prelim.begin(), prelim.end(),
                   [](const Prelim& a, const Prelim& b) { return sort_key(a.score) > sort_key(b.score); });
  if (prelim.size() > static_cast<std::size_t>(options.n_best_size))
    prelim.resize(static_cast<std::size_t>(options.n_best_size));
  // utils_qa recognises the null by its offsets (0, 0).
  const auto is_null = [](const Prelim& p) { return p.span.begin == 0 && p.span.end == 0; };
  if (with_null && std::none_of(prelim.begin(), prelim.end(), is_null)) prelim.push_back(*min_null);

  QaPrediction out;
  for (const Prelim& p : prelim) {
    out.nbest.push_back(
        {slice_characters(context, p.span.begin, p.span.end), p.start_logit, p.end_logit, 0.0, false});
  }
  const bool placeholder = out.nbest.empty() || (out.nbest.size() == 1 && out.nbest[0].text.empty());
  if (placeholder) out.nbest.insert(out.nbest.begin(), QaCandidate{"empty", 0.0f, 0.0f, 0.0, true});
  std::vector<double> probabilities;
  if (placeholder) {  // NumPy's array of 0.0 and float32 scores is float64
    std::vector<double> scores{0.0};
    for (const Prelim& p : prelim) scores.push_back(static_cast<double>(p.score));
    probabilities = softmax(scores);
  } else {
    std::vector<float> scores;
    for (const Prelim& p : prelim) scores.push_back(p.score);
    probabilities = softmax(scores);
  }
  for (std::size_t i = 0; i < out.nbest.size(); ++i) out.nbest[i].probability = probabilities[i];

  if (!with_null) {
    out.answer = out.nbest.front().text;
    return out;
  }
  const auto best =
      std::find_if(out.nbest.begin(), out.nbest.end(), [](const QaCandidate& c) { return !c.text.empty(); });
  // utils_qa cannot get here without a non-empty candidate: "empty" goes first when only the
  // null is left. Candidates whose tokens span no character would; they answer "".
  if (best == out.nbest.end()) {
    out.answer = "";
    out.score_diff = static_cast<double>(min_null->score);
    return out;
  }
  const double score_diff = best->placeholder
                                ? static_cast<double>(min_null->score)
                                : static_cast<double>(min_null->score - best->start_logit - best->end_logit);
  out.score_diff = score_diff;
  out.answer = score_diff > options.null_score_diff_threshold ? std::string() : best->text;
  return out;
}

}  // namespace

std::vector<QaPrediction> postprocess_qa(const SquadWindows& text, std::span<const float> logits,
                                         std::int64_t seq, const QaPostprocessOptions& options) {
  const std::size_t n_windows = text.windows.size();
  if (logits.size() != n_windows * static_cast<std::size_t>(seq) * 2) {
    throw Error(fmt::format("postprocess_qa_predictions: {} logits for {} windows of {} positions",
                            logits.size(), n_windows, seq));
  }
  std::vector<std::vector<std::size_t>> windows_of(text.file.examples.size());
  for (std::size_t w = 0; w < n_windows; ++w)
    windows_of[static_cast<std::size_t>(text.windows[w].example)].push_back(w);
  std::vector<QaPrediction> predictions;
  predictions.reserve(windows_of.size());
  for (std::size_t e = 0; e < windows_of.size(); ++e) {
    predictions.push_back(predict_question(text, windows_of[e], logits, seq, options,
                                           text.file.context_of(text.file.examples[e])));
  }
  return predictions;
}

std::vector<std::string> postprocess_qa_predictions(const SquadWindows& text, std::span<const float> logits,
                                                    std::int64_t seq, const QaPostprocessOptions& options) {
  std::vector<std::string> answers;
  for (QaPrediction& prediction : postprocess_qa(text, logits, seq, options))
    answers.push_back(std::move(prediction.answer));
  return answers;
}

}  // namespace shmtrain::task
