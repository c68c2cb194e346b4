// The module map stays true: no product file includes a module its module may not, nothing
// climbs folders with ../, every rule is used (rules in allowed_includes.txt), and
// docs/design.md quotes those rules. The second half checks the checker on small trees of its own.
#include <gtest/gtest.h>

#include "layering/module_rules.hpp"
#include "support/test_support.hpp"

namespace shmtrain::layering {
namespace {

using shmtrain::testing::TempDir;
using shmtrain::testing::write_file;

constexpr const char* kRulesFile = "tests/layering/allowed_includes.txt";

std::string report(const std::vector<Violation>& violations) {
  std::string out;
  for (const Violation& v : violations) out += v.message() + "\n";
  return out;
}

TEST(Layering, EveryIncludeFollowsTheModuleMap) {
  const std::filesystem::path root = shmtrain::testing::source_dir();
  const std::vector<Violation> violations = check_tree(root, read_module_rules(root / kRulesFile), kRulesFile);
  EXPECT_TRUE(violations.empty()) << violations.size() << " place(s) where the tree and the module map differ:\n"
                                  << report(violations);
}

TEST(Layering, TheDesignDocumentQuotesTheModuleMap) {
  const std::filesystem::path root = shmtrain::testing::source_dir();
  const ModuleRules rules = read_module_rules(root / kRulesFile);
  const ModuleRules quoted = read_quoted_module_rules(root / "docs/design.md", kRulesFile);
  for (const auto& [module, rule] : rules) {
    const auto it = quoted.find(module);
    if (it == quoted.end()) {
      ADD_FAILURE() << "docs/design.md's map has no row for " << module;
    } else {
      EXPECT_EQ(it->second.allowed, rule.allowed) << "docs/design.md's row for " << module << " differs from "
                                                  << kRulesFile;
    }
  }
  for (const auto& [module, rule] : quoted) {
    EXPECT_TRUE(rules.contains(module)) << "docs/design.md's map has a row for " << module << " that " << kRulesFile
                                        << " does not";
  }
}

class LayeringChecker : public ::testing::Test {
 protected:
  void SetUp() override {
    write_file(dir_ / "rules.txt", "# comment\ncommon:\nio:\nmodel: io  # reason\n");
    write_file(dir_ / "include/shmtrain/io/file.hpp", "#pragma once\n#include \"shmtrain/common/error.hpp\"\n");
    write_file(dir_ / "src/common/error.cpp", "#include \"shmtrain/common/error.hpp\"\n");
    write_file(dir_ / "src/model/model.cpp",
               "#include \"shmtrain/model/model.hpp\"\n#include \"shmtrain/io/file.hpp\"\n#include <vector>\n");
  }
  std::vector<std::string> messages() const {
    std::vector<std::string> out;
    for (const Violation& v : check_tree(dir_.path(), read_module_rules(dir_ / "rules.txt"), "rules.txt")) {
      out.push_back(v.message());
    }
    return out;
  }
  TempDir dir_;
};

TEST_F(LayeringChecker, AcceptsATreeThatFollowsItsRules) { EXPECT_EQ(messages(), std::vector<std::string>{}); }

TEST_F(LayeringChecker, NamesTheFileAndLineOfAForbiddenInclude) {
  write_file(dir_ / "src/io/writer.cpp",
             "#include \"shmtrain/io/file.hpp\"\n\n  #  include \"shmtrain/model/batch.hpp\"  // no\n");
  write_file(dir_ / "bench/bench_x.cpp", "#include \"shmtrain/model/model.hpp\"\n");
  write_file(dir_ / "fuzz/x_fuzz.cpp", "#include \"shmtrain/io/file.hpp\"\n");
  EXPECT_EQ(messages(), (std::vector<std::string>{
                            "bench/bench_x.cpp:1: module 'bench' is not in the map",
                            "fuzz/x_fuzz.cpp:1: module 'fuzz' is not in the map",
                            "src/io/writer.cpp:3: io may not include model (shmtrain/model/batch.hpp)",
                        }));
}

TEST_F(LayeringChecker, CatchesALowerModuleIncludingAHigherOne) {
  write_file(dir_ / "rules.txt", "common:\ntensor:\ntrain: tensor\n");
  write_file(dir_ / "include/shmtrain/train/trainer.hpp", "#pragma once\n#include \"shmtrain/tensor/gemm.hpp\"\n");
  write_file(dir_ / "src/tensor/gemm.cpp", "#include \"shmtrain/tensor/gemm.hpp\"\n#include \"shmtrain/train/trainer.hpp\"\n");
  std::filesystem::remove_all(dir_ / "src/model");
  std::filesystem::remove_all(dir_ / "include/shmtrain/io");
  EXPECT_EQ(messages(), (std::vector<std::string>{
                            "src/tensor/gemm.cpp:2: tensor may not include train (shmtrain/train/trainer.hpp)",
                        }));
}

TEST_F(LayeringChecker, APrivateHeaderOfAnotherModuleIsAnInclude) {
  write_file(dir_ / "src/model/config/reader.hpp", "#pragma once\n");
  write_file(dir_ / "src/model/architectures/bert.cpp", "#include \"model/config/reader.hpp\"\n");
  write_file(dir_ / "src/io/file.cpp", "#include \"model/config/reader.hpp\"\n#include \"support/elsewhere.hpp\"\n");
  EXPECT_EQ(messages(), (std::vector<std::string>{
                            "src/io/file.cpp:1: io may not include model (model/config/reader.hpp)",
                        }));
}

TEST_F(LayeringChecker, RefusesAnIncludeThatClimbsFolders) {
  write_file(dir_ / "src/model/config/reader.hpp", "#pragma once\n");
  write_file(dir_ / "src/model/architectures/bert.cpp", "#include \"../config/reader.hpp\"\n");
  EXPECT_EQ(messages(), (std::vector<std::string>{
                            "src/model/architectures/bert.cpp:1: includes with ../ (../config/reader.hpp); name "
                            "another folder's header from src/",
                        }));
}

TEST_F(LayeringChecker, AnUnusedRuleIsAViolation) {
  write_file(dir_ / "rules.txt", "common:\nio:\nmodel: io tensor  # tensor: nothing uses it\ntensor:\nreport: io\n");
  write_file(dir_ / "src/tensor/gemm.cpp", "#include <vector>\n");
  EXPECT_EQ(messages(), (std::vector<std::string>{
                            "rules.txt:3: rule 'model: tensor' is used by no include",
                            "rules.txt:5: module 'report' has no files",
                        }));
}

TEST_F(LayeringChecker, AModuleMissingFromTheMapIsAViolation) {
  write_file(dir_ / "include/shmtrain/report/html.hpp", "#pragma once\n");
  EXPECT_EQ(messages(), (std::vector<std::string>{"include/shmtrain/report/html.hpp:1: module 'report' is not in the map"}));
}

TEST_F(LayeringChecker, RefusesAMalformedRulesFile) {
  write_file(dir_ / "bad.txt", "io:\nmodel io\n");
  try {
    read_module_rules(dir_ / "bad.txt");
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("bad.txt:2: expected 'module: allowed modules...'"), std::string::npos)
        << e.what();
  }
  write_file(dir_ / "twice.txt", "io:\nio: model\n");
  EXPECT_THROW(read_module_rules(dir_ / "twice.txt"), std::runtime_error);
}

TEST_F(LayeringChecker, ReadsTheRulesQuotedInADocument) {
  write_file(dir_ / "design.md", "# Design\n```\nnot: this\n```\nThe map (allowed_includes.txt):\n\n```text\n"
                                 "io:\nmodel: io  # why\n```\n");
  const ModuleRules quoted = read_quoted_module_rules(dir_ / "design.md", "allowed_includes.txt");
  ASSERT_EQ(quoted.size(), 2u);
  EXPECT_EQ(quoted.at("model").allowed, std::set<std::string>{"io"});
  write_file(dir_ / "none.md", "# Design\nno map here\n");
  EXPECT_THROW(read_quoted_module_rules(dir_ / "none.md", "allowed_includes.txt"), std::runtime_error);
}

}  // namespace
}  // namespace shmtrain::layering
