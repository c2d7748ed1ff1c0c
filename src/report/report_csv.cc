// measurements.csv: one row per prefill row and decode cell with every recorded number, raw
// (no thousands separators, no units in the cells: the units are in the column names). The
// columns are the same for every run, telemetry or not, so files of different runs line up.
#include <algorithm>
#include <array>
#include <fmt/format.h>
#include <optional>

#include "report/printers.h"

namespace sm::report {

namespace {

// RFC 4180: a field with a comma, quote or line break is quoted, quotes doubled.
std::string field(std::string_view text) {
  if (text.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(text);
  std::string out = "\"";
  for (char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string num(const std::optional<double>& v) { return v ? fmt::format("{}", *v) : ""; }
std::string num(const std::optional<int64_t>& v) { return v ? fmt::format("{}", *v) : ""; }

// The columns, in file order; kColumnNames is indexed by CsvColumn.
enum CsvColumn : size_t {
  kRunId, kPhase, kContextTokens, kConcurrency, kStatus, kPromptTokS, kTotalTokS, kPerRequestTokS, kTtftMs,
  kTtftP90Ms, kTtftP99Ms, kTbtMs, kTbtP90Ms, kTbtP99Ms, kChunkGapMs, kTokensPerChunk, kAvgActive,
  kEffectiveConcurrency, kCompleted, kOutputTokens, kMeasuredS, kRequestsStarted, kRequestsFailed, kEndedEarly, kServerTokS,
  kPromptTokens, kCachedTokens, kPromptTokensMin, kPromptTokensMax, kPromptLengthOk, kTokenCountSource, kError,
  kWarnings,
  // Telemetry (docs/METRICS.md, "Telemetry"), after the older columns so their positions hold.
  kGpuPowerW, kGpuEnergyJ, kTokensPerJoule, kGpuSmClockMhz, kGpuTempMaxC, kThrottle, kHostCpuUtilPct,
  kServerRunningMean, kServerWaitingMean, kServerWaitingMax, kServerKvUsageMax, kServerPreemptions,
  // Confidence intervals (docs/METRICS.md), after the telemetry for the same reason.
  kTotalTokSCi, kPerRequestTokSCi,
  // Burst cells (--requests).
  kE2eMs, kE2eP90Ms, kE2eP99Ms, kTpotMs, kTpotP90Ms, kTpotP99Ms,
  // Adaptive windows (--precision): the window's own rate, whether it settled, and the horizon a
  // settled cell's total_tok_s is projected to.
  kWindowTokS, kSettled, kProjectedToS,
  // The SLO search (run --slo): a decode cell or probe judged against the SLO; a search's answer.
  kSloBasis, kSloMeets, kSloMetFraction, kSloTtftMs, kSloTpotMs, kSloGoodputRps, kSloGoodputTokS,
  // Energy and cost (docs/METRICS.md, "Energy and cost per million tokens").
  kHostEnergyJ, kHostEnergySource, kGpuJPerOutputToken, kJPerOutputToken, kJPerTotalToken, kServedJPerOutputToken,
  kCostPerMtok,
  // Speculative decoding (the server's counters over the window), answers ended by the model
  // (--natural-eos) and reasoning streamed apart from the answer (docs/METRICS.md).
  kSpecDraftTokens, kSpecAcceptedTokens, kSpecAcceptLength, kRequestsEnded, kEndedOutputTokensP50,
  kEndedOutputTokensP90, kEndedOutputTokensP99, kReasoningRequests, kAnsweredRequests, kFirstAnswerMs,
  kFirstAnswerP90Ms, kReasoningTokensP50, kColumnCount
};

constexpr std::array<std::string_view, kColumnCount> kColumnNames = {
    "run_id", "phase", "context_tokens", "concurrency", "status", "prompt_tok_s", "total_tok_s",
    "per_request_tok_s", "ttft_ms", "ttft_p90_ms", "ttft_p99_ms", "tbt_ms", "tbt_p90_ms", "tbt_p99_ms",
    "chunk_gap_ms", "tokens_per_chunk", "avg_active", "effective_concurrency", "completed", "output_tokens",
    "measured_s", "requests_started", "requests_failed", "ended_early", "server_tok_s", "prompt_tokens", "cached_tokens",
    "prompt_tokens_min", "prompt_tokens_max", "prompt_length_ok", "token_count_source", "error", "warnings",
    "gpu_power_w", "gpu_energy_j", "tokens_per_joule", "gpu_sm_clock_mhz", "gpu_temp_max_c", "throttle",
    "host_cpu_util_pct", "server_running_mean", "server_waiting_mean", "server_waiting_max", "server_kv_usage_max",
    "server_preemptions", "total_tok_s_ci", "per_request_tok_s_ci", "e2e_ms", "e2e_p90_ms", "e2e_p99_ms",
    "tpot_ms", "tpot_p90_ms", "tpot_p99_ms", "window_tok_s", "settled", "projected_to_s",
    "slo_basis", "slo_meets", "slo_met_fraction", "slo_ttft_ms", "slo_tpot_ms", "slo_goodput_rps", "slo_goodput_tok_s",
    "host_energy_j", "host_energy_source", "gpu_j_per_output_token", "j_per_output_token", "j_per_total_token",
    "served_j_per_output_token", "cost_per_mtok", "spec_draft_tokens", "spec_accepted_tokens", "spec_accept_length",
    "requests_ended", "ended_output_tokens_p50", "ended_output_tokens_p90", "ended_output_tokens_p99",
    "reasoning_requests", "answered_requests", "first_answer_ms", "first_answer_p90_ms", "reasoning_tokens_p50"};

using Row = std::array<std::string, kColumnCount>;

template <class Cells>
std::string line(const Cells& cells) {
  std::string out;
  for (size_t i = 0; i < cells.size(); ++i) out += (i ? "," : "") + field(cells[i]);
  return out + "\n";
}

std::string join_warnings(const std::vector<std::string>& warnings) {
  std::string out;
  for (const auto& w : warnings) out += (out.empty() ? "" : "; ") + w;
  return out;
}

void put_telemetry(Row& c, const CellTelemetry& t) {
  c[kGpuPowerW] = num(t.gpu_power_w);
  c[kGpuEnergyJ] = num(t.gpu_energy_j);
  c[kTokensPerJoule] = num(t.tokens_per_joule);
  c[kGpuSmClockMhz] = num(t.gpu_sm_clock_mhz);
  c[kGpuTempMaxC] = num(t.gpu_temp_max_c);
  c[kThrottle] = t.throttle;
  c[kHostCpuUtilPct] = num(t.host_cpu_util_pct);
  c[kServerWaitingMax] = num(t.server_waiting_max);
  c[kServerKvUsageMax] = num(t.server_kv_usage_max);
  c[kServerPreemptions] = num(t.server_preemptions);
  c[kHostEnergyJ] = num(t.host_energy_j);
}

void put_energy(Row& c, const std::optional<CellEnergy>& e) {
  if (!e) return;
  c[kHostEnergyJ] = num(std::optional<double>(e->host_energy_j));
  c[kHostEnergySource] = e->host_source;
  c[kGpuJPerOutputToken] = num(e->gpu_j_per_output_token);
  c[kJPerOutputToken] = num(std::optional<double>(e->j_per_output_token));
  c[kJPerTotalToken] = num(std::optional<double>(e->j_per_total_token));
  c[kServedJPerOutputToken] = num(std::optional<double>(e->served_j_per_output_token));
  c[kCostPerMtok] = num(e->cost_per_mtok);
}

void put_slo(Row& c, const SloJudgement& j) {
  c[kSloMeets] = j.meets ? "true" : "false";
  c[kSloMetFraction] = num(j.met_fraction);
  c[kSloTtftMs] = num(j.ttft_ms);
  c[kSloTpotMs] = num(j.tpot_ms);
  c[kSloGoodputRps] = num(j.goodput_rps);
  c[kSloGoodputTokS] = num(j.goodput_tok_s);
}

}  // namespace

std::string render_csv(const RunResult& r) {
  std::string out = line(kColumnNames);
  std::vector<const PrefillRow*> prefill;
  for (const auto& p : r.prefill) prefill.push_back(&p);
  std::stable_sort(prefill.begin(), prefill.end(), [](auto* a, auto* b) { return a->context < b->context; });
  for (const PrefillRow* p : prefill) {
    Row c;
    c[kRunId] = r.run_id;
    c[kPhase] = "prefill";
    c[kContextTokens] = fmt::format("{}", p->context);
    c[kConcurrency] = "1";
    c[kStatus] = std::string(to_string(p->status));
    c[kPromptTokS] = num(p->prompt_tok_s);
    c[kTtftMs] = num(p->ttft_ms);
    c[kCompleted] = p->status == CellStatus::Valid ? "1" : "";
    c[kPromptTokens] = num(p->prompt_tokens);
    c[kCachedTokens] = num(p->cached_tokens);
    c[kPromptLengthOk] = p->prompt_length_ok ? "true" : "false";
    c[kError] = p->error;
    put_telemetry(c, p->telemetry);
    out += line(c);
  }
  std::vector<const DecodeCell*> decode;
  for (const auto& d : r.decode) decode.push_back(&d);
  std::stable_sort(decode.begin(), decode.end(), [](auto* a, auto* b) {
    return a->context != b->context ? a->context < b->context : a->concurrency < b->concurrency;
  });
  for (const DecodeCell* d : decode) {
    Row c;
    c[kRunId] = r.run_id;
    c[kPhase] = "decode";
    c[kContextTokens] = fmt::format("{}", d->context);
    c[kConcurrency] = fmt::format("{}", d->concurrency);
    c[kStatus] = std::string(to_string(d->status));
    c[kTotalTokS] = num(d->total_tok_s);
    c[kPerRequestTokS] = num(d->per_request_tok_s);
    c[kTotalTokSCi] = num(d->total_tok_s_ci);
    c[kPerRequestTokSCi] = num(d->per_request_tok_s_ci);
    c[kE2eMs] = num(d->e2e_ms);
    c[kE2eP90Ms] = num(d->e2e_p90_ms);
    c[kE2eP99Ms] = num(d->e2e_p99_ms);
    c[kTpotMs] = num(d->tpot_ms);
    c[kTpotP90Ms] = num(d->tpot_p90_ms);
    c[kTpotP99Ms] = num(d->tpot_p99_ms);
    c[kTtftMs] = num(d->ttft_ms);
    c[kTtftP90Ms] = num(d->ttft_p90_ms);
    c[kTtftP99Ms] = num(d->ttft_p99_ms);
    c[kTbtMs] = num(d->tbt_ms);
    c[kTbtP90Ms] = num(d->tbt_p90_ms);
    c[kTbtP99Ms] = num(d->tbt_p99_ms);
    c[kChunkGapMs] = num(d->chunk_gap_ms);
    c[kTokensPerChunk] = num(d->tokens_per_chunk);
    c[kAvgActive] = num(d->avg_active);
    c[kEffectiveConcurrency] = num(d->effective_concurrency);
    c[kCompleted] = num(d->completed);
    c[kOutputTokens] = num(d->output_tokens);
    c[kMeasuredS] = num(d->measured_s);
    c[kRequestsStarted] = num(d->requests_started);
    c[kRequestsFailed] = num(d->requests_failed);
    c[kEndedEarly] = num(d->ended_early);
    c[kServerTokS] = num(d->server_tok_s);
    c[kPromptTokensMin] = num(d->prompt_tokens_min);
    c[kPromptTokensMax] = num(d->prompt_tokens_max);
    c[kPromptLengthOk] = d->prompt_length_ok ? "true" : "false";
    c[kTokenCountSource] = d->token_count_source;
    c[kError] = d->error;
    c[kWarnings] = join_warnings(d->warnings);
    put_telemetry(c, d->telemetry);
    put_energy(c, d->energy);
    c[kServerRunningMean] = num(d->server_running_mean);
    c[kServerWaitingMean] = num(d->server_waiting_mean);
    c[kWindowTokS] = num(d->window_tok_s);
    if (d->settled) c[kSettled] = *d->settled ? "true" : "false";
    if (d->settled && *d->settled && r.settings.precision) c[kProjectedToS] = fmt::format("{}", r.settings.duration_s);
    if (d->slo) put_slo(c, *d->slo);
    c[kSpecDraftTokens] = num(d->telemetry.spec_draft_tokens);
    c[kSpecAcceptedTokens] = num(d->telemetry.spec_accepted_tokens);
    c[kSpecAcceptLength] = num(d->telemetry.spec_accept_length);
    c[kRequestsEnded] = num(d->requests_ended);
    if (const auto& q = d->ended_output_tokens) {
      c[kEndedOutputTokensP50] = num(std::optional<double>(q->p50));
      c[kEndedOutputTokensP90] = num(std::optional<double>(q->p90));
      c[kEndedOutputTokensP99] = num(std::optional<double>(q->p99));
    }
    c[kReasoningRequests] = num(d->reasoning_requests);
    c[kAnsweredRequests] = num(d->answered_requests);
    if (const auto& q = d->first_answer_ms) {
      c[kFirstAnswerMs] = num(std::optional<double>(q->p50));
      c[kFirstAnswerP90Ms] = num(std::optional<double>(q->p90));
    }
    if (d->reasoning_tokens) c[kReasoningTokensP50] = num(std::optional<double>(d->reasoning_tokens->p50));
    out += line(c);
  }
  // The SLO search: each probe (phase slo_probe), then each context's answer (phase slo_search,
  // concurrency the most requests at once that met the SLO, with that point's figures).
  for (const auto& s : r.slo_search) {
    for (const auto& p : s.points) {
      if (p.source != "probe") continue;
      Row c;
      c[kRunId] = r.run_id;
      c[kPhase] = "slo_probe";
      c[kContextTokens] = fmt::format("{}", s.context);
      c[kConcurrency] = fmt::format("{}", p.concurrency);
      c[kStatus] = std::string(to_string(p.status));
      c[kError] = p.error;
      if (p.judgement) put_slo(c, *p.judgement);
      out += line(c);
    }
    Row c;
    c[kRunId] = r.run_id;
    c[kPhase] = "slo_search";
    c[kContextTokens] = fmt::format("{}", s.context);
    c[kConcurrency] = fmt::format("{}", s.concurrency);
    c[kStatus] = s.basis == "stopped" ? "error" : "valid";
    c[kSloBasis] = s.basis;
    if (const SloPoint* at = slo_answer_point(s); at && at->judgement) put_slo(c, *at->judgement);
    out += line(c);
  }
  return out;
}

}  // namespace sm::report
