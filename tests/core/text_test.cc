// escape_controls: what reaches a terminal or a log line from uploaded text.
#include <gtest/gtest.h>

#include "core/text.h"

namespace sm {
namespace {

TEST(EscapeControls, KeepsPrintableTextAndEscapesWhatDrivesATerminal) {
  EXPECT_EQ(escape_controls("Qwen3.5-4B AWQ"), "Qwen3.5-4B AWQ");
  EXPECT_EQ(escape_controls("日本語 Ünïcode"), "日本語 Ünïcode");
  EXPECT_EQ(escape_controls("a\x1b[2Kb"), "a\\x1b[2Kb");
  EXPECT_EQ(escape_controls(std::string("\0\t\r\n\x7f", 5)), "\\x00\\x09\\x0d\\x0a\\x7f");
  EXPECT_EQ(escape_controls("\xc2\x9b" "31m"), "\\u009b31m");           // C1 CSI
  EXPECT_EQ(escape_controls("abc\xe2\x80\xae" "fed"), "abc\\u202efed");  // right-to-left override
  EXPECT_EQ(escape_controls("\xe2\x81\xa6x"), "\\u2066x");              // left-to-right isolate
  EXPECT_EQ(escape_controls("back\\slash"), "back\\\\slash");
}

TEST(EscapeControls, BytesThatAreNotUtf8AreEscapedOneByOne) {
  EXPECT_EQ(escape_controls("\xff"), "\\xff");
  EXPECT_EQ(escape_controls("a\x80z"), "a\\x80z");            // a stray continuation byte
  EXPECT_EQ(escape_controls("\xe6\x97"), "\\xe6\\x97");       // a cut sequence
  EXPECT_EQ(escape_controls("\xc0\xaf"), "\\xc0\\xaf");       // overlong '/'
  EXPECT_EQ(escape_controls("\xed\xa0\x80"), "\\xed\\xa0\\x80");  // a surrogate
  EXPECT_EQ(escape_controls(""), "");
}

}  // namespace
}  // namespace sm
