// run_mlm's tokenize_function and group_texts.
#include <algorithm>

#include "shmtrain/common/error.hpp"
#include "shmtrain/data/table.hpp"
#include "shmtrain/data/tokenize_rows.hpp"
#include "shmtrain/task/mlm/mlm_task.hpp"

namespace shmtrain::task {
namespace {

// Datasets.map's default batch size: group_texts concatenates and cuts each such batch alone.
constexpr std::size_t kMapBatch = 1000;

// Python's str.isspace() for the ASCII and Latin-1 blanks (run_mlm drops such lines).
bool blank(const std::string& text) {
  return std::all_of(text.begin(), text.end(), [](char c) { return c == ' ' || (c >= '\t' && c <= '\r') || (c >= '\x1c' && c <= '\x1f'); });
}

data::Dataset tokenize(const std::vector<MlmText>& texts, const std::string& source, const text::Tokenizer& tokenizer,
                       std::size_t max_seq_length) {
  data::Table table;
  table.source = source;
  table.columns = {"text"};
  table.records.reserve(texts.size());
  for (const MlmText& t : texts) table.records.push_back({t.line, {data::Value{t.text, data::ValueKind::string}}});
  data::Dataset out{source, {}};
  data::tokenize_rows(table, 0, std::nullopt, tokenizer, max_seq_length, out.examples);
  return out;
}

}  // namespace

data::Dataset mlm_rows(const MlmSource& source, const text::Tokenizer& tokenizer, std::size_t max_seq_length,
                       bool line_by_line) {
  if (source.pretokenized) {
    data::Dataset out{source.source, source.examples};
    for (std::size_t i = 0; i < out.examples.size(); ++i) {
      if (out.examples[i].input_ids.size() > max_seq_length) {
        fail_input("{}: row {} has {} tokens, more than max_seq_length {}", source.source, i + 1,
                   out.examples[i].input_ids.size(), max_seq_length);
      }
    }
    return out;
  }
  if (line_by_line) {
    std::vector<MlmText> lines;
    for (const MlmText& t : source.texts) {
      if (!t.text.empty() && !blank(t.text)) lines.push_back(t);
    }
    return tokenize(lines, source.source, tokenizer, max_seq_length);
  }
  const data::Dataset tokenized = tokenize(source.texts, source.source, tokenizer, 0);
  data::Dataset out{source.source, {}};
  for (std::size_t first = 0; first < tokenized.examples.size(); first += kMapBatch) {
    data::Example all;
    const std::size_t last = std::min(first + kMapBatch, tokenized.examples.size());
    for (std::size_t i = first; i < last; ++i) {
      const data::Example& e = tokenized.examples[i];
      all.input_ids.insert(all.input_ids.end(), e.input_ids.begin(), e.input_ids.end());
      all.token_type_ids.insert(all.token_type_ids.end(), e.token_type_ids.begin(), e.token_type_ids.end());
    }
    for (std::size_t begin = 0; begin + max_seq_length <= all.input_ids.size(); begin += max_seq_length) {
      data::Example block;
      const auto from = static_cast<std::ptrdiff_t>(begin);
      const auto to = static_cast<std::ptrdiff_t>(begin + max_seq_length);
      block.input_ids.assign(all.input_ids.begin() + from, all.input_ids.begin() + to);
      block.token_type_ids.assign(all.token_type_ids.begin() + from, all.token_type_ids.begin() + to);
      block.attention_mask.assign(max_seq_length, 1);
      out.examples.push_back(std::move(block));
    }
  }
  return out;
}

}  // namespace shmtrain::task
