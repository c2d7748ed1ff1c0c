#include "bench/request_log.h"

#include <cerrno>
#include <cstring>
#include <fmt/format.h>

namespace sm {

namespace {

std::string_view end_name(RequestEnd end) {
  switch (end) {
    case RequestEnd::Running: return "running";
    case RequestEnd::Finished: return "finished";
    case RequestEnd::EndedEarly: return "ended_early";
    case RequestEnd::Failed: return "failed";
    case RequestEnd::Cut: return "cut";
  }
  return "running";
}

nlohmann::json finish_name(FinishReason finish) {
  switch (finish) {
    case FinishReason::None: return nullptr;
    case FinishReason::Length: return "length";
    case FinishReason::Stop: return "stop";
    case FinishReason::Other: return "other";
  }
  return nullptr;
}

// ms from `from_ns` to `to_ns` (µs resolution), or null when `to_ns` never happened.
nlohmann::json ms_after(int64_t from_ns, int64_t to_ns) {
  if (to_ns < 0) return nullptr;
  return static_cast<double>((to_ns - from_ns) / kNsPerUs) / 1e3;
}

nlohmann::json count_or_null(int64_t n) { return n < 0 ? nlohmann::json(nullptr) : nlohmann::json(n); }

}  // namespace

nlohmann::json request_line(const RequestTag& tag, const RequestRecord& r, const RequestTimeOrigin& origin) {
  nlohmann::json j;
  j["purpose"] = tag.purpose;
  j["context"] = tag.context;
  j["concurrency"] = tag.concurrency;
  if (tag.session > 0) {  // the sessions workload: which conversation, which turn
    j["session"] = tag.session;
    j["turn"] = tag.turn;
  }
  j["request"] = r.id;
  j["slot"] = r.slot;
  const int64_t since_origin_us = (r.send_ns - origin.t_ns) / kNsPerUs;
  j["send_s"] = static_cast<double>(since_origin_us) / 1e6;
  j["send_unix_ms"] = static_cast<double>(origin.unix_ms * 1000 + since_origin_us) / 1e3;
  j["ttft_ms"] = ms_after(r.send_ns, r.first_token_ns);
  j["last_token_ms"] = r.chunks.empty() ? nlohmann::json(nullptr) : ms_after(r.send_ns, r.chunks.back().t_ns);
  j["end_ms"] = ms_after(r.send_ns, r.end_ns);
  j["output_tokens"] = r.tokens;
  if (r.reasoning_tokens >= 0) {  // only where the server streamed reasoning apart from the answer
    j["reasoning_tokens"] = r.reasoning_tokens;
    j["first_answer_ms"] = ms_after(r.send_ns, r.first_answer_ns);
  }
  j["max_tokens"] = r.max_tokens;
  j["chunks"] = r.chunks.size();
  j["prompt_tokens"] = count_or_null(r.usage_prompt_tokens);
  j["cached_prompt_tokens"] = count_or_null(r.cached_prompt_tokens);
  j["token_count_source"] = to_string(r.source);
  j["status"] = end_name(r.end);
  j["finish_reason"] = finish_name(r.finish);
  if (r.end == RequestEnd::Failed) j["error"] = r.error;
  if (r.output_flaw != OutputFlaw::None) j["output_flaw"] = to_string(r.output_flaw);
  return j;
}

Result<std::unique_ptr<RequestLog>> RequestLog::open(const std::string& path, RequestTimeOrigin origin,
                                                     RedactOptions redact) {
  std::FILE* f = std::fopen(path.c_str(), "ae");
  if (!f) return fail(ErrorCode::Io, fmt::format("cannot open {}: {}", path, std::strerror(errno)));
  return std::unique_ptr<RequestLog>(new RequestLog(f, path, origin, std::move(redact)));
}

RequestLog::~RequestLog() { std::fclose(file_); }

Result<void> RequestLog::append(const RequestTag& tag, std::span<const RequestRecord> records) {
  if (failed_ || records.empty()) return {};
  std::string text;
  for (const RequestRecord& r : records) {
    nlohmann::json line = request_line(tag, r, origin_);
    if (auto e = line.find("error"); e != line.end()) *e = redact_text(e->get<std::string>(), redact_);
    text += line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    text += '\n';
  }
  if (std::fwrite(text.data(), 1, text.size(), file_) != text.size() || std::fflush(file_) != 0) {
    failed_ = true;
    return fail(ErrorCode::Io, fmt::format("cannot write {}: {}; per-request records stop here", path_,
                                           std::strerror(errno)));
  }
  lines_ += static_cast<int64_t>(records.size());
  return {};
}

}  // namespace sm
