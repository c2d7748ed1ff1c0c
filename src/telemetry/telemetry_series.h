#pragma once
// The raw telemetry of a run, as it is kept in memory and in the run folder's telemetry.jsonl:
// one JSON object per line, appended as samples arrive, so an interrupted run keeps what it saw
// and any cell's window can be re-analysed later. Every line has "kind" and "t_ns" (the run's
// monotonic clock, the same as the cells' windows):
//
//   {"kind":"start","t_ns":…,"unix_ms":…,"interval_s":0.5}          the anchor to wall time
//   {"kind":"gpu","t_ns":…,"gpus":[{"index":0,"power_w":…,…},…]}    GpuReading fields present
//   {"kind":"host","t_ns":…,"cpu_util_pct":…,…}                     HostReading fields present
//   {"kind":"server","t_ns":…,"running":…,"kv_usage":…,…}           ServerReading fields present
//   {"kind":"window","t_ns":begin,"end_ns":…,"phase":"decode","context":…,"concurrency":…,
//    "output_tokens":…}                                              a cell's window (prefill: the
//                                                                    request, with "prompt_tokens")
//
// Absent readings are omitted, never written as null. Readers skip lines they do not know.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"
#include "result/telemetry_types.h"

namespace sm {

/// A measured window, so charts and re-analysis can find the cells in the series.
struct WindowMark {
  int64_t begin_ns = 0;
  int64_t end_ns = 0;
  std::string phase;              ///< "decode" or "prefill"
  int64_t context = 0;
  int64_t concurrency = 0;        ///< decode only (prefill: 1)
  std::optional<int64_t> tokens;  ///< decode: output tokens in the window; prefill: prompt tokens
};

struct TelemetrySeries {
  int64_t start_t_ns = 0;     ///< the "start" line: monotonic time ...
  int64_t start_unix_ms = 0;  ///< ... and the wall clock at that moment
  double interval_s = 0.5;
  std::vector<GpuSample> gpu;
  std::vector<HostSample> host;
  std::vector<ServerSample> server;
  std::vector<WindowMark> windows;
};

// One line of telemetry.jsonl (no trailing newline).
std::string start_line(int64_t t_ns, int64_t unix_ms, double interval_s);
std::string to_jsonl(const GpuSample& s);
std::string to_jsonl(const HostSample& s);
std::string to_jsonl(const ServerSample& s);
std::string to_jsonl(const WindowMark& w);

/// Adds one line to `series`; unknown kinds and blank lines are skipped; malformed JSON is an error.
Result<void> parse_jsonl_line(std::string_view line, TelemetrySeries& series);
/// Reads a whole telemetry.jsonl. A torn last line (a run killed mid-write) is ignored.
Result<TelemetrySeries> read_telemetry_file(const std::string& path);

}  // namespace sm
