#include "layering/module_rules.hpp"

#include <algorithm>
#include <fstream>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <utility>

namespace shmtrain::layering {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> words(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> out;
  for (std::string word; in >> word;) out.push_back(word);
  return out;
}

std::string read_text(const fs::path& path, const char* what) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(path.string() + ": cannot open " + what);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The module a file belongs to: include/shmtrain/<m>/..., src/<m>/...; bench/ and fuzz/ are
// the bench and fuzz modules' programs. Empty for any other file.
std::string module_of(const fs::path& relative) {
  auto part = relative.begin();
  if (part == relative.end()) return {};
  const std::string top = part->string();
  ++part;
  if (top == "bench" || top == "fuzz") return top;
  if (top == "src" && part != relative.end() && std::next(part) != relative.end()) return part->string();
  if (top == "include" && part != relative.end() && part->string() == "shmtrain") {
    ++part;
    if (part != relative.end() && std::next(part) != relative.end()) return part->string();
  }
  return {};
}

bool is_source(const fs::path& path) {
  const std::string ext = path.extension().string();
  return ext == ".cpp" || ext == ".hpp" || ext == ".h" || ext == ".cc";
}

std::vector<fs::path> product_files(const fs::path& root) {
  std::vector<fs::path> files;
  for (const char* top : {"include", "src", "bench", "fuzz"}) {
    if (!fs::is_directory(root / top)) continue;
    for (const fs::directory_entry& entry : fs::recursive_directory_iterator(root / top)) {
      if (entry.is_regular_file() && is_source(entry.path())) files.push_back(fs::relative(entry.path(), root));
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

// The module a quoted include reaches: "shmtrain/<m>/..." is m's contract; "<m>/..." is one of
// src/<m>/'s private headers when no file of that name stands beside the including file (the
// compiler looks there first). Empty for a header of the file's own folder or one outside the
// tree (a test's support headers, generated code).
std::string included_module(const fs::path& root, const fs::path& file, const std::string& include) {
  const fs::path path(include);
  const std::string first = path.begin()->string();
  if (first == "shmtrain") {
    auto part = std::next(path.begin());
    return part == path.end() ? std::string() : part->string();
  }
  if (fs::exists(root / file.parent_path() / path)) return {};
  if (std::next(path.begin()) != path.end() && fs::is_regular_file(root / "src" / path)) return first;
  return {};
}

bool climbs(const std::string& include) {
  return include.starts_with("../") || include.find("/../") != std::string::npos;
}

}  // namespace

ModuleRules parse_module_rules(const std::string& text, const std::string& source) {
  std::istringstream in(text);
  ModuleRules rules;
  int number = 0;
  for (std::string line; std::getline(in, line);) {
    ++number;
    line = line.substr(0, line.find('#'));
    if (words(line).empty()) continue;
    const std::size_t colon = line.find(':');
    const std::vector<std::string> head = words(line.substr(0, colon));
    if (colon == std::string::npos || head.size() != 1) {
      throw std::runtime_error(source + ":" + std::to_string(number) + ": expected 'module: allowed modules...'");
    }
    const std::vector<std::string> allowed = words(line.substr(colon + 1));
    ModuleRule rule{std::set<std::string>(allowed.begin(), allowed.end()), number};
    if (!rules.emplace(head[0], std::move(rule)).second) {
      throw std::runtime_error(source + ":" + std::to_string(number) + ": module '" + head[0] + "' is listed twice");
    }
  }
  return rules;
}

ModuleRules read_module_rules(const fs::path& path) {
  return parse_module_rules(read_text(path, "the module rules"), path.string());
}

ModuleRules read_quoted_module_rules(const fs::path& markdown, const std::string& marker) {
  std::istringstream in(read_text(markdown, "the design document"));
  std::string line;
  bool marked = false;
  while (std::getline(in, line)) {
    if (!marked) {
      marked = line.find(marker) != std::string::npos;
    } else if (line.starts_with("```")) {
      std::string block;
      while (std::getline(in, line) && !line.starts_with("```")) block += line + "\n";
      return parse_module_rules(block, markdown.string() + " (the block after '" + marker + "')");
    }
  }
  throw std::runtime_error(markdown.string() + ": no fenced block after a line with '" + marker + "'");
}

std::string Violation::message() const { return file + ":" + std::to_string(line) + ": " + text; }

std::vector<Violation> check_tree(const fs::path& root, const ModuleRules& rules, const std::string& rules_file) {
  static const std::regex kInclude(R"(^\s*#\s*include\s*"([^"]+)\")");
  std::vector<Violation> violations;
  std::set<std::pair<std::string, std::string>> used;
  std::set<std::string> present;
  for (const fs::path& file : product_files(root)) {
    const std::string module = module_of(file);
    if (module.empty()) continue;
    present.insert(module);
    const auto rule = rules.find(module);
    if (rule == rules.end()) {
      violations.push_back({file.string(), 1, "module '" + module + "' is not in the map"});
      continue;
    }
    std::ifstream in(root / file);
    int number = 0;
    for (std::string line; std::getline(in, line);) {
      ++number;
      std::smatch match;
      if (!std::regex_search(line, match, kInclude)) continue;
      const std::string include = match[1].str();
      if (climbs(include)) {
        violations.push_back({file.string(), number,
                              "includes with ../ (" + include + "); name another folder's header from src/"});
        continue;
      }
      const std::string other = included_module(root, file, include);
      if (other.empty() || other == module || other == "common") continue;
      if (rule->second.allowed.contains(other)) {
        used.emplace(module, other);
      } else {
        violations.push_back({file.string(), number, module + " may not include " + other + " (" + include + ")"});
      }
    }
  }
  for (const auto& [module, rule] : rules) {
    if (!present.contains(module)) {
      violations.push_back({rules_file, rule.line, "module '" + module + "' has no files"});
      continue;
    }
    for (const std::string& other : rule.allowed) {
      if (!used.contains({module, other})) {
        violations.push_back({rules_file, rule.line, "rule '" + module + ": " + other + "' is used by no include"});
      }
    }
  }
  return violations;
}

}  // namespace shmtrain::layering
