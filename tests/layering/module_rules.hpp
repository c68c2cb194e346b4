#pragma once
// The module map's include rules, read from allowed_includes.txt, and the check of a source
// tree against them: every `#include "shmtrain/<module>/..."` in include/shmtrain/<m>/,
// src/<m>/ and bench/ must name the file's own module, `common`, or a module the map lets
// <m> include. Tests are not checked: a test of module m may build its inputs with anything.
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace shmtrain::layering {

// module -> the modules it may include (besides itself and common).
using ModuleRules = std::map<std::string, std::set<std::string>>;

// Lines "module: other other ..."; '#' starts a comment. Throws std::runtime_error naming the
// file and line for a malformed line or a module listed twice.
ModuleRules read_module_rules(const std::filesystem::path& path);

struct Violation {
  std::string file;  // relative to the tree's root
  int line = 0;
  std::string module;
  std::string included_module;
  std::string include;  // the included path, "shmtrain/model/batch.hpp"

  // "src/io/x.cpp:3: io may not include model (shmtrain/model/batch.hpp)"
  std::string message() const;
};

// Every forbidden include under root, in path and line order. A file of a module the rules do
// not name is a violation of its own (the map must list every module).
std::vector<Violation> check_tree(const std::filesystem::path& root, const ModuleRules& rules);

}  // namespace shmtrain::layering
