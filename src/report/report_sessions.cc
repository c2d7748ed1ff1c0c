// The sessions section (docs/METRICS.md, "Sessions"): a row per turn number across the sessions —
// the context reached, the share of it the server took from its prefix cache, TTFT and each
// request's decode rate at that depth — under a line of what ran and the whole's figures.
#include <fmt/format.h>

#include "core/units.h"
#include "report/cell_format.h"
#include "report/report_sections.h"
#include "report/translate.h"

namespace sm::report::section {

namespace {

std::string session_share_text(std::optional<double> share) {
  return share ? format_percent(100 * *share) : std::string("–");
}

std::string session_rate_text(std::optional<double> tok_s) { return tok_s ? format_fixed(*tok_s, 1) : std::string("–"); }

}  // namespace

Table sessions_table(const RunResult& r) {
  Table t;
  if (!r.sessions) return t;
  t.header = {tr("Turn"), tr("Requests"), tr("Context"), tr("Cached"), tr("TTFT"), tr("p90 TTFT"), tr("Decode tok/s"),
              tr("Failed")};
  t.align = {Align::Right, Align::Right, Align::Right, Align::Right, Align::Right, Align::Right, Align::Right, Align::Right};
  for (const SessionTurnRow& turn : r.sessions->by_turn) {
    TableRow row;
    row.cells = {std::to_string(turn.turn),
                 format_thousands(turn.requests),
                 turn.prompt_tokens_mean ? format_thousands(static_cast<int64_t>(*turn.prompt_tokens_mean + 0.5)) : "–",
                 session_share_text(turn.cached_share),
                 ms_or_dash(turn.ttft_p50_ms),
                 ms_or_dash(turn.ttft_p90_ms),
                 session_rate_text(turn.decode_tok_s_p50),
                 turn.failed > 0 ? format_thousands(turn.failed) : ""};
    if (turn.failed == turn.requests) row.status = CellStatus::Error;
    t.rows.push_back(std::move(row));
  }
  return t;
}

std::string sessions_caption(const RunResult& r) {
  if (!r.sessions || !r.settings.sessions) return "";
  const SessionsSettings& s = *r.settings.sessions;
  const SessionsResult& m = *r.sessions;
  std::string what =
      s.source == "trace"
          ? trf("The trace {} replayed at {}× its recorded speed: {} sessions, {} turns; a turn went out at its time, or "
                "when its session's previous answer ended if that was later.",
                s.trace_file, fmt::format("{:g}", s.trace_speed), s.sessions, s.trace_requests)
          : trf("{} sessions of {} turns side by side: each opens with {} tokens of its own text, each turn adds {} "
                "and asks for {} of answer; a turn goes out when its session's previous answer ends.",
                s.sessions, s.turns, s.first_tokens, s.user_tokens, s.answer_tokens);
  what += " " + tr("Each turn sends the whole conversation so far, the model's own answers included.");
  if (m.status != CellStatus::Valid) return what + " " + trf("Not measured: {}", m.error);
  what += " " + trf("{} turns in {} s, {} output tok/s in all.", format_thousands(m.requests),
                    format_fixed(m.elapsed_s, 1), session_rate_text(m.output_tok_s));
  if (m.cache_hit_rate) {
    what += " " + trf("The server took {} of the prompt tokens from its prefix cache.", session_share_text(m.cache_hit_rate));
    if (m.ttft_cached_p50_ms && m.ttft_cold_p50_ms)
      what += " " + trf("Median TTFT {} for turns mostly cached ({}), {} for the others ({}).", ms_or_dash(m.ttft_cached_p50_ms),
                        format_thousands(m.cached_requests), ms_or_dash(m.ttft_cold_p50_ms),
                        format_thousands(m.cold_requests));
  }
  if (m.send_late_p90_ms)
    what += " " + trf("Turns went out up to {} after their time (p90): the previous answer took longer than recorded.",
                      ms_or_dash(m.send_late_p90_ms));
  what += " " + tr("Context: the prompt tokens by the server's count (mean); Cached: the share of them it took from its "
                   "cache; TTFT: median and p90; Decode tok/s: each request's output after its first token (median). "
                   "Every request is in requests.jsonl.");
  return what;
}

void add_sessions_findings(const RunResult& r, std::vector<Finding>& out) {
  if (!r.sessions) return;
  const SessionsResult& m = *r.sessions;
  if (m.status == CellStatus::Error || m.status == CellStatus::BeyondModel)
    out.push_back({Severity::Warning, trf("Sessions: {}", m.error)});
  for (const std::string& w : m.warnings) out.push_back({Severity::Warning, trf("Sessions: {}", w)});
  if (m.status == CellStatus::Valid && !m.cache_hit_rate)
    out.push_back({Severity::Info,
                   tr("Sessions: the server said of no request how many prompt tokens it took from its prefix cache "
                      "(llama.cpp's timings, usage.prompt_tokens_details.cached_tokens; vLLM sends it with "
                      "--enable-prompt-tokens-details): cached and cold turns cannot be told apart.")});
}

}  // namespace sm::report::section
