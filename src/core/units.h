#pragma once
// Token counts written the way people write them: "16K" = 16,384 (K = 1024), "1M" = 1,048,576.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"

namespace sm {

/// Parses "16K", "16k", "248K", "1M" or a plain count like "12000". K = 1024, M = 1024².
Result<int64_t> parse_token_count(std::string_view text);

/// Parses a comma list of token counts: "0,16K,32K".
Result<std::vector<int64_t>> parse_token_list(std::string_view text);

/// Parses a comma list of positive integers: "1,2,4,8".
Result<std::vector<int64_t>> parse_int_list(std::string_view text);

/// Parses a share written as a percentage or a fraction: "2%" or "0.02" -> 0.02. Nothing when the
/// text is not a number (with an optional trailing %).
std::optional<double> parse_share(std::string_view text);

/// Writes a token count the short way when it is a whole number of K: 16384 -> "16K",
/// 253952 -> "248K", 0 -> "0", 12000 -> "12000".
std::string format_tokens(int64_t tokens);

/// Thousands separators: 32424 -> "32,424".
std::string format_thousands(int64_t value);

/// A whole number from a double, any magnitude, never overflowing: 8801.4 -> "8,801";
/// at or past 1e15 (beyond any real figure, but an upload can say 1e30) -> "1.00e+30";
/// not finite -> "—". Use this, never format_thousands(llround(x)), for figures from data.
std::string format_whole(double value);

/// One style for a whole column of figures, so no column shows 14.1K beside 8,801.4: the
/// decimals are the column's, from its largest magnitude (at least 1,000: none; 10: one; 1: two;
/// below: three), the integer part has thousands separators, and there is no K or M suffix. A
/// figure at or past 1e15 (only a refused upload could say it) is written 1.00e+15; a missing or
/// non-finite one "—". The site's tables use it for every figure column.
class NumberColumn {
 public:
  explicit NumberColumn(const std::vector<std::optional<double>>& values);
  int decimals() const { return decimals_; }
  std::string format(const std::optional<double>& value) const;

 private:
  int decimals_ = 1;
};

/// `value` with `decimals` decimals (0..6) and thousands separators: (8801.44, 1) -> "8,801.4".
std::string format_fixed(double value, int decimals);

/// A rate the way the seed page writes it: 10600 -> "10.6K", 9919 -> "9,919", 181.7 -> "181.7".
std::string format_rate(double per_s);

}  // namespace sm
