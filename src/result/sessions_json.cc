#include "result/sessions_json.h"

#include <fmt/format.h>

#include "result/json_fields.h"

namespace sm {

using nlohmann::json;
using json_fields::opt;
using json_fields::read;
using json_fields::read_opt;

json sessions_settings_to_json(const SessionsSettings& s) {
  json j = {{"source", s.source}, {"sessions", s.sessions}, {"turns", s.turns}, {"seed", s.seed}};
  if (s.source == "trace") {
    j["trace_file"] = s.trace_file;
    j["trace_sha256"] = s.trace_sha256;
    j["trace_requests"] = s.trace_requests;
    j["trace_speed"] = s.trace_speed;
  } else {
    j["first_tokens"] = s.first_tokens;
    j["user_tokens"] = s.user_tokens;
    j["answer_tokens"] = s.answer_tokens;
  }
  return j;
}

SessionsSettings sessions_settings_from_json(const json& j) {
  SessionsSettings s;
  read(j, "source", s.source);
  read(j, "sessions", s.sessions);
  read(j, "turns", s.turns);
  read(j, "seed", s.seed);
  read(j, "first_tokens", s.first_tokens);
  read(j, "user_tokens", s.user_tokens);
  read(j, "answer_tokens", s.answer_tokens);
  read(j, "trace_file", s.trace_file);
  read(j, "trace_sha256", s.trace_sha256);
  read(j, "trace_requests", s.trace_requests);
  read(j, "trace_speed", s.trace_speed);
  return s;
}

json sessions_to_json(const SessionsResult& r) {
  json turns = json::array();
  for (const SessionTurnRow& t : r.by_turn)
    turns.push_back({{"turn", t.turn},
                     {"requests", t.requests},
                     {"failed", t.failed},
                     {"prompt_tokens_mean", opt(t.prompt_tokens_mean)},
                     {"cached_share", opt(t.cached_share)},
                     {"ttft_p50_ms", opt(t.ttft_p50_ms)},
                     {"ttft_p90_ms", opt(t.ttft_p90_ms)},
                     {"decode_tok_s_p50", opt(t.decode_tok_s_p50)}});
  json j = {{"status", std::string(to_string(r.status))},
            {"requests", r.requests},
            {"failed", r.failed},
            {"elapsed_s", r.elapsed_s},
            {"output_tok_s", opt(r.output_tok_s)},
            {"cache_hit_rate", opt(r.cache_hit_rate)},
            {"cached_requests", r.cached_requests},
            {"cold_requests", r.cold_requests},
            {"ttft_cached_p50_ms", opt(r.ttft_cached_p50_ms)},
            {"ttft_cold_p50_ms", opt(r.ttft_cold_p50_ms)},
            {"send_late_p90_ms", opt(r.send_late_p90_ms)},
            {"by_turn", std::move(turns)}};
  if (!r.error.empty()) j["error"] = r.error;
  if (!r.warnings.empty()) j["warnings"] = r.warnings;
  return j;
}

Result<SessionsResult> sessions_from_json(const json& j) {
  if (!j.is_object()) return fail(ErrorCode::InvalidArgument, "result JSON: sessions is not an object");
  SessionsResult r;
  std::string status = "valid";
  read(j, "status", status);
  auto parsed = parse_cell_status(status);
  if (!parsed) return fail(ErrorCode::InvalidArgument, fmt::format("result JSON: sessions status \"{}\"", status));
  r.status = *parsed;
  read(j, "error", r.error);
  read(j, "warnings", r.warnings);
  read(j, "requests", r.requests);
  read(j, "failed", r.failed);
  read(j, "elapsed_s", r.elapsed_s);
  read_opt(j, "output_tok_s", r.output_tok_s);
  read_opt(j, "cache_hit_rate", r.cache_hit_rate);
  read(j, "cached_requests", r.cached_requests);
  read(j, "cold_requests", r.cold_requests);
  read_opt(j, "ttft_cached_p50_ms", r.ttft_cached_p50_ms);
  read_opt(j, "ttft_cold_p50_ms", r.ttft_cold_p50_ms);
  read_opt(j, "send_late_p90_ms", r.send_late_p90_ms);
  if (auto it = j.find("by_turn"); it != j.end() && it->is_array())
    for (const json& t : *it) {
      if (!t.is_object()) return fail(ErrorCode::InvalidArgument, "result JSON: a sessions turn is not an object");
      SessionTurnRow row;
      read(t, "turn", row.turn);
      read(t, "requests", row.requests);
      read(t, "failed", row.failed);
      read_opt(t, "prompt_tokens_mean", row.prompt_tokens_mean);
      read_opt(t, "cached_share", row.cached_share);
      read_opt(t, "ttft_p50_ms", row.ttft_p50_ms);
      read_opt(t, "ttft_p90_ms", row.ttft_p90_ms);
      read_opt(t, "decode_tok_s_p50", row.decode_tok_s_p50);
      r.by_turn.push_back(row);
    }
  return r;
}

}  // namespace sm
