#include "result/result_json.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <sstream>

#include "result/json_fields.h"
#include "result/output_check_json.h"
#include "result/mixed_prefill_json.h"
#include "result/sessions_json.h"
#include "result/slo_json.h"
#include "result/sweep_json.h"

namespace sm {

using nlohmann::json;

namespace {

using json_fields::opt;
using json_fields::read;
using json_fields::read_opt;

json gpu_to_json(const GpuInfo& g) {
  return {{"name", g.name}, {"vram_bytes", opt(g.vram_bytes)}, {"driver", g.driver},
          {"power_limit_w", opt(g.power_limit_w)}, {"pcie", g.pcie}};
}

GpuInfo gpu_from_json(const json& j) {
  GpuInfo g;
  read(j, "name", g.name);
  read_opt(j, "vram_bytes", g.vram_bytes);
  read(j, "driver", g.driver);
  read_opt(j, "power_limit_w", g.power_limit_w);
  read(j, "pcie", g.pcie);
  return g;
}

// A result written before hardware.source existed: its hardware object says `is_server_host`
// (true in every file speedmatrix wrote; false meant "these are the client's facts, the server
// ran elsewhere"). The embedded simulated engine's hardware was typed "... (simulated)".
void attribute_legacy_hardware(const json& hardware_json, RunResult& r) {
  const bool server_host = hardware_json.value("is_server_host", true);
  if (!server_host) {
    r.client_hardware = r.hardware;
    r.client_hardware->source = HardwareSource::Probed;
    r.hardware = HardwareInfo{};
    r.hardware.source = HardwareSource::Unknown;
    r.hardware.source_detail = "an older speedmatrix recorded only the client's machine";
    return;
  }
  if (r.kind == "predicted") r.hardware.source = HardwareSource::Catalog;
  else if (r.kind == "simulated" && r.hardware.type.ends_with(" (simulated)"))
    r.hardware.source = HardwareSource::Simulated;
  else r.hardware.source = HardwareSource::Probed;
}

json engine_to_json(const EngineInfo& e) {
  return {{"kind", e.kind},
          {"version", e.version},
          {"build", e.build},
          {"model", e.model},
          {"model_path", e.model_path},
          {"quantization", e.quantization},
          {"backend", e.backend},
          {"max_model_len", opt(e.max_model_len)},
          {"kv_capacity_tokens", opt(e.kv_capacity_tokens)},
          {"kv_capacity_source", e.kv_capacity_source},
          {"slots", opt(e.slots)},
          {"prefix_caching", opt(e.prefix_caching)},
          {"tokenize_endpoint", e.tokenize_endpoint},
          {"forces_output_length", e.forces_output_length},
          {"synthetic_model", e.synthetic_model}};
}

EngineInfo engine_from_json(const json& j) {
  EngineInfo e;
  read(j, "kind", e.kind);
  read(j, "version", e.version);
  read(j, "build", e.build);
  read(j, "model", e.model);
  read(j, "model_path", e.model_path);
  read(j, "quantization", e.quantization);
  read(j, "backend", e.backend);
  read_opt(j, "max_model_len", e.max_model_len);
  read_opt(j, "kv_capacity_tokens", e.kv_capacity_tokens);
  read(j, "kv_capacity_source", e.kv_capacity_source);
  read_opt(j, "slots", e.slots);
  read_opt(j, "prefix_caching", e.prefix_caching);
  read(j, "tokenize_endpoint", e.tokenize_endpoint);
  read(j, "forces_output_length", e.forces_output_length);
  read(j, "synthetic_model", e.synthetic_model);
  return e;
}

json settings_to_json(const RunSettings& s) {
  json j = {{"api", s.api},
          {"decode_test", s.decode_test},
          {"prefill_mode", s.prefill_mode},
          {"max_output_tokens", s.max_output_tokens},
          {"duration_s", s.duration_s},
          {"contexts", s.contexts},
          {"concurrency", s.concurrency},
          {"prefill_contexts", s.prefill_contexts},
          {"temperature", s.temperature},
          {"seed", s.seed},
          {"kv_capacity_override", opt(s.kv_capacity_override)},
          {"max_model_len_override", opt(s.max_model_len_override)}};
  if (!s.target.empty()) j["target"] = s.target;
  if (!s.profile.empty()) j["profile"] = s.profile;
  if (s.repeat > 1) j["repeat"] = s.repeat;
  if (!s.user_floors_tok_s.empty()) j["user_floors_tok_s"] = s.user_floors_tok_s;
  if (!s.plan_notes.empty()) j["plan_notes"] = s.plan_notes;
  if (s.precision) {
    j["precision"] = *s.precision;
    j["min_window_s"] = s.min_window_s.value_or(0);
  }
  if (s.precision_audit) j["precision_audit"] = *s.precision_audit;
  if (s.retrieval_check) j["retrieval_check"] = *s.retrieval_check;  // absent in files from before the check
  if (s.slo) {  // run --slo only
    j["slo"] = slo_targets_to_json(*s.slo);
    j["slo_contexts"] = s.slo_contexts;
    j["slo_max_probes"] = s.slo_max_probes;
  }
  if (!s.mixed_prefill_contexts.empty()) {  // run --mixed-prefill only
    j["mixed_prefill_contexts"] = s.mixed_prefill_contexts;
    j["mixed_prefill_streams"] = s.mixed_prefill_streams;
    j["mixed_prefill_around_s"] = s.mixed_prefill_around_s;
  }
  if (s.sessions) j["sessions"] = sessions_settings_to_json(*s.sessions);  // run --sessions / --trace only
  if (s.prompts != "random") j["prompts"] = s.prompts;  // --prompts text|code, --dataset only
  if (s.prompt_corpus) {
    const PromptCorpusInfo& c = *s.prompt_corpus;
    j["prompt_corpus"] = {{"name", c.name},   {"origin", c.origin}, {"licence", c.licence},
                          {"texts", c.texts}, {"bytes", c.bytes},   {"sha256", c.sha256}};
  }
  if (s.natural_eos) j["natural_eos"] = true;
  if (s.requests_per_cell > 0) {
    j["requests_per_cell"] = s.requests_per_cell;
    j["warmup_requests"] = s.warmup_requests;
  }
  if (s.cost.any()) {  // only runs given prices (or a host power, a busy share)
    json c = {{"busy_share", s.cost.busy_share}};
    if (s.cost.power_price_per_kwh) c["power_price_per_kwh"] = *s.cost.power_price_per_kwh;
    if (!s.cost.currency.empty()) c["currency"] = s.cost.currency;
    if (s.cost.hardware_cost) c["hardware_cost"] = *s.cost.hardware_cost;
    if (s.cost.amortize_years) c["amortize_years"] = *s.cost.amortize_years;
    if (s.cost.host_power_w) c["host_power_w"] = *s.cost.host_power_w;
    j["cost"] = std::move(c);
  }
  return j;
}

RunSettings settings_from_json(const json& j) {
  RunSettings s;
  read(j, "api", s.api);
  read(j, "decode_test", s.decode_test);
  read(j, "prefill_mode", s.prefill_mode);
  read(j, "max_output_tokens", s.max_output_tokens);
  read(j, "duration_s", s.duration_s);
  read(j, "contexts", s.contexts);
  read(j, "concurrency", s.concurrency);
  read(j, "prefill_contexts", s.prefill_contexts);
  read(j, "user_floors_tok_s", s.user_floors_tok_s);
  read(j, "temperature", s.temperature);
  read(j, "seed", s.seed);
  read_opt(j, "kv_capacity_override", s.kv_capacity_override);
  read_opt(j, "max_model_len_override", s.max_model_len_override);
  read(j, "target", s.target);
  read(j, "profile", s.profile);
  read(j, "repeat", s.repeat);
  read(j, "plan_notes", s.plan_notes);
  read_opt(j, "precision", s.precision);
  read_opt(j, "min_window_s", s.min_window_s);
  read_opt(j, "precision_audit", s.precision_audit);
  read_opt(j, "retrieval_check", s.retrieval_check);
  if (auto it = j.find("slo"); it != j.end() && it->is_object()) s.slo = slo_targets_from_json(*it);
  read(j, "slo_contexts", s.slo_contexts);
  read(j, "slo_max_probes", s.slo_max_probes);
  read(j, "mixed_prefill_contexts", s.mixed_prefill_contexts);
  read(j, "mixed_prefill_streams", s.mixed_prefill_streams);
  read(j, "mixed_prefill_around_s", s.mixed_prefill_around_s);
  read(j, "requests_per_cell", s.requests_per_cell);
  read(j, "warmup_requests", s.warmup_requests);
  read(j, "prompts", s.prompts);
  if (auto it = j.find("sessions"); it != j.end() && it->is_object()) s.sessions = sessions_settings_from_json(*it);
  if (auto c = j.find("prompt_corpus"); c != j.end() && c->is_object()) {
    PromptCorpusInfo info;
    read(*c, "name", info.name);
    read(*c, "origin", info.origin);
    read(*c, "licence", info.licence);
    read(*c, "texts", info.texts);
    read(*c, "bytes", info.bytes);
    read(*c, "sha256", info.sha256);
    s.prompt_corpus = std::move(info);
  }
  read(j, "natural_eos", s.natural_eos);
  if (auto c = j.find("cost"); c != j.end() && c->is_object()) {
    read_opt(*c, "power_price_per_kwh", s.cost.power_price_per_kwh);
    read(*c, "currency", s.cost.currency);
    read_opt(*c, "hardware_cost", s.cost.hardware_cost);
    read_opt(*c, "amortize_years", s.cost.amortize_years);
    read_opt(*c, "host_power_w", s.cost.host_power_w);
    read(*c, "busy_share", s.cost.busy_share);
  }
  return s;
}

// Telemetry figures sit flat in the row or cell object, beside its other numbers.
void telemetry_to_json(const CellTelemetry& t, json& out) {
  out["gpu_power_w"] = opt(t.gpu_power_w);
  out["gpu_energy_j"] = opt(t.gpu_energy_j);
  out["tokens_per_joule"] = opt(t.tokens_per_joule);
  out["gpu_sm_clock_mhz"] = opt(t.gpu_sm_clock_mhz);
  out["gpu_temp_max_c"] = opt(t.gpu_temp_max_c);
  out["throttle"] = t.throttle;
  out["host_cpu_util_pct"] = opt(t.host_cpu_util_pct);
  out["server_waiting_max"] = opt(t.server_waiting_max);
  out["server_kv_usage_max"] = opt(t.server_kv_usage_max);
  out["server_preemptions"] = opt(t.server_preemptions);
  if (t.gpu_util_pct) out["gpu_util_pct"] = *t.gpu_util_pct;  // absent in older files and short windows
  if (t.host_cpu_other_pct) out["host_cpu_other_pct"] = *t.host_cpu_other_pct;  // absent in older files
  if (t.host_energy_j) out["host_energy_j"] = *t.host_energy_j;  // only where RAPL was read
  // Only where the server speculated.
  if (t.spec_draft_tokens) out["spec_draft_tokens"] = *t.spec_draft_tokens;
  if (t.spec_accepted_tokens) out["spec_accepted_tokens"] = *t.spec_accepted_tokens;
  if (t.spec_drafts) out["spec_drafts"] = *t.spec_drafts;
  if (t.spec_accept_length) out["spec_accept_length"] = *t.spec_accept_length;
  if (!t.per_gpu.empty()) {  // only where the server uses several GPUs
    json gpus = json::array();
    for (const auto& g : t.per_gpu)
      gpus.push_back({{"index", g.index},
                      {"power_w", opt(g.power_w)},
                      {"energy_j", opt(g.energy_j)},
                      {"sm_clock_mhz", opt(g.sm_clock_mhz)},
                      {"util_pct", opt(g.util_pct)},
                      {"temp_max_c", opt(g.temp_max_c)},
                      {"throttle", g.throttle}});
    out["per_gpu"] = std::move(gpus);
  }
}

void telemetry_from_json(const json& j, CellTelemetry& t) {
  read_opt(j, "gpu_power_w", t.gpu_power_w);
  read_opt(j, "gpu_energy_j", t.gpu_energy_j);
  read_opt(j, "tokens_per_joule", t.tokens_per_joule);
  read_opt(j, "gpu_sm_clock_mhz", t.gpu_sm_clock_mhz);
  read_opt(j, "gpu_util_pct", t.gpu_util_pct);
  read_opt(j, "gpu_temp_max_c", t.gpu_temp_max_c);
  read(j, "throttle", t.throttle);
  read_opt(j, "host_cpu_util_pct", t.host_cpu_util_pct);
  read_opt(j, "host_cpu_other_pct", t.host_cpu_other_pct);
  read_opt(j, "host_energy_j", t.host_energy_j);
  read_opt(j, "server_waiting_max", t.server_waiting_max);
  read_opt(j, "server_kv_usage_max", t.server_kv_usage_max);
  read_opt(j, "server_preemptions", t.server_preemptions);
  read_opt(j, "spec_draft_tokens", t.spec_draft_tokens);
  read_opt(j, "spec_accepted_tokens", t.spec_accepted_tokens);
  read_opt(j, "spec_drafts", t.spec_drafts);
  read_opt(j, "spec_accept_length", t.spec_accept_length);
  if (auto it = j.find("per_gpu"); it != j.end() && it->is_array())
    for (const auto& g : *it) {
      GpuWindowFigures f;
      read(g, "index", f.index);
      read_opt(g, "power_w", f.power_w);
      read_opt(g, "energy_j", f.energy_j);
      read_opt(g, "sm_clock_mhz", f.sm_clock_mhz);
      read_opt(g, "util_pct", f.util_pct);
      read_opt(g, "temp_max_c", f.temp_max_c);
      read(g, "throttle", f.throttle);
      t.per_gpu.push_back(std::move(f));
    }
}

json telemetry_info_to_json(const TelemetryInfo& t) {
  json gpus = json::array();
  for (const auto& g : t.gpus)
    gpus.push_back({{"index", g.index},
                    {"name", g.name},
                    {"sm_clock_max_mhz", opt(g.sm_clock_max_mhz)},
                    {"mem_clock_max_mhz", opt(g.mem_clock_max_mhz)},
                    {"power_limit_w", opt(g.power_limit_w)},
                    {"pcie", g.pcie}});
  json out = {{"interval_s", t.interval_s},   {"gpu_source", t.gpu_source},
              {"gpu_unavailable", t.gpu_unavailable}, {"gpus", gpus},
              {"host", t.host},               {"server", t.server},
              {"client_side_only", t.client_side_only}, {"series_file", t.series_file}};
  if (!t.server_gpus_source.empty()) {  // absent in older files
    out["server_gpus"] = t.server_gpus;
    out["server_gpus_source"] = t.server_gpus_source;
    out["server_gpus_detail"] = t.server_gpus_detail;
  }
  if (t.idle_gpu_power_w) out["idle_gpu_power_w"] = *t.idle_gpu_power_w;
  if (t.idle_host_power_w) out["idle_host_power_w"] = *t.idle_host_power_w;
  return out;
}

TelemetryInfo telemetry_info_from_json(const json& j) {
  TelemetryInfo t;
  read(j, "interval_s", t.interval_s);
  read(j, "gpu_source", t.gpu_source);
  read(j, "gpu_unavailable", t.gpu_unavailable);
  if (auto it = j.find("gpus"); it != j.end() && it->is_array())
    for (const auto& g : *it) {
      TelemetryGpu gpu;
      read(g, "index", gpu.index);
      read(g, "name", gpu.name);
      read_opt(g, "sm_clock_max_mhz", gpu.sm_clock_max_mhz);
      read_opt(g, "mem_clock_max_mhz", gpu.mem_clock_max_mhz);
      read_opt(g, "power_limit_w", gpu.power_limit_w);
      read(g, "pcie", gpu.pcie);
      t.gpus.push_back(std::move(gpu));
    }
  read(j, "host", t.host);
  read(j, "server", t.server);
  read(j, "client_side_only", t.client_side_only);
  read(j, "series_file", t.series_file);
  read(j, "server_gpus", t.server_gpus);
  read(j, "server_gpus_source", t.server_gpus_source);
  read(j, "server_gpus_detail", t.server_gpus_detail);
  read_opt(j, "idle_gpu_power_w", t.idle_gpu_power_w);
  read_opt(j, "idle_host_power_w", t.idle_host_power_w);
  return t;
}

json retrieval_to_json(const RetrievalCheck& c) {
  return {{"context", c.context},
          {"depth", c.depth},
          {"verdict", to_string(c.verdict)},
          {"prompt_tokens", opt(c.prompt_tokens)},
          {"fact_found", opt(c.fact_found)},
          {"finish_reason", c.finish_reason},
          {"excerpt", c.excerpt}};
}

Result<RetrievalCheck> retrieval_from_json(const json& j) {
  RetrievalCheck c;
  read(j, "context", c.context);
  read(j, "depth", c.depth);
  const std::string verdict = j.value("verdict", std::string());
  auto parsed = parse_retrieval_verdict(verdict);
  if (!parsed)
    return fail(ErrorCode::InvalidArgument,
                fmt::format("retrieval verdict \"{}\" is not one of exact, near_miss, wrong, truncated, "
                            "not_applicable, error",
                            verdict));
  c.verdict = *parsed;
  read_opt(j, "prompt_tokens", c.prompt_tokens);
  read_opt(j, "fact_found", c.fact_found);
  read(j, "finish_reason", c.finish_reason);
  read(j, "excerpt", c.excerpt);
  return c;
}

json prefill_to_json(const PrefillRow& r) {
  json out = {{"context", r.context},
          {"status", to_string(r.status)},
          {"prompt_tok_s", opt(r.prompt_tok_s)},
          {"ttft_ms", opt(r.ttft_ms)},
          {"prompt_tokens", opt(r.prompt_tokens)},
          {"cached_tokens", opt(r.cached_tokens)},
          {"prompt_length_ok", r.prompt_length_ok},
          {"error", r.error}};
  if (!r.repeat_prompt_tok_s.empty()) out["repeat_prompt_tok_s"] = r.repeat_prompt_tok_s;  // --repeat only
  telemetry_to_json(r.telemetry, out);
  return out;
}

Result<PrefillRow> prefill_from_json(const json& j) {
  PrefillRow r;
  read(j, "context", r.context);
  auto status = parse_cell_status(j.value("status", ""));
  if (!status) return std::unexpected(status.error());
  r.status = *status;
  read_opt(j, "prompt_tok_s", r.prompt_tok_s);
  read_opt(j, "ttft_ms", r.ttft_ms);
  read_opt(j, "prompt_tokens", r.prompt_tokens);
  read_opt(j, "cached_tokens", r.cached_tokens);
  read(j, "prompt_length_ok", r.prompt_length_ok);
  read(j, "error", r.error);
  read(j, "repeat_prompt_tok_s", r.repeat_prompt_tok_s);
  telemetry_from_json(j, r.telemetry);
  return r;
}

json decode_to_json(const DecodeCell& c) {
  json out = {{"context", c.context},
          {"concurrency", c.concurrency},
          {"status", to_string(c.status)},
          {"total_tok_s", opt(c.total_tok_s)},
          {"per_request_tok_s", opt(c.per_request_tok_s)},
          {"total_tok_s_ci", opt(c.total_tok_s_ci)},
          {"per_request_tok_s_ci", opt(c.per_request_tok_s_ci)},
          {"ttft_ms", opt(c.ttft_ms)},
          {"ttft_p90_ms", opt(c.ttft_p90_ms)},
          {"ttft_p99_ms", opt(c.ttft_p99_ms)},
          {"tbt_ms", opt(c.tbt_ms)},
          {"tbt_p90_ms", opt(c.tbt_p90_ms)},
          {"tbt_p99_ms", opt(c.tbt_p99_ms)},
          {"chunk_gap_ms", opt(c.chunk_gap_ms)},
          {"settled", opt(c.settled)},
          {"window_tok_s", opt(c.window_tok_s)},
          {"audit_close_s", opt(c.audit_close_s)},
          {"audit_tok_s", opt(c.audit_tok_s)},
          {"audit_tok_s_ci", opt(c.audit_tok_s_ci)},
          {"e2e_ms", opt(c.e2e_ms)},
          {"e2e_p90_ms", opt(c.e2e_p90_ms)},
          {"e2e_p99_ms", opt(c.e2e_p99_ms)},
          {"tpot_ms", opt(c.tpot_ms)},
          {"tpot_p90_ms", opt(c.tpot_p90_ms)},
          {"tpot_p99_ms", opt(c.tpot_p99_ms)},
          {"tokens_per_chunk", opt(c.tokens_per_chunk)},
          {"avg_active", opt(c.avg_active)},
          {"effective_concurrency", opt(c.effective_concurrency)},
          {"server_running_mean", opt(c.server_running_mean)},
          {"server_waiting_mean", opt(c.server_waiting_mean)},
          {"completed", opt(c.completed)},
          {"output_tokens", opt(c.output_tokens)},
          {"measured_s", opt(c.measured_s)},
          {"requests_started", opt(c.requests_started)},
          {"requests_failed", opt(c.requests_failed)},
          {"ended_early", opt(c.ended_early)},
          {"requests_ended", opt(c.requests_ended)},
          {"ended_output_tokens", json_fields::percentiles_to_json(c.ended_output_tokens)},
          {"reasoning_requests", opt(c.reasoning_requests)},
          {"answered_requests", opt(c.answered_requests)},
          {"first_answer_ms", json_fields::percentiles_to_json(c.first_answer_ms)},
          {"reasoning_tokens", json_fields::percentiles_to_json(c.reasoning_tokens)},
          {"server_tok_s", opt(c.server_tok_s)},
          {"server_rate_ratio", opt(c.server_rate_ratio)},
          {"token_count_source", c.token_count_source},
          {"prompt_tokens_min", opt(c.prompt_tokens_min)},
          {"prompt_tokens_max", opt(c.prompt_tokens_max)},
          {"prompt_length_ok", c.prompt_length_ok},
          {"error", c.error},
          {"warnings", c.warnings}};
  if (!c.audit_bins_tok_s.empty()) out["audit_bins_tok_s"] = c.audit_bins_tok_s;  // audits only
  if (!c.repeat_tok_s.empty()) out["repeat_tok_s"] = c.repeat_tok_s;              // --repeat only
  output_check_to_json(c.output_check, out);
  if (c.slo) out["slo"] = slo_judgement_to_json(*c.slo);  // run --slo only
  if (const auto& e = c.energy) {
    json energy = {{"output_tokens", e->output_tokens},
                   {"total_tokens", e->total_tokens},
                   {"gpu_j_per_output_token", opt(e->gpu_j_per_output_token)},
                   {"gpu_j_per_total_token", opt(e->gpu_j_per_total_token)},
                   {"host_energy_j", e->host_energy_j},
                   {"host_source", e->host_source},
                   {"j_per_output_token", e->j_per_output_token},
                   {"j_per_total_token", e->j_per_total_token},
                   {"power_w", e->power_w},
                   {"idle_power_w", e->idle_power_w},
                   {"served_j_per_output_token", e->served_j_per_output_token}};
    if (e->energy_cost_per_mtok) energy["energy_cost_per_mtok"] = *e->energy_cost_per_mtok;
    if (e->hardware_cost_per_mtok) energy["hardware_cost_per_mtok"] = *e->hardware_cost_per_mtok;
    if (e->cost_per_mtok) energy["cost_per_mtok"] = *e->cost_per_mtok;
    out["energy"] = std::move(energy);
  }
  telemetry_to_json(c.telemetry, out);
  return out;
}

Result<DecodeCell> decode_from_json(const json& j) {
  DecodeCell c;
  read(j, "context", c.context);
  read(j, "concurrency", c.concurrency);
  auto status = parse_cell_status(j.value("status", ""));
  if (!status) return std::unexpected(status.error());
  c.status = *status;
  read_opt(j, "total_tok_s", c.total_tok_s);
  read_opt(j, "per_request_tok_s", c.per_request_tok_s);
  read_opt(j, "total_tok_s_ci", c.total_tok_s_ci);
  read_opt(j, "per_request_tok_s_ci", c.per_request_tok_s_ci);
  read_opt(j, "ttft_ms", c.ttft_ms);
  read_opt(j, "ttft_p90_ms", c.ttft_p90_ms);
  read_opt(j, "ttft_p99_ms", c.ttft_p99_ms);
  read_opt(j, "tbt_ms", c.tbt_ms);
  read_opt(j, "tbt_p90_ms", c.tbt_p90_ms);
  read_opt(j, "tbt_p99_ms", c.tbt_p99_ms);
  read_opt(j, "chunk_gap_ms", c.chunk_gap_ms);
  read_opt(j, "settled", c.settled);
  read_opt(j, "window_tok_s", c.window_tok_s);
  read_opt(j, "audit_close_s", c.audit_close_s);
  read_opt(j, "audit_tok_s", c.audit_tok_s);
  read_opt(j, "audit_tok_s_ci", c.audit_tok_s_ci);
  read(j, "audit_bins_tok_s", c.audit_bins_tok_s);
  read_opt(j, "e2e_ms", c.e2e_ms);
  read_opt(j, "e2e_p90_ms", c.e2e_p90_ms);
  read_opt(j, "e2e_p99_ms", c.e2e_p99_ms);
  read_opt(j, "tpot_ms", c.tpot_ms);
  read_opt(j, "tpot_p90_ms", c.tpot_p90_ms);
  read_opt(j, "tpot_p99_ms", c.tpot_p99_ms);
  read_opt(j, "tokens_per_chunk", c.tokens_per_chunk);
  read_opt(j, "avg_active", c.avg_active);
  read_opt(j, "effective_concurrency", c.effective_concurrency);
  read_opt(j, "server_running_mean", c.server_running_mean);
  read_opt(j, "server_waiting_mean", c.server_waiting_mean);
  read_opt(j, "completed", c.completed);
  read_opt(j, "output_tokens", c.output_tokens);
  read_opt(j, "measured_s", c.measured_s);
  read_opt(j, "requests_started", c.requests_started);
  read_opt(j, "requests_failed", c.requests_failed);
  read_opt(j, "ended_early", c.ended_early);
  read_opt(j, "requests_ended", c.requests_ended);
  json_fields::read_percentiles(j, "ended_output_tokens", c.ended_output_tokens);
  read_opt(j, "reasoning_requests", c.reasoning_requests);
  read_opt(j, "answered_requests", c.answered_requests);
  json_fields::read_percentiles(j, "first_answer_ms", c.first_answer_ms);
  json_fields::read_percentiles(j, "reasoning_tokens", c.reasoning_tokens);
  read_opt(j, "server_tok_s", c.server_tok_s);
  read_opt(j, "server_rate_ratio", c.server_rate_ratio);
  read(j, "token_count_source", c.token_count_source);
  read_opt(j, "prompt_tokens_min", c.prompt_tokens_min);
  read_opt(j, "prompt_tokens_max", c.prompt_tokens_max);
  read(j, "prompt_length_ok", c.prompt_length_ok);
  read(j, "error", c.error);
  read(j, "warnings", c.warnings);
  read(j, "repeat_tok_s", c.repeat_tok_s);
  output_check_from_json(j, c.output_check);
  if (auto o = j.find("slo"); o != j.end() && o->is_object()) c.slo = slo_judgement_from_json(*o);
  if (auto e = j.find("energy"); e != j.end() && e->is_object()) {
    CellEnergy& energy = c.energy.emplace();
    read(*e, "output_tokens", energy.output_tokens);
    read(*e, "total_tokens", energy.total_tokens);
    read_opt(*e, "gpu_j_per_output_token", energy.gpu_j_per_output_token);
    read_opt(*e, "gpu_j_per_total_token", energy.gpu_j_per_total_token);
    read(*e, "host_energy_j", energy.host_energy_j);
    read(*e, "host_source", energy.host_source);
    read(*e, "j_per_output_token", energy.j_per_output_token);
    read(*e, "j_per_total_token", energy.j_per_total_token);
    read(*e, "power_w", energy.power_w);
    read(*e, "idle_power_w", energy.idle_power_w);
    read(*e, "served_j_per_output_token", energy.served_j_per_output_token);
    read_opt(*e, "energy_cost_per_mtok", energy.energy_cost_per_mtok);
    read_opt(*e, "hardware_cost_per_mtok", energy.hardware_cost_per_mtok);
    read_opt(*e, "cost_per_mtok", energy.cost_per_mtok);
  }
  telemetry_from_json(j, c.telemetry);
  return c;
}

json connection_to_json(const ConnectionInfo& c) {
  return {{"tls", c.tls},
          {"tls_verified", c.tls_verified},
          {"cacert", c.cacert},
          {"proxy", c.proxy},
          {"proxy_source", c.proxy_source},
          {"http2_requested", c.http2_requested},
          {"http_version", c.http_version},
          {"headers", c.headers},
          {"rtt_ms", opt(c.rtt_ms)},
          {"rtt_requests", c.rtt_requests}};
}

ConnectionInfo connection_from_json(const json& j) {
  ConnectionInfo c;
  read(j, "tls", c.tls);
  read(j, "tls_verified", c.tls_verified);
  read(j, "cacert", c.cacert);
  read(j, "proxy", c.proxy);
  read(j, "proxy_source", c.proxy_source);
  read(j, "http2_requested", c.http2_requested);
  read(j, "http_version", c.http_version);
  read(j, "headers", c.headers);
  read_opt(j, "rtt_ms", c.rtt_ms);
  read(j, "rtt_requests", c.rtt_requests);
  return c;
}

}  // namespace

json hardware_to_json(const HardwareInfo& h) {
  json gpus = json::array();
  for (const auto& g : h.gpus) gpus.push_back(gpu_to_json(g));
  json out = {{"type", h.type},         {"gpus", gpus},
              {"cpu_model", h.cpu_model}, {"cpu_cores", opt(h.cpu_cores)},
              {"ram_bytes", opt(h.ram_bytes)}, {"os", h.os},
              {"kernel", h.kernel},     {"hostname", h.hostname},
              {"source", to_string(h.source)}, {"source_detail", h.source_detail}};
  if (h.machine_gpu_count) out["machine_gpu_count"] = *h.machine_gpu_count;  // only where the server uses fewer
  return out;
}

Result<HardwareInfo> hardware_from_json(const json& j) {
  try {
    if (!j.is_object()) return fail(ErrorCode::InvalidArgument, "hardware is not a JSON object");
    HardwareInfo h;
    read(j, "type", h.type);
    if (auto it = j.find("gpus"); it != j.end() && it->is_array())
      for (const auto& g : *it) h.gpus.push_back(gpu_from_json(g));
    read(j, "cpu_model", h.cpu_model);
    read_opt(j, "cpu_cores", h.cpu_cores);
    read_opt(j, "ram_bytes", h.ram_bytes);
    read(j, "os", h.os);
    read(j, "kernel", h.kernel);
    read(j, "hostname", h.hostname);
    read_opt(j, "machine_gpu_count", h.machine_gpu_count);
    if (auto it = j.find("source"); it != j.end() && !it->is_null()) {
      auto source = parse_hardware_source(it->get<std::string>());
      if (!source)
        return fail(ErrorCode::InvalidArgument,
                    fmt::format("hardware source {} is not one of probed, declared, unknown, simulated, catalog",
                                it->dump()));
      h.source = *source;
    }
    read(j, "source_detail", h.source_detail);
    return h;
  } catch (const json::exception& e) {
    return fail(ErrorCode::InvalidArgument, fmt::format("hardware has a field of the wrong type: {}", e.what()));
  }
}

json to_json(const RunResult& r) {
  json prefill = json::array();
  for (const auto& row : r.prefill) prefill.push_back(prefill_to_json(row));
  json decode = json::array();
  for (const auto& cell : r.decode) decode.push_back(decode_to_json(cell));
  json ceiling = nullptr;
  if (r.client_ceiling)
    ceiling = {{"tokens_per_s", r.client_ceiling->tokens_per_s}, {"streams", r.client_ceiling->streams}};
  json j = {{"schema_version", r.schema_version},
          {"tool", {{"name", "speedmatrix"}, {"version", r.tool_version}, {"commit", r.tool_commit},
                    {"build_type", r.tool_build_type}}},
          {"run_id", r.run_id},
          {"kind", r.kind},
          {"started_at", r.started_at},
          {"finished_at", r.finished_at},
          {"target_url", r.target_url},
          {"launch_command", r.launch_command},
          {"submitted_by", r.submitted_by},
          {"notes", r.notes},
          {"resumes", r.resumes},
          {"engine", engine_to_json(r.engine)},
          {"hardware", hardware_to_json(r.hardware)},
          {"client_hardware", r.client_hardware ? hardware_to_json(*r.client_hardware) : json(nullptr)},
          {"settings", settings_to_json(r.settings)},
          {"client_ceiling", ceiling},
          {"telemetry", r.telemetry ? telemetry_info_to_json(*r.telemetry) : json(nullptr)},
          {"connection", r.connection ? connection_to_json(*r.connection) : json(nullptr)},
          {"prefill", prefill},
          {"decode", decode},
          {"warnings", r.warnings}};
  if (r.sweep) j["sweep"] = sweep_to_json(*r.sweep);  // only sweeps have it: matrix files stay as they were
  if (!r.capacity.empty()) {
    json capacity = json::array();
    for (const CapacityPoint& p : r.capacity) {
      json point = {{"context", p.context},
                    {"floor_tok_s", p.floor_tok_s},
                    {"users", p.users},
                    {"total_tok_s", opt(p.total_tok_s)},
                    {"basis", p.basis}};
      if (p.j_per_output_token) point["j_per_output_token"] = *p.j_per_output_token;  // runs with energy only
      if (p.cost_per_mtok) point["cost_per_mtok"] = *p.cost_per_mtok;
      capacity.push_back(std::move(point));
    }
    j["capacity"] = std::move(capacity);
  }
  if (!r.retrieval.empty()) {  // only runs that checked have it
    json checks = json::array();
    for (const auto& c : r.retrieval) checks.push_back(retrieval_to_json(c));
    j["retrieval"] = std::move(checks);
  }
  if (!r.slo_search.empty()) {  // only runs with --slo have it
    json searches = json::array();
    for (const auto& s : r.slo_search) searches.push_back(slo_search_to_json(s));
    j["slo_search"] = std::move(searches);
  }
  if (!r.mixed_prefill.empty()) {  // only runs with --mixed-prefill have it
    json rows = json::array();
    for (const auto& row : r.mixed_prefill) rows.push_back(mixed_prefill_to_json(row));
    j["mixed_prefill"] = std::move(rows);
  }
  if (r.sessions) j["sessions"] = sessions_to_json(*r.sessions);  // only runs with --sessions / --trace
  if (r.timing)
    j["timing"] = {{"total_s", r.timing->total_s},         {"setup_s", r.timing->setup_s},
                   {"prompts_s", r.timing->prompts_s},     {"idle_wait_s", r.timing->idle_wait_s},
                   {"prefill_s", r.timing->prefill_s},     {"warmup_s", r.timing->warmup_s},
                   {"ramp_s", r.timing->ramp_s},           {"windows_s", r.timing->windows_s},
                   {"wind_down_s", r.timing->wind_down_s}};
  return j;
}

Result<RunResult> result_from_json(const json& j) {
  try {
    if (!j.is_object()) return fail(ErrorCode::InvalidArgument, "result is not a JSON object");
    RunResult r;
    r.schema_version = j.value("schema_version", 0);
    if (r.schema_version != kResultSchemaVersion)
      return fail(ErrorCode::InvalidArgument,
                  fmt::format("unsupported schema_version {} (this build reads {})", r.schema_version,
                              kResultSchemaVersion));
    if (auto it = j.find("tool"); it != j.end() && it->is_object()) {
      read(*it, "version", r.tool_version);
      read(*it, "commit", r.tool_commit);
      read(*it, "build_type", r.tool_build_type);
    }
    read(j, "run_id", r.run_id);
    read(j, "kind", r.kind);
    read(j, "started_at", r.started_at);
    read(j, "finished_at", r.finished_at);
    read(j, "target_url", r.target_url);
    read(j, "launch_command", r.launch_command);
    read(j, "submitted_by", r.submitted_by);
    read(j, "notes", r.notes);
    read(j, "resumes", r.resumes);
    if (auto it = j.find("engine"); it != j.end() && it->is_object()) r.engine = engine_from_json(*it);
    if (auto it = j.find("hardware"); it != j.end() && it->is_object()) {
      auto hw = hardware_from_json(*it);
      if (!hw) return std::unexpected(hw.error());
      r.hardware = std::move(*hw);
      if (!it->contains("source")) attribute_legacy_hardware(*it, r);
    }
    if (auto it = j.find("client_hardware"); it != j.end() && it->is_object()) {
      auto hw = hardware_from_json(*it);
      if (!hw) return fail(hw.error().code, "client_hardware: " + hw.error().message);
      r.client_hardware = std::move(*hw);
    }
    if (auto it = j.find("settings"); it != j.end() && it->is_object()) r.settings = settings_from_json(*it);
    if (auto it = j.find("telemetry"); it != j.end() && it->is_object()) r.telemetry = telemetry_info_from_json(*it);
    if (auto it = j.find("connection"); it != j.end() && it->is_object()) r.connection = connection_from_json(*it);
    if (auto it = j.find("client_ceiling"); it != j.end() && it->is_object())
      r.client_ceiling = ClientCeiling{it->value("tokens_per_s", 0.0), it->value("streams", int64_t{0})};
    if (auto it = j.find("timing"); it != j.end() && it->is_object()) {
      RunTiming t;
      read(*it, "total_s", t.total_s);
      read(*it, "setup_s", t.setup_s);
      read(*it, "prompts_s", t.prompts_s);
      read(*it, "idle_wait_s", t.idle_wait_s);
      read(*it, "prefill_s", t.prefill_s);
      read(*it, "warmup_s", t.warmup_s);
      read(*it, "ramp_s", t.ramp_s);
      read(*it, "windows_s", t.windows_s);
      read(*it, "wind_down_s", t.wind_down_s);
      r.timing = t;
    }
    if (auto it = j.find("prefill"); it != j.end() && it->is_array()) {
      for (const auto& row : *it) {
        auto p = prefill_from_json(row);
        if (!p) return std::unexpected(p.error());
        r.prefill.push_back(*p);
      }
    }
    if (auto it = j.find("decode"); it != j.end() && it->is_array()) {
      for (const auto& cell : *it) {
        auto d = decode_from_json(cell);
        if (!d) return std::unexpected(d.error());
        r.decode.push_back(*d);
      }
    }
    read(j, "warnings", r.warnings);
    if (auto it = j.find("capacity"); it != j.end() && it->is_array()) {
      for (const auto& point : *it) {
        if (!point.is_object()) return fail(ErrorCode::InvalidArgument, "result JSON: a capacity point is not an object");
        CapacityPoint p;
        read(point, "context", p.context);
        read(point, "floor_tok_s", p.floor_tok_s);
        read(point, "users", p.users);
        read_opt(point, "total_tok_s", p.total_tok_s);
        read(point, "basis", p.basis);
        read_opt(point, "j_per_output_token", p.j_per_output_token);
        read_opt(point, "cost_per_mtok", p.cost_per_mtok);
        r.capacity.push_back(std::move(p));
      }
    }
    if (auto it = j.find("retrieval"); it != j.end() && it->is_array()) {
      for (const auto& check : *it) {
        auto c = retrieval_from_json(check);
        if (!c) return std::unexpected(c.error());
        r.retrieval.push_back(std::move(*c));
      }
    }
    if (auto it = j.find("slo_search"); it != j.end() && it->is_array()) {
      for (const auto& entry : *it) {
        auto s = slo_search_from_json(entry);
        if (!s) return std::unexpected(s.error());
        r.slo_search.push_back(std::move(*s));
      }
    }
    if (auto it = j.find("mixed_prefill"); it != j.end() && it->is_array()) {
      for (const auto& entry : *it) {
        auto row = mixed_prefill_from_json(entry);
        if (!row) return std::unexpected(row.error());
        r.mixed_prefill.push_back(std::move(*row));
      }
    }
    if (auto it = j.find("sessions"); it != j.end() && it->is_object()) {
      auto sessions = sessions_from_json(*it);
      if (!sessions) return std::unexpected(sessions.error());
      r.sessions = std::move(*sessions);
    }
    if (auto it = j.find("sweep"); it != j.end() && it->is_object()) {
      auto sweep = sweep_from_json(*it);
      if (!sweep) return std::unexpected(sweep.error());
      r.sweep = std::move(*sweep);
    }
    return r;
  } catch (const json::exception& e) {
    return fail(ErrorCode::InvalidArgument, fmt::format("result JSON has a field of the wrong type: {}", e.what()));
  }
}

Result<RunResult> read_result_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return fail(ErrorCode::Io, fmt::format("cannot open {}: {}", path, std::strerror(errno)));
  std::stringstream ss;
  ss << in.rdbuf();
  json j = json::parse(ss.str(), nullptr, false);
  if (j.is_discarded()) return fail(ErrorCode::InvalidArgument, fmt::format("{} is not valid JSON", path));
  auto r = result_from_json(j);
  if (!r) return fail(r.error().code, fmt::format("{}: {}", path, r.error().message));
  return r;
}

Result<void> write_result_file(const std::string& path, const RunResult& result) {
  return write_file_atomic(path, to_json(result).dump(2) + "\n");
}

}  // namespace sm
