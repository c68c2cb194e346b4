#pragma once
// the text columns of a table -> token ids, in parallel, in file order.
#include <cstddef>
#include <functional>
#include <optional>
#include <vector>

#include "shmtrain/data/dataset.hpp"
#include "shmtrain/text/tokenizer.hpp"
#include "shmtrain/data/table.hpp"

namespace shmtrain::data {

// examples[i] = tokenizer.encode(record i's column_a, column_b) truncated to max_seq_length
// (longest_first), not padded; labels are left as they are. examples is resized to the
// table's rows. InputError "SOURCE:LINE: column 'NAME': ..." for a JSON value that is not a
// string and for invalid UTF-8 (the first such row in file order).
void tokenize_rows(const Table& table, std::size_t column_a, std::optional<std::size_t> column_b,
                   const text::Tokenizer& tokenizer, std::size_t max_seq_length,
                   std::vector<Example>& examples);

// Runs fn(r) for every record r of `table` on oneTBB's threads. Records fail independently:
// the InputError rethrown is the first failing record's in file order, "SOURCE:LINE: " put
// before a message that does not start with the source already.
void for_each_record(const Table& table, const std::function<void(std::size_t)>& fn);

// Appends one encoded text to an example of several (multiple choice's choices, a sentence
// embedding's texts): its ids, types and mask, and its length to choice_lengths.
void append_text(Example& example, const text::Encoding& encoding);

}  // namespace shmtrain::data
