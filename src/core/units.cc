#include "core/units.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fmt/format.h>

#include "core/text.h"

namespace sm {

namespace {

template <class F>
auto parse_list(std::string_view text, F parse_one) -> Result<std::vector<int64_t>> {
  std::vector<int64_t> out;
  if (trim_blanks(text).empty()) return fail(ErrorCode::InvalidArgument, "empty list");
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    std::string_view item = text.substr(start, comma == std::string_view::npos ? text.npos : comma - start);
    auto v = parse_one(trim_blanks(item));
    if (!v) return std::unexpected(v.error());
    out.push_back(*v);
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return out;
}

}  // namespace

Result<int64_t> parse_token_count(std::string_view text) {
  std::string_view s = trim_blanks(text);
  if (s.empty()) return fail(ErrorCode::InvalidArgument, "empty token count");
  int64_t mult = 1;
  char last = s.back();
  if (last == 'k' || last == 'K') {
    mult = 1024;
    s.remove_suffix(1);
  } else if (last == 'm' || last == 'M') {
    mult = 1024 * 1024;
    s.remove_suffix(1);
  }
  int64_t value = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ec != std::errc() || ptr != s.data() + s.size() || value < 0)
    return fail(ErrorCode::InvalidArgument,
                fmt::format("'{}' is not a token count (examples: 0, 512, 16K, 1M)", text));
  if (value > (int64_t{1} << 40) / mult)
    return fail(ErrorCode::InvalidArgument, fmt::format("token count '{}' is too large", text));
  return value * mult;
}

Result<std::vector<int64_t>> parse_token_list(std::string_view text) {
  return parse_list(text, parse_token_count);
}

Result<std::vector<int64_t>> parse_int_list(std::string_view text) {
  return parse_list(text, [](std::string_view s) -> Result<int64_t> {
    int64_t value = 0;
    auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
    if (ec != std::errc() || ptr != s.data() + s.size() || value <= 0)
      return fail(ErrorCode::InvalidArgument, fmt::format("'{}' is not a positive integer", s));
    return value;
  });
}

std::optional<double> parse_share(std::string_view text) {
  const bool percent = text.ends_with('%');
  if (percent) text.remove_suffix(1);
  double v = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || ptr != text.data() + text.size()) return std::nullopt;
  return percent ? v / 100 : v;
}

std::string format_tokens(int64_t tokens) {
  if (tokens != 0 && tokens % (1024 * 1024) == 0) return fmt::format("{}M", tokens / (1024 * 1024));
  if (tokens != 0 && tokens % 1024 == 0) return fmt::format("{}K", tokens / 1024);
  return fmt::format("{}", tokens);
}

std::string format_thousands(int64_t value) {
  // The magnitude as unsigned: -INT64_MIN does not fit an int64_t.
  const uint64_t magnitude = value < 0 ? uint64_t{0} - static_cast<uint64_t>(value) : static_cast<uint64_t>(value);
  std::string digits = fmt::format("{}", magnitude);
  std::string out;
  int n = static_cast<int>(digits.size());
  for (int i = 0; i < n; ++i) {
    if (i > 0 && (n - i) % 3 == 0) out.push_back(',');
    out.push_back(digits[i]);
  }
  return value < 0 ? "-" + out : out;
}

namespace {
// Past this no real figure goes (a 1e15 tok/s or watts); llround would overflow near 9.2e18.
constexpr double kScientificFrom = 1e15;
}  // namespace

std::string format_whole(double value) {
  if (!std::isfinite(value)) return "—";
  if (std::abs(value) >= kScientificFrom) return fmt::format("{:.2e}", value);
  return format_thousands(std::llround(value));
}

std::string format_fixed(double value, int decimals) {
  if (!std::isfinite(value)) return "—";
  if (std::abs(value) >= kScientificFrom) return fmt::format("{:.2e}", value);
  decimals = std::clamp(decimals, 0, 6);
  int64_t scale = 1;
  for (int i = 0; i < decimals; ++i) scale *= 10;
  // Rounded once, as a whole number of the last decimal, so 9.996 at two decimals is "10.00".
  const int64_t scaled = std::llround(std::abs(value) * static_cast<double>(scale));
  std::string out = (value < 0 && scaled != 0 ? "-" : "") + format_thousands(scaled / scale);
  if (decimals > 0) out += fmt::format(".{:0{}}", scaled % scale, decimals);
  return out;
}

NumberColumn::NumberColumn(const std::vector<std::optional<double>>& values) {
  double largest = 0;
  for (const auto& v : values)
    if (v && std::isfinite(*v)) largest = std::max(largest, std::abs(*v));
  decimals_ = largest >= 999.5 ? 0 : largest >= 9.995 ? 1 : largest >= 0.9995 ? 2 : 3;
  if (largest == 0) decimals_ = 1;
}

std::string NumberColumn::format(const std::optional<double>& value) const {
  if (!value || !std::isfinite(*value)) return "—";
  return format_fixed(*value, decimals_);
}

std::string format_rate(double per_s) {
  if (!std::isfinite(per_s)) return "—";
  if (std::abs(per_s) >= kScientificFrom) return fmt::format("{:.2e}", per_s);
  if (per_s >= 999'950) return fmt::format("{:.2f}M", per_s / 1e6);
  if (per_s >= 10'000) return fmt::format("{:.1f}K", per_s / 1000.0);
  if (per_s >= 1'000) {
    // "1,081.0" style keeps one decimal like the seed's decode cells.
    int64_t whole = static_cast<int64_t>(per_s);
    int tenth = static_cast<int>(std::lround((per_s - static_cast<double>(whole)) * 10));
    if (tenth == 10) { ++whole; tenth = 0; }
    return fmt::format("{}.{}", format_thousands(whole), tenth);
  }
  return fmt::format("{:.1f}", per_s);
}

}  // namespace sm
