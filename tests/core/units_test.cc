#include "core/units.h"

#include <gtest/gtest.h>
#include <limits>

namespace sm {
namespace {

TEST(Units, ParseTokenCount) {
  EXPECT_EQ(parse_token_count("0").value(), 0);
  EXPECT_EQ(parse_token_count("16K").value(), 16384);
  EXPECT_EQ(parse_token_count("16k").value(), 16384);
  EXPECT_EQ(parse_token_count("248K").value(), 253952);
  EXPECT_EQ(parse_token_count("1M").value(), 1048576);
  EXPECT_EQ(parse_token_count(" 12000 ").value(), 12000);
  EXPECT_FALSE(parse_token_count("").has_value());
  EXPECT_FALSE(parse_token_count("16KB").has_value());
  EXPECT_FALSE(parse_token_count("-5").has_value());
  EXPECT_FALSE(parse_token_count("abc").has_value());
}

TEST(Units, ParseLists) {
  auto l = parse_token_list("0,16K, 32K").value();
  ASSERT_EQ(l.size(), 3u);
  EXPECT_EQ(l[2], 32768);
  EXPECT_FALSE(parse_token_list("1,,2").has_value());
  EXPECT_EQ(parse_int_list("1,2,4").value().size(), 3u);
  EXPECT_FALSE(parse_int_list("1,0").has_value());
}

TEST(Units, Format) {
  EXPECT_EQ(format_tokens(16384), "16K");
  EXPECT_EQ(format_tokens(253952), "248K");
  EXPECT_EQ(format_tokens(0), "0");
  EXPECT_EQ(format_tokens(1000), "1000");
  EXPECT_EQ(format_thousands(32424), "32,424");
  EXPECT_EQ(format_thousands(999), "999");
  EXPECT_EQ(format_thousands(1000000), "1,000,000");
  EXPECT_EQ(format_rate(10600), "10.6K");
  EXPECT_EQ(format_rate(999'900), "999.9K");
  EXPECT_EQ(format_rate(2'256'800), "2.26M");
  EXPECT_EQ(format_rate(1081.04), "1,081.0");
  EXPECT_EQ(format_rate(181.7), "181.7");
}

// An upload can say anything: 1e30 used to go through llround (undefined past 9.2e18) and
// showed as "--9,223,372,036,854,775,808" on the site.
// The site's tables showed "14.1K" beside "8,801.4" in one column: a column now has one style.
TEST(Units, AColumnOfFiguresHasOneStyle) {
  const NumberColumn rates({14'112.0, 8'801.4, 181.7, std::nullopt});
  EXPECT_EQ(rates.decimals(), 0);
  EXPECT_EQ(rates.format(14'112.0), "14,112");
  EXPECT_EQ(rates.format(8'801.4), "8,801");
  EXPECT_EQ(rates.format(181.7), "182");
  EXPECT_EQ(rates.format(std::nullopt), "—");
  const NumberColumn small({181.7, 45.25, 0.5});
  EXPECT_EQ(small.format(181.7), "181.7");
  EXPECT_EQ(small.format(45.25), "45.3");  // llround: half away from zero
  EXPECT_EQ(small.format(0.5), "0.5");
  const NumberColumn efficiency({2.72, 0.48});
  EXPECT_EQ(efficiency.format(2.72), "2.72");
  EXPECT_EQ(efficiency.format(0.48), "0.48");
  EXPECT_EQ(NumberColumn({0.012}).format(0.012), "0.012");
  // Limits: zero, a nanosecond's worth, 1e30 (an upload's), not finite; none of them overflows.
  const NumberColumn odd({0.0, 1e-9, 1e30, std::numeric_limits<double>::quiet_NaN()});
  EXPECT_EQ(odd.decimals(), 0);
  EXPECT_EQ(odd.format(0.0), "0");
  EXPECT_EQ(odd.format(1e-9), "0");
  EXPECT_EQ(odd.format(1e30), "1.00e+30");
  EXPECT_EQ(odd.format(std::numeric_limits<double>::infinity()), "—");
  EXPECT_EQ(NumberColumn({}).format(0.0), "0.0");
  EXPECT_EQ(NumberColumn({-1e30}).format(-1e30), "-1.00e+30");
}

TEST(Units, FixedDecimalsRoundOnceAndKeepTheSign) {
  EXPECT_EQ(format_fixed(8801.44, 1), "8,801.4");
  EXPECT_EQ(format_fixed(9.996, 2), "10.00");
  EXPECT_EQ(format_fixed(999.96, 1), "1,000.0");
  EXPECT_EQ(format_fixed(-2.5, 1), "-2.5");
  EXPECT_EQ(format_fixed(-0.001, 1), "0.0");  // no "-0.0"
  EXPECT_EQ(format_fixed(1.5, 0), "2");
  EXPECT_EQ(format_fixed(999'999'999'999'999.0, 0), "999,999,999,999,999");
  EXPECT_EQ(format_fixed(1e15, 3), "1.00e+15");
  EXPECT_EQ(format_fixed(std::numeric_limits<double>::quiet_NaN(), 1), "—");
}

TEST(Units, WholeNumbersNeverOverflow) {
  EXPECT_EQ(format_whole(0), "0");
  EXPECT_EQ(format_whole(1e-9), "0");
  EXPECT_EQ(format_whole(8801.4), "8,801");
  EXPECT_EQ(format_whole(-8801.6), "-8,802");
  EXPECT_EQ(format_whole(999'999'999'999'999.0), "999,999,999,999,999");
  EXPECT_EQ(format_whole(1e15), "1.00e+15");
  EXPECT_EQ(format_whole(1e30), "1.00e+30");
  EXPECT_EQ(format_whole(-1e30), "-1.00e+30");
  EXPECT_EQ(format_whole(std::numeric_limits<double>::max()), "1.80e+308");
  EXPECT_EQ(format_whole(std::numeric_limits<double>::quiet_NaN()), "—");
  EXPECT_EQ(format_whole(std::numeric_limits<double>::infinity()), "—");
  EXPECT_EQ(format_thousands(std::numeric_limits<int64_t>::min()), "-9,223,372,036,854,775,808");
  EXPECT_EQ(format_rate(1e30), "1.00e+30");
  EXPECT_EQ(format_rate(1e-9), "0.0");
}

TEST(Units, ParseShareTakesAPercentageOrAFraction) {
  EXPECT_DOUBLE_EQ(*parse_share("2%"), 0.02);
  EXPECT_DOUBLE_EQ(*parse_share("0.02"), 0.02);
  EXPECT_DOUBLE_EQ(*parse_share("50%"), 0.5);
  EXPECT_FALSE(parse_share(""));
  EXPECT_FALSE(parse_share("%"));
  EXPECT_FALSE(parse_share("2 %"));
  EXPECT_FALSE(parse_share("two%"));
  EXPECT_FALSE(parse_share("2%%"));
}

}  // namespace
}  // namespace sm
