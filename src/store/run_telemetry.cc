#include "store/run_telemetry.h"

#include <cmath>

#include "metrics/output_check.h"

namespace sm::store {

namespace {

bool has_gpu_readings(const CellTelemetry& t) {
  return !t.throttle.empty() || t.gpu_power_w || t.gpu_energy_j || t.tokens_per_joule || t.gpu_sm_clock_mhz;
}

bool has_gpu_telemetry(const RunResult& r) {
  if (r.telemetry && !r.telemetry->gpu_source.empty()) return true;
  for (const DecodeCell& c : r.decode)
    if (has_gpu_readings(c.telemetry)) return true;
  for (const PrefillRow& p : r.prefill)
    if (has_gpu_readings(p.telemetry)) return true;
  return false;
}

void note_verdict(RunTelemetry& out, const std::string& verdict, ThrottledMeasurement where) {
  if (verdict.empty()) return;
  ++out.measurements_with_verdict;
  if (throttle_severity(verdict) > throttle_severity(out.worst_throttle)) out.worst_throttle = verdict;
  if (verdict == "ok") return;
  where.verdict = verdict;
  out.throttled.push_back(std::move(where));
}

}  // namespace

std::string_view to_string(GpuTelemetryScope scope) {
  switch (scope) {
    case GpuTelemetryScope::None: return "";
    case GpuTelemetryScope::Server: return "server";
    case GpuTelemetryScope::ClientSideOnly: return "client_side_only";
  }
  return "";
}

GpuTelemetryScope gpu_telemetry_scope(const RunResult& r) {
  if (!has_gpu_telemetry(r)) return GpuTelemetryScope::None;
  const bool client_side_only = r.telemetry && r.telemetry->client_side_only;
  if (client_side_only || r.hardware.source != HardwareSource::Probed) return GpuTelemetryScope::ClientSideOnly;
  return GpuTelemetryScope::Server;
}

int throttle_severity(std::string_view verdict) {
  if (verdict.empty()) return -1;
  if (verdict == "ok") return 0;
  if (verdict == "clocks_below_max") return 1;
  if (verdict == "power_capped") return 2;
  if (verdict == "hw_slowdown") return 3;
  if (verdict == "thermal") return 4;
  return 1;
}

RunTelemetry summarize_run_telemetry(const RunResult& r) {
  RunTelemetry out;
  out.scope = gpu_telemetry_scope(r);
  if (out.scope == GpuTelemetryScope::None) return out;
  for (const DecodeCell& c : r.decode) {
    if (c.status != CellStatus::Valid) continue;
    note_verdict(out, c.telemetry.throttle, {.context = c.context, .concurrency = c.concurrency});
    if (out.scope != GpuTelemetryScope::Server || !c.telemetry.tokens_per_joule || !output_stands(r, c)) continue;
    if (!std::isfinite(*c.telemetry.tokens_per_joule) || *c.telemetry.tokens_per_joule < 0) continue;
    if (!out.best_tokens_per_joule || *c.telemetry.tokens_per_joule > *out.best_tokens_per_joule) {
      out.best_tokens_per_joule = c.telemetry.tokens_per_joule;
      out.best_tokens_per_joule_context = c.context;
      out.best_tokens_per_joule_concurrency = c.concurrency;
    }
  }
  for (const PrefillRow& p : r.prefill)
    if (p.status == CellStatus::Valid) note_verdict(out, p.telemetry.throttle, {.prefill = true, .context = p.context});
  return out;
}

}  // namespace sm::store
