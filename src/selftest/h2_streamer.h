#pragma once
// run_streamer's HTTP/2 server (selftest --http2): cleartext HTTP/2 with prior knowledge, on
// nghttp2. The same chunks as the HTTP/1.1 streamer, paced or unpaced the same way, but a
// connection carries any number of streams (the server allows 100,000 at once), so the client's
// --http2 multiplexing is what gets measured. A GET is answered with a small model list and
// ended (the run's round-trip requests); a POST with an endless stream.
#include "selftest/streamer.h"

namespace sm {

int run_h2_streamer(const StreamerConfig& config, int port_fd, StreamerStats* stats);

}  // namespace sm
