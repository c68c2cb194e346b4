#pragma once
// Internal to text/pipeline: a map from 64-bit keys to small values in one open-addressing
// table (linear probing, at most half full), for the lookups tokenizing does per character:
// BPE's merges by pair of ids, the Unigram trie's edges by (node, byte). A lookup is a
// multiply and mostly one probe of one array, where std::unordered_map follows a pointer to a
// node elsewhere in memory.
#include <algorithm>
#include <bit>
#include <cstdint>
#include <utility>
#include <vector>

namespace shmtrain::text::pipeline {

template <typename Value>
class FlatMap {
 public:
  // The value stored for `key`, or null.
  const Value* find(std::uint64_t key) const {
    if (slots_.empty()) return nullptr;
    for (std::size_t i = slot_of(key);; i = (i + 1) & (slots_.size() - 1)) {
      const Slot& s = slots_[i];
      if (!s.used) return nullptr;
      if (s.key == key) return &s.value;
    }
  }

  // Inserts `value` for `key` unless the key is there; returns the stored value and whether it
  // was inserted (std::unordered_map::try_emplace's contract).
  std::pair<Value*, bool> try_emplace(std::uint64_t key, Value value) {
    if (2 * (size_ + 1) > slots_.size()) grow();
    for (std::size_t i = slot_of(key);; i = (i + 1) & (slots_.size() - 1)) {
      Slot& s = slots_[i];
      if (!s.used) {
        s = {key, std::move(value), true};
        ++size_;
        return {&s.value, true};
      }
      if (s.key == key) return {&s.value, false};
    }
  }

  std::size_t size() const { return size_; }

 private:
  struct Slot {
    std::uint64_t key = 0;
    Value value{};
    bool used = false;
  };

  std::size_t slot_of(std::uint64_t key) const {
    return static_cast<std::size_t>((key * 0x9E3779B97F4A7C15ull) >> shift_);  // Fibonacci hashing
  }

  void grow() {
    std::vector<Slot> old = std::move(slots_);
    const std::size_t size = std::max<std::size_t>(16, old.size() * 2);
    slots_.assign(size, Slot{});
    shift_ = 64 - std::countr_zero(size);
    size_ = 0;
    for (Slot& s : old)
      if (s.used) try_emplace(s.key, std::move(s.value));
  }

  std::vector<Slot> slots_;
  std::size_t size_ = 0;
  int shift_ = 64;
};

}  // namespace shmtrain::text::pipeline
