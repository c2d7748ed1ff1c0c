// The terminal view fits its width, and colour changes nothing but colour.
#include <gtest/gtest.h>

#include <regex>

#include "report/golden.h"
#include "report/report.h"
#include "report/term_text.h"

namespace sm::report {
namespace {

std::string strip_ansi(const std::string& text) {
  static const std::regex kSgr("\x1b\\[[0-9;]*m");
  return std::regex_replace(text, kSgr, "");
}

void expect_fits(const std::string& text, size_t width) {
  size_t start = 0;
  while (start < text.size()) {
    size_t nl = text.find('\n', start);
    std::string line = text.substr(start, nl == std::string::npos ? std::string::npos : nl - start);
    EXPECT_LE(display_width(line), width) << "[" << line << "]";
    if (nl == std::string::npos) break;
    start = nl + 1;
  }
}

TEST(ReportTerm, FitsEveryWidthAndColourOnlyAddsEscapes) {
  for (const RunResult& r : {test::seed_fixture(), test::variant_fixture()}) {
    for (int width : {40, 60, 80, 100}) {
      std::string plain = render_report(r, ReportFormat::Term, {false, width});
      std::string coloured = render_report(r, ReportFormat::Term, {true, width});
      expect_fits(plain, static_cast<size_t>(width));
      expect_fits(coloured, static_cast<size_t>(width));
      EXPECT_EQ(plain.find('\x1b'), std::string::npos);
      EXPECT_NE(coloured.find('\x1b'), std::string::npos);
      EXPECT_EQ(strip_ansi(coloured), plain) << width;
    }
  }
}

TEST(ReportTerm, CompareFitsToo) {
  std::vector<RunResult> runs{test::seed_fixture(), test::variant_fixture()};
  for (int width : {60, 100}) {
    std::string plain = render_compare(runs, ReportFormat::Term, {{false, width}, {}});
    std::string coloured = render_compare(runs, ReportFormat::Term, {{true, width}, {}});
    expect_fits(plain, static_cast<size_t>(width));
    EXPECT_EQ(strip_ansi(coloured), plain);
  }
}

TEST(TermText, WidthWrapAndPad) {
  EXPECT_EQ(display_width("—·×"), 3u);
  EXPECT_EQ(display_width("\x1b[1mab\x1b[0m"), 2u);
  EXPECT_EQ(pad_left("ab", 4), "  ab");
  EXPECT_EQ(pad_right("—", 3), "—  ");
  EXPECT_EQ(wrap("aaa bbb ccc", 7, "  "), "aaa bbb\n  ccc\n");
  EXPECT_EQ(wrap_block("aaa bbb", 6, "  "), "  aaa\n  bbb\n");
  Ansi off(false);
  EXPECT_EQ(off.bold("x"), "x");
  EXPECT_EQ(Ansi(true).bold("x"), "\x1b[1mx\x1b[0m");
  EXPECT_EQ(Ansi(true).dim("a\nb\n"), "\x1b[2ma\x1b[0m\n\x1b[2mb\x1b[0m\n");
}

}  // namespace
}  // namespace sm::report
