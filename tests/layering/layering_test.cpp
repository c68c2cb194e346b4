// The module map stays true: no product file includes a module its module may not (rules in
// allowed_includes.txt). The second half checks the checker on small trees of its own.
#include <gtest/gtest.h>

#include "layering/module_rules.hpp"
#include "support/test_support.hpp"

namespace shmtrain::layering {
namespace {

using shmtrain::testing::TempDir;
using shmtrain::testing::write_file;

TEST(Layering, EveryIncludeFollowsTheModuleMap) {
  const std::filesystem::path root = shmtrain::testing::source_dir();
  const ModuleRules rules = read_module_rules(root / "tests/layering/allowed_includes.txt");
  const std::vector<Violation> violations = check_tree(root, rules);
  std::string report;
  for (const Violation& v : violations) report += v.message() + "\n";
  EXPECT_TRUE(violations.empty()) << violations.size() << " include(s) cross the module map:\n" << report;
}

class LayeringChecker : public ::testing::Test {
 protected:
  void SetUp() override {
    write_file(dir_ / "rules.txt", "# comment\ncommon:\nio:\nmodel: io  # reason\n");
    write_file(dir_ / "include/shmtrain/io/file.hpp", "#pragma once\n#include \"shmtrain/common/error.hpp\"\n");
    write_file(dir_ / "src/model/model.cpp",
               "#include \"shmtrain/model/model.hpp\"\n#include \"shmtrain/io/file.hpp\"\n#include <vector>\n");
  }
  std::vector<std::string> messages() const {
    std::vector<std::string> out;
    for (const Violation& v : check_tree(dir_.path(), read_module_rules(dir_ / "rules.txt"))) {
      out.push_back(v.message());
    }
    return out;
  }
  TempDir dir_;
};

TEST_F(LayeringChecker, AcceptsATreeThatFollowsItsRules) { EXPECT_TRUE(messages().empty()); }

TEST_F(LayeringChecker, NamesTheFileAndLineOfAForbiddenInclude) {
  write_file(dir_ / "src/io/writer.cpp",
             "#include \"shmtrain/io/file.hpp\"\n\n  #  include \"shmtrain/model/batch.hpp\"  // no\n");
  write_file(dir_ / "bench/bench_x.cpp", "#include \"shmtrain/model/model.hpp\"\n");
  EXPECT_EQ(messages(), (std::vector<std::string>{
                            "bench/bench_x.cpp:1: module 'bench' is not in the map",
                            "src/io/writer.cpp:3: io may not include model (shmtrain/model/batch.hpp)",
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

}  // namespace
}  // namespace shmtrain::layering
