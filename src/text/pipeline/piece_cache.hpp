#pragma once
// Internal to text/pipeline: the tokens a model gave for the pieces it has seen. Words repeat
// (a few thousand make most of any text), so BPE and Unigram look a piece up here before
// merging or searching, as tokenizers' models keep a Cache of words. Per thread, so that
// encoders on several threads share nothing; per model instance (a unique number, never an
// address, which a later model could reuse); bounded: once full, new pieces are tokenized but
// not kept, tokenizers' policy, so the common words, met first, stay.
#include <atomic>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace shmtrain::text::pipeline {

template <typename Token>
class PieceCache {
 public:
  static constexpr std::size_t kPieces = std::size_t{1} << 15;
  static constexpr std::size_t kLongestChars = 64;  // a longer piece is not kept

  PieceCache() : owner_(next_owner().fetch_add(1)) {}

  // The tokens kept for `chars`, or null.
  const std::vector<Token>* find(const std::u32string& chars) const {
    const Map& map = this_thread();
    const auto it = map.find(chars);
    return it == map.end() ? nullptr : &it->second;
  }

  void insert(const std::u32string& chars, std::vector<Token> tokens) const {
    Map& map = this_thread();
    if (chars.size() <= kLongestChars && map.size() < kPieces) map.emplace(chars, std::move(tokens));
  }

 private:
  using Map = std::unordered_map<std::u32string, std::vector<Token>>;

  static std::atomic<std::uint64_t>& next_owner() {
    static std::atomic<std::uint64_t> next{1};
    return next;
  }

  // This thread's map for this model; a thread keeps the maps of its last four models.
  Map& this_thread() const {
    thread_local std::vector<std::pair<std::uint64_t, Map>> maps;
    for (auto& [owner, map] : maps)
      if (owner == owner_) return map;
    if (maps.size() == 4) maps.erase(maps.begin());
    return maps.emplace_back(owner_, Map()).second;
  }

  std::uint64_t owner_;
};

}  // namespace shmtrain::text::pipeline
