#include "site/timestamps.h"

#include <fmt/format.h>

#include <ctime>

namespace sm::site {

std::string iso8601_utc_ms(int64_t unix_ms) {
  const int64_t ms = ((unix_ms % 1000) + 1000) % 1000;
  const std::time_t seconds = static_cast<std::time_t>((unix_ms - ms) / 1000);
  std::tm tm{};
  gmtime_r(&seconds, &tm);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                     tm.tm_hour, tm.tm_min, tm.tm_sec, ms);
}

std::string display_minutes(std::string_view iso8601) {
  std::string out(iso8601.substr(0, 16));
  if (out.size() > 10 && out[10] == 'T') out[10] = ' ';
  return out;
}

}  // namespace sm::site
