#pragma once
// Per-request records (`run --save-requests`): every request a run sends, one JSON line each in
// the run folder's requests.jsonl — what it was for, when it was sent, its first and last token,
// its token counts and how it ended (docs/METRICS.md, "Per-request records"), for people to make
// their own plots. Appended a cell at a time and flushed, so an interrupted run keeps every line
// it wrote; a resumed run appends.
#include <cstdint>
#include <cstdio>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "core/clock.h"
#include "core/error.h"
#include "metrics/request_record.h"
#include "result/redact.h"

namespace sm {

inline constexpr std::string_view kRequestsFile = "requests.jsonl";

/// What a batch of requests was sent for.
struct RequestTag {
  std::string_view purpose;  ///< "calibration", "warm-up", "prefill", "decode", "burst", "slo probe", "session"
  int64_t context = 0;       ///< the prompt's context (tokens); 0 where it has none
  int64_t concurrency = 1;   ///< simultaneous requests
  int64_t session = 0;       ///< sessions workload: the session (1-based); 0 = not a session's turn
  int64_t turn = 0;          ///< ... and its turn (1-based)
};

/// Where a line's times are counted from: a monotonic instant and the wall clock at it.
struct RequestTimeOrigin {
  int64_t t_ns = 0;      ///< monotonic
  int64_t unix_ms = 0;   ///< wall clock at t_ns
};

/// One request as a line of requests.jsonl (times of a request that never got there are null).
nlohmann::json request_line(const RequestTag& tag, const RequestRecord& r, const RequestTimeOrigin& origin);

class RequestLog {
 public:
  /// Opens (appends to) `path`.
  static Result<std::unique_ptr<RequestLog>> open(const std::string& path, RequestTimeOrigin origin,
                                                  RedactOptions redact);
  ~RequestLog();
  RequestLog(const RequestLog&) = delete;
  RequestLog& operator=(const RequestLog&) = delete;

  /// Writes one line per record and flushes. A failed write is returned once; later ones are
  /// silent (the run goes on without the records).
  Result<void> append(const RequestTag& tag, std::span<const RequestRecord> records);
  int64_t lines_written() const { return lines_; }

 private:
  RequestLog(std::FILE* file, std::string path, RequestTimeOrigin origin, RedactOptions redact)
      : file_(file), path_(std::move(path)), origin_(origin), redact_(std::move(redact)) {}
  std::FILE* file_;
  std::string path_;
  RequestTimeOrigin origin_;
  RedactOptions redact_;
  int64_t lines_ = 0;
  bool failed_ = false;
};

}  // namespace sm
