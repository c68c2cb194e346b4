// The nesting bound every JSON reader applies before parsing: counted in one pass, brackets in
// strings (and escaped quotes) ignored, the refused byte named.
#include <string>

#include <gtest/gtest.h>

#include "shmtrain/common/error.hpp"
#include "shmtrain/io/json_nesting.hpp"
#include "support/test_support.hpp"

namespace shmtrain::io {
namespace {

using shmtrain::testing::error_of;

std::string nested(std::size_t depth) { return std::string(depth, '[') + std::string(depth, ']'); }

TEST(JsonNesting, CountsOpenArraysAndObjects) {
  EXPECT_EQ(json_nesting_overflow("{}", 1), std::string::npos);
  EXPECT_EQ(json_nesting_overflow("{\"a\": [1]}", 1), 6u);
  EXPECT_EQ(json_nesting_overflow("[][][][]", 1), std::string::npos);  // siblings, never 2 deep
  EXPECT_EQ(json_nesting_overflow(nested(512)), std::string::npos);
  EXPECT_EQ(json_nesting_overflow(nested(513)), 512u);
  EXPECT_EQ(json_nesting_overflow("[{\"k\": [{}]}]", 3), 8u);
}

TEST(JsonNesting, BracketsInsideStringsDoNotCount) {
  EXPECT_EQ(json_nesting_overflow("[\"[[[[{{{{\"]", 1), std::string::npos);
  EXPECT_EQ(json_nesting_overflow("[\"a\\\"[[[\"]", 1), std::string::npos);  // escaped quote
  EXPECT_EQ(json_nesting_overflow("[\"a\\\\\", [[]]]", 2), 9u);              // escaped backslash ends
  EXPECT_EQ(json_nesting_overflow("{\"" + std::string(100000, '[') + "\": 1}", 1), std::string::npos);
}

TEST(JsonNesting, ErrorNamesTheSourceTheLimitAndTheByte) {
  EXPECT_EQ(error_of([] { check_json_nesting(nested(100000), "data/train.json"); }),
            "data/train.json: JSON nests arrays and objects deeper than 512 levels (byte 512); no file "
            "shmtrain reads needs that many, so the file is refused");
  EXPECT_EQ(error_of([] { check_json_nesting(nested(512), "ok.json"); }), "(no InputError)");
}

}  // namespace
}  // namespace shmtrain::io
