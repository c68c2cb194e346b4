#include "shmtrain/common/error.hpp"

#include <cerrno>

#include <gtest/gtest.h>

namespace shmtrain {
namespace {

TEST(Error, InputErrorFormatsItsMessage) {
  try {
    fail_input("{}:{}: label '{}' is not in the label set", "train.tsv", 7, "maybe");
    FAIL() << "fail_input returned";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "train.tsv:7: label 'maybe' is not in the label set");
  }
}

TEST(Error, SystemErrorCarriesErrnoText) {
  errno = ENOENT;
  try {
    throw_errno("open /nonexistent");
  } catch (const SystemError& e) {
    EXPECT_EQ(e.errno_value(), ENOENT);
    EXPECT_STREQ(e.what(), "open /nonexistent: No such file or directory");
  }
}

}  // namespace
}  // namespace shmtrain
