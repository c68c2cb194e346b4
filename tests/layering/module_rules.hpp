#pragma once
// The module map's include rules, read from allowed_includes.txt (or the copy of them that
// docs/design.md quotes), and the check of a source tree against them:
// - every include of another module — `#include "shmtrain/<m>/..."` (a contract) or
//   `#include "<m>/..."` (src/<m>/'s private headers, through src/ on the include path) — in
//   include/shmtrain/<m>/, src/<m>/, bench/ and fuzz/ must name the file's own module, `common`,
//   or a module the map lets it include;
// - no include climbs out of its folder with `../` (a private header of another folder is
//   reached through src/, so the checker and a reader see which module it belongs to);
// - every arrow the map allows is used by some include, and every module in the map has files:
//   a rule nothing uses is a map that no longer tells the truth.
// Tests are not checked: a test of module m may build its inputs with anything.
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace shmtrain::layering {

struct ModuleRule {
  std::set<std::string> allowed;  // the modules it may include, besides itself and common
  int line = 0;                   // where the rule stands in its file
};

// module -> its rule.
using ModuleRules = std::map<std::string, ModuleRule>;

// Lines "module: other other ..."; '#' starts a comment. Throws std::runtime_error naming the
// source and line for a malformed line or a module listed twice. `source` names the text in
// messages (a file's path).
ModuleRules parse_module_rules(const std::string& text, const std::string& source);
ModuleRules read_module_rules(const std::filesystem::path& path);

// The rules quoted in a Markdown document: the lines of the first fenced block that follows a
// line containing `marker`. Throws naming the document when there is no such block.
ModuleRules read_quoted_module_rules(const std::filesystem::path& markdown, const std::string& marker);

struct Violation {
  std::string file;  // relative to the tree's root, or the rules file for an unused rule
  int line = 0;
  std::string text;  // what is wrong

  // "src/io/x.cpp:3: io may not include model (shmtrain/model/batch.hpp)"
  std::string message() const;
};

// Every forbidden include, `../` include and unused rule under root, in path and line order
// (unused rules last, in the order of the rules). A file of a module the rules do not name is a
// violation of its own (the map must list every module). `rules_file` names the rules in the
// unused-rule messages.
std::vector<Violation> check_tree(const std::filesystem::path& root, const ModuleRules& rules,
                                  const std::string& rules_file = "allowed_includes.txt");

}  // namespace shmtrain::layering
