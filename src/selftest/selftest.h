#pragma once
// The client's own ceiling: how many streamed tokens per second this machine's speedmatrix
// ingests on one core, the lag from a chunk's send to our stamp, and the memory it needs,
// measured against a fast local streamer (a child process) at several stream counts.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/error.h"
#include "net/stream_client.h"

namespace sm {

struct SelftestPoint {
  int64_t streams = 0;            ///< concurrent streams
  double tokens_per_s = 0;        ///< unpaced: tokens ingested per second (the ceiling)
  double paced_tokens_per_s = 0;  ///< the paced phase's offered rate: paced_tok_s_per_stream x streams, at most ceiling/4
  double lag_p50_us = 0;          ///< paced phase: send -> client stamp, median (µs)
  double lag_p99_us = 0;          ///< paced phase: send -> client stamp, 99th percentile (µs)
  double rss_mib = 0;             ///< peak resident memory of the client process during the point
  std::optional<double> python_tokens_per_s;  ///< asyncio + aiohttp client on the same streamer
};

struct SelftestOptions {
  std::vector<int64_t> streams = {1, 64, 1024, 4096};
  double seconds = 3;             ///< measured time per phase
  double paced_tok_s_per_stream = 25;   ///< the lag phase's rate per stream (capped at ceiling/4 in all)
  int64_t busy_poll_ns = kDefaultBusyPollNs;  ///< the client's StreamClientOptions::busy_poll_ns
  int64_t streamer_tick_ns = 0;         ///< the paced streamer's StreamerConfig::tick_ns (0: each chunk when due)
  bool lag = true;                ///< also run the paced phase (lag below the ceiling)
  bool python = true;             ///< also run the Python comparison (when python3 + aiohttp exist)
  bool http2 = false;             ///< HTTP/2: the streamer speaks it and the client multiplexes (run --http2)
  bool tls = false;               ///< https: the streamer encrypts, the client decrypts (a remote server's cost)
  bool output_checks = true;      ///< each chunk's text through a run's output checks (metrics/output_check.h)
  std::string self_exe = "/proc/self/exe";  ///< binary that runs the streamer (hidden subcommand)
};

/// Runs every point. Fails only when the streamer cannot start.
Result<std::vector<SelftestPoint>> run_selftest(const SelftestOptions& options);

/// The ~1 s check before every run: 64 streams, unpaced. tokens/s the client can ingest.
Result<double> quick_client_ceiling(const std::string& self_exe = "/proc/self/exe");

}  // namespace sm
