#pragma once
// Upload times: ISO-8601 UTC with milliseconds, so they sort as text and order uploads made in
// the same second.
#include <cstdint>
#include <string>

namespace sm::site {

/// "2026-12-02T14:34:48.123Z" for a Unix time in ms.
std::string iso8601_utc_ms(int64_t unix_ms);

}  // namespace sm::site
