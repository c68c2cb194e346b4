// Comma-separated values, RFC 4180: a field may be double-quoted, and then holds commas,
// line breaks and "" for one quote. A quote inside an unquoted field is text (as Python's
// csv module reads it). Records are numbered by the physical line where they start.
#include <string_view>

#include "shmtrain/common/error.hpp"
#include "shmtrain/data/table.hpp"

namespace shmtrain::data {
namespace {

class CsvParser {
 public:
  CsvParser(std::string_view text, const std::string& source) : text_(text), source_(source) {}

  // The next record into `fields`; false at the end of the text. Blank lines are skipped.
  bool next(std::vector<std::string>& fields, std::size_t& start_line) {
    for (;;) {
      if (pos_ >= text_.size()) return false;
      start_line = line_;
      fields.clear();
      bool quoted_any = false;
      for (;;) {
        std::string& field = fields.emplace_back();
        if (pos_ < text_.size() && text_[pos_] == '"') {
          quoted_any = true;
          read_quoted(field);
        } else {
          read_plain(field);
        }
        if (pos_ < text_.size() && text_[pos_] == ',') {
          ++pos_;
          continue;
        }
        end_record();
        break;
      }
      if (fields.size() == 1 && fields[0].empty() && !quoted_any) continue;
      return true;
    }
  }

 private:
  void read_plain(std::string& field) {
    const std::size_t start = pos_;
    while (pos_ < text_.size() && text_[pos_] != ',' && text_[pos_] != '\n') ++pos_;
    std::string_view value = text_.substr(start, pos_ - start);
    if (pos_ < text_.size() && text_[pos_] == '\n' && value.ends_with('\r')) value.remove_suffix(1);
    if (pos_ == text_.size() && value.ends_with('\r')) value.remove_suffix(1);
    field.assign(value);
  }

  void read_quoted(std::string& field) {
    const std::size_t open_line = line_;
    ++pos_;
    for (;;) {
      if (pos_ >= text_.size()) {
        fail_input("{}:{}: a quoted field opened on this line is never closed", source_, open_line);
      }
      const char c = text_[pos_];
      if (c == '"') {
        if (pos_ + 1 < text_.size() && text_[pos_ + 1] == '"') {
          field.push_back('"');
          pos_ += 2;
          continue;
        }
        ++pos_;
        break;
      }
      if (c == '\n') ++line_;
      field.push_back(c);
      ++pos_;
    }
    if (pos_ < text_.size() && text_[pos_] == '\r' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '\n')
      ++pos_;
    if (pos_ < text_.size() && text_[pos_] != ',' && text_[pos_] != '\n') {
      fail_input("{}:{}: unexpected text after a closing quote; inside a quoted field write a quote as \"\"",
                 source_, line_);
    }
  }

  void end_record() {
    if (pos_ < text_.size() && text_[pos_] == '\n') {
      ++pos_;
      ++line_;
    }
  }

  std::string_view text_;
  const std::string& source_;
  std::size_t pos_ = 0;
  std::size_t line_ = 1;
};

}  // namespace

Table read_csv(const std::filesystem::path& path, std::string_view what) {
  const std::string text = read_data_file(path, what);
  Table table;
  table.source = path.string();
  CsvParser parser(text, table.source);
  std::vector<std::string> fields;
  std::size_t line = 0;
  if (!parser.next(fields, line)) fail_input("{}: the file is empty; expected {}", table.source, what);
  table.columns = fields;
  while (parser.next(fields, line)) {
    if (fields.size() != table.columns.size()) {
      fail_input("{}:{}: expected {} comma-separated fields ({}), found {}", table.source, line,
                 table.columns.size(), join_names(table.columns, 20), fields.size());
    }
    Record& record = table.records.emplace_back();
    record.line = line;
    record.fields.reserve(fields.size());
    for (std::string& field : fields) record.fields.push_back(Value{std::move(field), ValueKind::untyped});
  }
  if (table.records.empty()) fail_input("{}: no rows after the header line; expected {}", table.source, what);
  return table;
}

}  // namespace shmtrain::data
