#include "shmtrain/data/tokenize_rows.hpp"

#include <mutex>
#include <string>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include "shmtrain/common/error.hpp"

namespace shmtrain::data {
namespace {

const char* kind_name(ValueKind kind) {
  switch (kind) {
    case ValueKind::integer:
    case ValueKind::real:
      return "a number";
    case ValueKind::boolean:
      return "a boolean";
    case ValueKind::null:
      return "null";
    case ValueKind::missing:
      return "missing";
    case ValueKind::other:
      return "an array or object";
    case ValueKind::untyped:
    case ValueKind::string:
      break;
  }
  return "text";
}

void check_text(const Table& table, const Record& record, std::size_t column) {
  const ValueKind kind = record.fields[column].kind;
  if (kind == ValueKind::untyped || kind == ValueKind::string) return;
  fail_input("{}:{}: column '{}' is {}; expected a string", table.source, record.line, table.columns[column],
             kind_name(kind));
}

// The tokenizer names the text "text_a: ..." or "text_b: ..."; the user knows the column.
std::string row_error(const Table& table, const Record& record, std::size_t column_a,
                      std::optional<std::size_t> column_b, std::string_view message) {
  std::size_t column = column_a;
  if (message.starts_with("text_a: ")) {
    message.remove_prefix(8);
  } else if (message.starts_with("text_b: ") && column_b) {
    message.remove_prefix(8);
    column = *column_b;
  }
  return fmt::format("{}:{}: column '{}': {}", table.source, record.line, table.columns[column], message);
}

}  // namespace

void tokenize_rows(const Table& table, std::size_t column_a, std::optional<std::size_t> column_b,
                   const text::Tokenizer& tokenizer, std::size_t max_seq_length,
                   std::vector<Example>& examples) {
  for (const Record& record : table.records) {
    check_text(table, record, column_a);
    if (column_b) check_text(table, record, *column_b);
  }
  const std::size_t n = table.records.size();
  examples.resize(n);
  const text::EncodeOptions options{max_seq_length, false};

  // Rows fail independently; the error reported is the first bad row in file order,
  // whatever order the threads met them in.
  std::mutex mutex;
  std::size_t first_bad = n;
  std::string first_message;
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, n, 256),
                    [&](const tbb::blocked_range<std::size_t>& range) {
                      text::Encoding encoding;
                      for (std::size_t i = range.begin(); i != range.end(); ++i) {
                        const Record& record = table.records[i];
                        std::optional<std::string_view> text_b;
                        if (column_b) text_b = record.fields[*column_b].text;
                        try {
                          tokenizer.encode(record.fields[column_a].text, text_b, options, encoding);
                        } catch (const InputError& e) {
                          const std::lock_guard lock(mutex);
                          if (i < first_bad) {
                            first_bad = i;
                            first_message = row_error(table, record, column_a, column_b, e.what());
                          }
                          return;
                        }
                        Example& example = examples[i];
                        example.input_ids = encoding.input_ids;
                        example.token_type_ids = encoding.token_type_ids;
                        example.attention_mask = encoding.attention_mask;
                      }
                    });
  if (first_bad < n) throw InputError(first_message);
}

void for_each_record(const Table& table, const std::function<void(std::size_t)>& fn) {
  const std::size_t n = table.records.size();
  std::mutex mutex;
  std::size_t first_bad = n;
  std::string message;
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, n, 16), [&](const tbb::blocked_range<std::size_t>& range) {
    for (std::size_t r = range.begin(); r != range.end(); ++r) {
      try {
        fn(r);
      } catch (const InputError& e) {
        const std::lock_guard lock(mutex);
        if (r < first_bad) {
          first_bad = r;
          message = e.what();
        }
      }
    }
  });
  if (first_bad == n) return;
  fail_input("{}", message.starts_with(table.source)
                       ? message
                       : fmt::format("{}:{}: {}", table.source, table.records[first_bad].line, message));
}

void append_text(Example& example, const text::Encoding& encoding) {
  example.input_ids.insert(example.input_ids.end(), encoding.input_ids.begin(), encoding.input_ids.end());
  example.token_type_ids.insert(example.token_type_ids.end(), encoding.token_type_ids.begin(),
                                encoding.token_type_ids.end());
  example.attention_mask.insert(example.attention_mask.end(), encoding.attention_mask.begin(),
                                encoding.attention_mask.end());
  example.choice_lengths.push_back(static_cast<std::int32_t>(encoding.input_ids.size()));
}

}  // namespace shmtrain::data
