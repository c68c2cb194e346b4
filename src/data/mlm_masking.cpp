#include "shmtrain/data/mlm_masking.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "shmtrain/common/error.hpp"
#include "split_mix.hpp"

namespace shmtrain::data {
namespace {

constexpr std::int32_t kIgnored = -100;
constexpr double kMaskShare = 0.8;            // of the chosen: the mask token
constexpr double kRandomShare = 0.5;          // of the rest: a random id (so 10% of the chosen)
constexpr std::size_t kMaxPredictions = 512;  // DataCollatorForWholeWordMask's max_predictions

// One generator per (seed, row, epoch): each input mixed in turn, so nearby rows and epochs
// start far apart.
SplitMix64 row_generator(std::uint64_t seed, std::uint64_t row_id, std::uint64_t epoch) {
  SplitMix64 mix(seed);
  mix = SplitMix64(mix.next() ^ row_id);
  mix = SplitMix64(mix.next() ^ epoch);
  return SplitMix64(mix.next());
}

// DataCollatorForWholeWordMask._whole_word_mask: which tokens are chosen.
std::vector<std::uint8_t> choose_whole_words(std::span<const std::uint8_t> special,
                                             std::span<const std::uint8_t> continuation, double probability,
                                             SplitMix64& random) {
  const std::size_t n = special.size();
  std::vector<std::vector<std::size_t>> words;
  for (std::size_t i = 0; i < n; ++i) {
    if (special[i] != 0) continue;
    if (!words.empty() && continuation[i] != 0) {
      words.back().push_back(i);
    } else {
      words.push_back({i});
    }
  }
  // random.shuffle: Fisher-Yates from the last.
  for (std::size_t i = words.size(); i > 1; --i) std::swap(words[i - 1], words[random.below(i)]);
  const double target = static_cast<double>(n) * probability;
  const auto rounded = static_cast<std::size_t>(std::max(0.0, std::nearbyint(target)));  // ties to even
  const std::size_t budget = std::min(kMaxPredictions, std::max<std::size_t>(1, rounded));
  std::vector<std::uint8_t> chosen(n, 0);
  std::size_t count = 0;
  for (const std::vector<std::size_t>& word : words) {
    if (count >= budget) break;
    if (count + word.size() > budget) continue;
    for (const std::size_t i : word) chosen[i] = 1;
    count += word.size();
  }
  return chosen;
}

}  // namespace

bool continues_word(std::string_view token, WordMarks marks) {
  switch (marks) {
    case WordMarks::kWordPiece:
      return token.starts_with("##");
    case WordMarks::kByteLevel:
      return !token.starts_with("\u0120");  // Ġ
    case WordMarks::kMetaspace:
      return !token.starts_with("\u2581");  // ▁
  }
  return false;
}

MaskedRow mask_row(std::span<const std::int32_t> ids, std::span<const std::uint8_t> special,
                   std::span<const std::uint8_t> continuation, const MlmMasking& rule, std::uint64_t seed,
                   std::uint64_t row_id, std::uint64_t epoch) {
  if (special.size() != ids.size() || (rule.whole_word && continuation.size() != ids.size())) {
    throw Error(fmt::format("mask_row: {} ids but {} special flags and {} word flags", ids.size(),
                            special.size(), continuation.size()));
  }
  if (rule.vocab_size < 1 || rule.mask_id < 0 || rule.mask_id >= rule.vocab_size) {
    throw Error(
        fmt::format("mask_row: mask id {} outside the vocabulary of {}", rule.mask_id, rule.vocab_size));
  }
  if (!(rule.probability >= 0.0 && rule.probability <= 1.0)) {
    throw Error(fmt::format("mask_row: mlm_probability {} is not in [0, 1]", rule.probability));
  }
  SplitMix64 random = row_generator(seed, row_id, epoch);
  const std::size_t n = ids.size();
  std::vector<std::uint8_t> chosen;
  if (rule.whole_word) {
    chosen = choose_whole_words(special, continuation, rule.probability, random);
  } else {
    chosen.assign(n, 0);
    for (std::size_t i = 0; i < n; ++i) chosen[i] = special[i] == 0 && random.uniform() < rule.probability;
  }
  MaskedRow out{{ids.begin(), ids.end()}, std::vector<std::int32_t>(n, kIgnored)};
  for (std::size_t i = 0; i < n; ++i) {
    if (chosen[i] == 0) continue;
    out.labels[i] = ids[i];
    if (random.uniform() < kMaskShare) {
      out.input_ids[i] = rule.mask_id;
    } else if (random.uniform() < kRandomShare) {
      out.input_ids[i] = static_cast<std::int32_t>(random.below(static_cast<std::uint64_t>(rule.vocab_size)));
    }
  }
  return out;
}

}  // namespace shmtrain::data
