#pragma once
// What a result records of how it reached the server (RunResult::connection): TLS and whether
// its certificate was checked, the CA file, the proxy and where it came from, the HTTP version
// asked for and spoken, the header names (values redacted), and the network round trip. One
// implementation for `run` and `sweep` (docs/METRICS.md, "Connection").
#include <optional>
#include <string_view>

#include "net/connection_options.h"
#include "net/round_trip.h"
#include "result/result.h"

namespace sm {

/// `connection`: the options the requests used (after any fallback); `http2_requested`: what the
/// user asked for; `round_trip`: the first contact's measurement, when there was one.
/// How many GETs that first contact sends (measure_round_trip).
inline constexpr int kRoundTripRequests = 5;

ConnectionInfo connection_record(std::string_view base_url, const ConnectionOptions& connection, bool http2_requested,
                                 const std::optional<RoundTrip>& round_trip);

}  // namespace sm
