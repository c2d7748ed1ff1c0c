#pragma once
// The self-test's fast local streamer: an epoll loop (run in a child process, so it has its own
// core and its memory is not counted as the client's) that accepts streaming completion
// requests and answers each with an endless SSE stream of vLLM-like token chunks, as fast as
// the sockets take them or paced at a set total rate. Every chunk carries its send time
// ("t": monotonic ns) so the client can measure the lag from send to stamp.
#include <cstdint>

namespace sm {

struct StreamerConfig {
  double total_tokens_per_s = 0;  ///< 0 = unpaced (as fast as possible); else paced over all streams
  double run_s = 10;              ///< the streamer exits after this long
  int chunks_per_write = 32;      ///< unpaced: chunks written per socket write
  int64_t hold_streams = 0;       ///< send nothing until this many requests are in (0: start at once)
  /// Paced: 0 = poll without sleeping and send each chunk when it falls due (the streamer takes
  /// a whole core). Else sleep between sends and wake every tick to send the chunks that fell
  /// due together, each stamped at its own write (bursts, like a server's decode steps).
  int64_t tick_ns = 0;
  /// Speak HTTP/2 (cleartext, prior knowledge) instead of HTTP/1.1: every connection carries any
  /// number of streams (selftest --http2).
  bool http2 = false;
  /// Serve https (a throwaway certificate; with http2, "h2" negotiated in the handshake) so the
  /// client's TLS path is measured too (selftest --tls).
  bool tls = false;
};

/// What a streamer served, for tests that run it in a thread.
struct StreamerStats {
  int64_t connections = 0;  ///< connections accepted
  int64_t streams = 0;      ///< streaming requests answered (HTTP/2: streams over all connections)
};

/// Binds 127.0.0.1:0, writes the port as a decimal line to `port_fd`, and serves until run_s.
/// Returns a process exit code; fills `stats` when given.
int run_streamer(const StreamerConfig& config, int port_fd, StreamerStats* stats = nullptr);

}  // namespace sm
