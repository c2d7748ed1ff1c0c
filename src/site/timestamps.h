#pragma once
// Upload times: ISO-8601 UTC with milliseconds, so they sort as text and order uploads made in
// the same second.
#include <cstdint>
#include <string>
#include <string_view>

namespace sm::site {

/// "2026-12-02T14:34:48.123Z" for a Unix time in ms.
std::string iso8601_utc_ms(int64_t unix_ms);

/// How a page shows such a time: "2026-12-02 14:34" (minutes; a space, so it can wrap).
std::string display_minutes(std::string_view iso8601);

}  // namespace sm::site
