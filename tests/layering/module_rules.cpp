#include "layering/module_rules.hpp"

#include <algorithm>
#include <fstream>
#include <regex>
#include <sstream>
#include <stdexcept>

namespace shmtrain::layering {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> words(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> out;
  for (std::string word; in >> word;) out.push_back(word);
  return out;
}

// The module a file belongs to: include/shmtrain/<m>/..., src/<m>/...; bench/ is the bench
// module's programs. Empty for any other file.
std::string module_of(const fs::path& relative) {
  auto part = relative.begin();
  if (part == relative.end()) return {};
  const std::string top = part->string();
  ++part;
  if (top == "bench") return "bench";
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

}  // namespace

ModuleRules read_module_rules(const fs::path& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(path.string() + ": cannot open the module rules");
  ModuleRules rules;
  int number = 0;
  for (std::string line; std::getline(in, line);) {
    ++number;
    line = line.substr(0, line.find('#'));
    if (words(line).empty()) continue;
    const std::size_t colon = line.find(':');
    const std::vector<std::string> head = words(line.substr(0, colon));
    if (colon == std::string::npos || head.size() != 1) {
      throw std::runtime_error(path.string() + ":" + std::to_string(number) +
                               ": expected 'module: allowed modules...'");
    }
    const std::vector<std::string> allowed = words(line.substr(colon + 1));
    if (!rules.emplace(head[0], std::set<std::string>(allowed.begin(), allowed.end())).second) {
      throw std::runtime_error(path.string() + ":" + std::to_string(number) + ": module '" + head[0] +
                               "' is listed twice");
    }
  }
  return rules;
}

std::string Violation::message() const {
  if (included_module.empty()) return file + ":" + std::to_string(line) + ": module '" + module + "' is not in the map";
  return file + ":" + std::to_string(line) + ": " + module + " may not include " + included_module + " (" + include +
         ")";
}

std::vector<Violation> check_tree(const fs::path& root, const ModuleRules& rules) {
  static const std::regex kInclude(R"(^\s*#\s*include\s*"(shmtrain/([a-z_0-9]+)/[^"]+)\")");
  std::vector<fs::path> files;
  for (const char* top : {"include", "src", "bench"}) {
    if (!fs::is_directory(root / top)) continue;
    for (const fs::directory_entry& entry : fs::recursive_directory_iterator(root / top)) {
      if (entry.is_regular_file() && is_source(entry.path())) files.push_back(fs::relative(entry.path(), root));
    }
  }
  std::sort(files.begin(), files.end());
  std::vector<Violation> violations;
  for (const fs::path& file : files) {
    const std::string module = module_of(file);
    if (module.empty()) continue;
    const auto rule = rules.find(module);
    if (rule == rules.end()) {
      violations.push_back({file.string(), 1, module, "", ""});
      continue;
    }
    std::ifstream in(root / file);
    int number = 0;
    for (std::string line; std::getline(in, line);) {
      ++number;
      std::smatch match;
      if (!std::regex_search(line, match, kInclude)) continue;
      const std::string other = match[2].str();
      if (other == module || other == "common" || rule->second.contains(other)) continue;
      violations.push_back({file.string(), number, module, other, match[1].str()});
    }
  }
  return violations;
}

}  // namespace shmtrain::layering
