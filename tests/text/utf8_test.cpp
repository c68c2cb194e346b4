#include "shmtrain/text/utf8.hpp"

#include <string>

#include <gtest/gtest.h>

#include "shmtrain/common/error.hpp"

namespace shmtrain::text {
namespace {

TEST(TextUtf8, AcceptsWhatPythonsStrictCodecAccepts) {
  EXPECT_EQ(find_invalid_utf8(""), std::string_view::npos);
  EXPECT_EQ(find_invalid_utf8("h\xC3\xA9llo \xE6\xAF\x8F \xF0\x9F\x98\x80"), std::string_view::npos);  // é 每 😀
  EXPECT_EQ(find_invalid_utf8("\xF4\x8F\xBF\xBF"), std::string_view::npos);                            // U+10FFFF
}

TEST(TextUtf8, RejectsAndLocatesBadSequences) {
  EXPECT_EQ(find_invalid_utf8("ab\xFF"), 2u);                // never valid
  EXPECT_EQ(find_invalid_utf8("ab\xC3"), 2u);                // truncated at the end
  EXPECT_EQ(find_invalid_utf8("a\xC3(b"), 1u);               // continuation missing
  EXPECT_EQ(find_invalid_utf8("\x80x"), 0u);                 // lone continuation byte
  EXPECT_EQ(find_invalid_utf8("x\xC0\xAF"), 1u);             // overlong '/'
  EXPECT_EQ(find_invalid_utf8("\xE0\x80\xAF"), 0u);          // overlong, 3 bytes
  EXPECT_EQ(find_invalid_utf8("ok\xED\xA0\x80"), 2u);        // surrogate U+D800
  EXPECT_EQ(find_invalid_utf8("\xF4\x90\x80\x80"), 0u);      // above U+10FFFF
  EXPECT_EQ(find_invalid_utf8("caf\xE9 au lait"), 3u);       // Latin-1 é
}

TEST(TextUtf8, CheckNamesTheInputAndTheByte) {
  try {
    check_utf8("caf\xE9", "text_b");
    FAIL() << "no error for Latin-1 text";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(),
                 "text_b: invalid UTF-8 at byte 3 (0xE9): re-encode the input as UTF-8 (e.g. `iconv -f latin1 -t "
                 "utf-8`)");
  }
}

TEST(TextUtf8, EncodeDecodeRoundTrip) {
  for (char32_t cp : {0x24u, 0x7Fu, 0x80u, 0xE9u, 0x7FFu, 0x800u, 0x6BCFu, 0xFFFFu, 0x10000u, 0x1F600u, 0x10FFFFu}) {
    std::string bytes;
    append_utf8(bytes, cp);
    char32_t decoded = 0;
    ASSERT_EQ(decode_utf8(bytes, 0, decoded), bytes.size()) << std::hex << static_cast<unsigned>(cp);
    EXPECT_EQ(decoded, cp);
  }
}

}  // namespace
}  // namespace shmtrain::text
