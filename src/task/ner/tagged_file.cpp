#include "shmtrain/task/ner/tagged_file.hpp"

#include <fstream>

#include <fmt/format.h>

#include "shmtrain/common/error.hpp"
#include "shmtrain/data/json_lines.hpp"
#include "shmtrain/data/parquet_split.hpp"
#include "shmtrain/text/utf8.hpp"

namespace shmtrain::task {
namespace {

std::vector<std::string> fields_of(const std::string& line) {
  std::vector<std::string> out;
  std::size_t at = 0;
  while (at < line.size()) {
    while (at < line.size() && (line[at] == ' ' || line[at] == '\t')) ++at;
    const std::size_t begin = at;
    while (at < line.size() && line[at] != ' ' && line[at] != '\t') ++at;
    if (at > begin) out.push_back(line.substr(begin, at - begin));
  }
  return out;
}

TaggedFile read_conll(const std::filesystem::path& path, const TaggedFileOptions& options) {
  std::ifstream in(path, std::ios::binary);
  if (!in) fail_input("cannot open {}: check that it exists and is readable", path.string());
  TaggedFile file;
  file.source = path.string();
  TaggedSentence current;
  std::string line;
  int tagged = -1;  // 1 when the file's lines carry tags, 0 when not; -1 before the first line
  const auto finish = [&] {
    if (!current.words.empty()) file.sentences.push_back(std::move(current));
    current = TaggedSentence{};
  };
  for (std::size_t number = 1; std::getline(in, line); ++number) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    text::check_utf8(line, fmt::format("{}:{}", file.source, number));
    const std::vector<std::string> fields = fields_of(line);
    if (fields.empty()) {
      finish();
      continue;
    }
    if (fields.front() == "-DOCSTART-") continue;
    const bool has_tag = fields.size() >= 2;
    if (tagged == -1) tagged = has_tag ? 1 : 0;
    if (has_tag != (tagged == 1)) {
      fail_input("{}:{}: '{}' has {} field(s) where the file's earlier lines have {}: every line is WORD ... TAG",
                 file.source, number, line.substr(0, 80), fields.size(), tagged == 1 ? "a word and a tag" : "a word only");
    }
    if (!has_tag && options.tags_required) {
      fail_input("{}:{}: '{}' has no tag: a line is WORD ... TAG (the tag in the last column)", file.source, number,
                 line.substr(0, 80));
    }
    if (current.words.empty()) current.line = number;
    current.words.push_back(fields.front());
    if (has_tag) {
      const int column = options.tag_column < 0 ? static_cast<int>(fields.size()) - 1 : options.tag_column;
      if (column >= static_cast<int>(fields.size())) {
        fail_input("{}:{}: '{}' has no field {} for the tag", file.source, number, line.substr(0, 80), column + 1);
      }
      current.tags.push_back(fields[static_cast<std::size_t>(column)]);
    }
  }
  finish();
  file.has_tags = tagged != 0;
  if (file.sentences.empty()) fail_input("{}: no sentences (CoNLL lines WORD ... TAG, a blank line between sentences)", file.source);
  return file;
}

TaggedFile tagged_rows(const data::JsonLines& lines, const TaggedFileOptions& options) {
  TaggedFile file;
  file.source = lines.source;
  int integer = -1;
  bool any_tags = false;
  for (const data::JsonRow& row : lines.rows) {
    const auto where = [&] { return fmt::format("{}:{}", file.source, row.line); };
    const auto words = row.object.find(options.text_column);
    if (words == row.object.end() || !words->is_array()) {
      fail_input("{}: no list '{}' of words (--text_column_name)", where(), options.text_column);
    }
    TaggedSentence sentence;
    sentence.line = row.line;
    for (const auto& w : *words) {
      if (!w.is_string()) fail_input("{}: '{}' holds {}, not a word string", where(), options.text_column, w.dump().substr(0, 40));
      sentence.words.push_back(w.get<std::string>());
    }
    const auto tags = row.object.find(options.label_column);
    if (tags == row.object.end()) {
      if (options.tags_required) fail_input("{}: no list '{}' of tags (--label_column_name)", where(), options.label_column);
    } else {
      if (!tags->is_array()) fail_input("{}: '{}' must be a list of tags", where(), options.label_column);
      if (tags->size() != sentence.words.size()) {
        fail_input("{}: {} words but {} tags: '{}' and '{}' must have the same length", where(), sentence.words.size(),
                   tags->size(), options.text_column, options.label_column);
      }
      any_tags = true;
      for (const auto& t : *tags) {
        const bool is_int = t.is_number_integer();
        if (!is_int && !t.is_string()) fail_input("{}: tag {} is neither a string nor an integer", where(), t.dump().substr(0, 40));
        if (integer == -1) integer = is_int ? 1 : 0;
        if (is_int != (integer == 1)) fail_input("{}: tags mix strings and integers", where());
        sentence.tags.push_back(is_int ? std::to_string(t.get<std::int64_t>()) : t.get<std::string>());
      }
    }
    if (!sentence.words.empty()) file.sentences.push_back(std::move(sentence));
  }
  file.has_tags = any_tags;
  file.integer_tags = integer == 1;
  return file;
}

TaggedFile tagged_parquet(const data::ParquetRows& rows, const TaggedFileOptions& options) {
  TaggedFile file = tagged_rows(rows.rows, options);
  file.class_names = data::parquet_class_names(rows, options.label_column);
  return file;
}

}  // namespace

TaggedFile read_tagged_file(const std::filesystem::path& path, const TaggedFileOptions& options) {
  std::string ext = path.extension().string();
  for (char& c : ext) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  if (ext == ".parquet") return tagged_parquet(data::read_parquet(path, "a run_ner data file (parquet)"), options);
  if (ext == ".json" || ext == ".jsonl") return tagged_rows(data::read_json_lines(path, "a run_ner data file"), options);
  return read_conll(path, options);
}

TaggedFile read_tagged_split(const std::vector<std::filesystem::path>& shards, const TaggedFileOptions& options) {
  return tagged_parquet(data::read_parquet_split(shards, "a run_ner split (parquet)"), options);
}

}  // namespace shmtrain::task
