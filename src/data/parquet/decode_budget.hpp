#pragma once
// What the decoded rows of one file may take in memory. Run-length and dictionary encodings
// let a few bytes stand for millions of values, so a crafted file could ask for any amount;
// the budget is a multiple of the file's size, generous for honest files (the Hub's SQuAD
// file of 14 MB becomes about 100 MB of rows; the budget is 3.6 GB) and every decoded
// value, level and string byte is charged to it before it is allocated.
#include <cstddef>

namespace shmtrain::data::parquet {

// The charge for one value or one nesting entry (its JSON value and its levels).
inline constexpr std::size_t kValueCost = 32;
// The charge for one row (its JSON object).
inline constexpr std::size_t kRowCost = 64;
// No page may declare more than this uncompressed (nor more than the budget).
inline constexpr std::size_t kMaxPageSize = std::size_t{1} << 30;

class DecodeBudget {
 public:
  explicit DecodeBudget(std::size_t file_size);
  // InputError when `bytes` more would exceed the budget.
  void charge(std::size_t bytes);
  // charge(count * each) without overflow.
  void charge(std::size_t count, std::size_t each);
  std::size_t total() const { return total_; }

 private:
  [[noreturn]] void fail() const;

  std::size_t total_;
  std::size_t left_;
};

}  // namespace shmtrain::data::parquet
