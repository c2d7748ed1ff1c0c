#pragma once
// The network's share of every latency: a few small GETs on one kept-alive connection, timed
// from the request's send to the response's first byte. The first request opens the connection
// (and does the TLS handshake), which is not counted; what is left is one round trip plus the
// server's time to answer a trivial route. Also tells which HTTP version the server answered
// with, which is how `--http2` learns whether the server speaks it.
#include <string>
#include <vector>

#include "core/error.h"
#include "net/connection_options.h"
#include "net/stream_client.h"

namespace sm {

/// What the requests of measure_round_trip showed.
struct RoundTrip {
  std::vector<double> samples_ms;  ///< send -> first response byte of each request, in order
  double median_ms = 0;            ///< median of samples_ms
  std::string http_version;        ///< what the connection spoke: "1.0", "1.1", "2", "3"
  long http_status = 0;            ///< the last response's status (any status still times a round trip)
};

/// Sends `request` (a GET) `count` times on one connection. Fails on the first transport error,
/// with the same message (and hints) as every other request of the run would get.
Result<RoundTrip> measure_round_trip(const HttpRequest& request, const ConnectionOptions& connection, int count,
                                     double timeout_s = 10);

}  // namespace sm
