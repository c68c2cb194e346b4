#include "manifest_yaml.hpp"

#include <sstream>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>

#include "support/test_support.hpp"

namespace shmtrain::testing {
namespace manifest_yaml {

struct Line {
  int number;        // 1-based, for errors
  int indent;        // spaces before the content
  std::string text;  // without indentation and comment
};

// The text before a comment: `#` at the start or after a space, outside quotes.
std::string without_comment(const std::string& text) {
  char quote = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quote != 0) {
      if (c == quote) quote = 0;
    } else if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == '#' && (i == 0 || text[i - 1] == ' ')) {
      return text.substr(0, i);
    }
  }
  return text;
}

std::string trimmed(const std::string& text) {
  const auto begin = text.find_first_not_of(' ');
  if (begin == std::string::npos) return "";
  return text.substr(begin, text.find_last_not_of(' ') - begin + 1);
}

std::vector<Line> significant_lines(const std::string& text) {
  std::vector<Line> lines;
  std::istringstream stream(text);
  std::string raw;
  for (int number = 1; std::getline(stream, raw); ++number) {
    if (raw.find('\t') != std::string::npos) throw std::runtime_error(fmt::format("line {}: a tab", number));
    const std::string content = trimmed(without_comment(raw));
    if (content.empty()) continue;
    if (content == "---" || content.front() == '&' || content.front() == '*' || content.front() == '|' ||
        content.front() == '>') {
      throw std::runtime_error(
          fmt::format("line {}: `{}` is outside the YAML this reader knows", number, content));
    }
    lines.push_back({number, static_cast<int>(raw.find_first_not_of(' ')), content});
  }
  return lines;
}

nlohmann::json scalar(const std::string& text, int number) {
  if (text.size() >= 2 && (text.front() == '"' || text.front() == '\'') && text.back() == text.front()) {
    return text.substr(1, text.size() - 2);
  }
  if (text.front() == '[') {
    // A flow sequence of double-quoted strings is JSON.
    try {
      return nlohmann::json::parse(text);
    } catch (const nlohmann::json::exception&) {
      throw std::runtime_error(
          fmt::format("line {}: flow sequence {} is not a list of \"strings\"", number, text));
    }
  }
  if (std::string("{\"'|>&*!").find(text.front()) != std::string::npos) {
    throw std::runtime_error(
        fmt::format("line {}: `{}` is outside the YAML this reader knows", number, text));
  }
  return text;
}

// `key: value` or `key:` -> the key and the rest ("" when the value is a block below).
bool split_key(const std::string& text, std::string& key, std::string& rest) {
  const auto colon = text.find(": ");
  if (colon != std::string::npos && text.front() != '"' && text.front() != '[') {
    key = text.substr(0, colon);
    rest = trimmed(text.substr(colon + 2));
    return true;
  }
  if (text.back() == ':') {
    key = text.substr(0, text.size() - 1);
    rest.clear();
    return true;
  }
  return false;
}

class Reader {
 public:
  explicit Reader(std::vector<Line> lines) : lines_(std::move(lines)) {}

  nlohmann::json document() {
    if (lines_.empty()) return nlohmann::json::object();
    nlohmann::json result = block(lines_[0].indent);
    if (at_ < lines_.size()) throw error(lines_[at_], "indentation does not match any block above");
    return result;
  }

 private:
  std::runtime_error error(const Line& line, const std::string& what) const {
    return std::runtime_error(fmt::format("line {}: {}", line.number, what));
  }

  // The block whose lines start at `indent`: a sequence if its first line is an item.
  nlohmann::json block(int indent) {
    const Line& first = lines_[at_];
    if (first.indent != indent) throw error(first, "unexpected indentation");
    return first.text.rfind("- ", 0) == 0 ? sequence(indent) : mapping(indent);
  }

  nlohmann::json mapping(int indent) {
    nlohmann::json result = nlohmann::json::object();
    while (at_ < lines_.size() && lines_[at_].indent == indent && lines_[at_].text.rfind("- ", 0) != 0) {
      const Line line = lines_[at_++];
      add_entry(result, line, line.text);
    }
    return result;
  }

  // One `key: value` of a mapping at `line`'s indentation (`text` may be after an item's dash).
  void add_entry(nlohmann::json& mapping, const Line& line, const std::string& text) {
    std::string key, rest;
    if (!split_key(text, key, rest)) throw error(line, fmt::format("`{}` is not `key: value`", text));
    if (mapping.contains(key)) throw error(line, fmt::format("key {} twice", key));
    if (!rest.empty()) {
      mapping[key] = scalar(rest, line.number);
    } else if (at_ < lines_.size() &&
               (lines_[at_].indent > line.indent ||
                (lines_[at_].indent == line.indent && lines_[at_].text.rfind("- ", 0) == 0))) {
      mapping[key] = block(lines_[at_].indent);
    } else {
      mapping[key] = nullptr;
    }
  }

  nlohmann::json sequence(int indent) {
    nlohmann::json result = nlohmann::json::array();
    while (at_ < lines_.size() && lines_[at_].indent == indent && lines_[at_].text.rfind("- ", 0) == 0) {
      const Line line = lines_[at_++];
      const std::string item = trimmed(line.text.substr(2));
      std::string key, rest;
      if (!split_key(item, key, rest)) {
        result.push_back(scalar(item, line.number));
        continue;
      }
      // `- key: value` and the keys below it, at the item's content column.
      const int content_indent = indent + static_cast<int>(line.text.size() - item.size());
      nlohmann::json entry = nlohmann::json::object();
      const Line inner{line.number, content_indent, item};
      add_entry(entry, inner, item);
      while (at_ < lines_.size() && lines_[at_].indent == content_indent &&
             lines_[at_].text.rfind("- ", 0) != 0) {
        const Line next = lines_[at_++];
        add_entry(entry, next, next.text);
      }
      result.push_back(std::move(entry));
    }
    return result;
  }

  std::vector<Line> lines_;
  std::size_t at_ = 0;
};

}  // namespace manifest_yaml

nlohmann::json read_manifest_yaml(const std::string& text) {
  return manifest_yaml::Reader(manifest_yaml::significant_lines(text)).document();
}

nlohmann::json read_manifest_yaml_file(const std::filesystem::path& path) {
  try {
    return read_manifest_yaml(read_file(path));
  } catch (const std::runtime_error& error) {
    throw std::runtime_error(path.string() + ": " + error.what());
  }
}

}  // namespace shmtrain::testing
