#include "store/run_summary.h"

#include <set>

#include "metrics/capacity.h"
#include "metrics/output_check.h"
#include "metrics/pareto.h"
#include "report/cell_format.h"
#include "report/report_model.h"
#include "store/run_telemetry.h"

namespace sm::store {

bool RunSummary::ranked() const { return not_ranked_because(*this).empty(); }

std::string_view not_ranked_because(const RunSummary& run) {
  // The profile first: another matrix is not comparable however good its numbers.
  switch (profile_standing(run.profile)) {
    case ProfileStanding::CurrentStandard: break;
    case ProfileStanding::OwnMatrix: return "no_profile";
    case ProfileStanding::Quick: return "quick_profile";
    case ProfileStanding::OtherProfile: return "other_profile";
  }
  if (run.gpu == kUnknownHardwareGroup) return "unknown_hardware";
  if (run.unverified_hardware) return "unverified_hardware";
  if (!run.implausible.empty()) return "implausible";
  if (run.synthetic_model) return "synthetic_model";
  return "";
}

void retrieval_standing(const RunResult& r, RunSummary& s) {
  s.retrieval.clear();
  s.retrieval_failed_contexts.clear();
  if (r.retrieval.empty()) return;
  std::set<int64_t> failed;
  bool erred = false, applicable = false;
  for (const RetrievalCheck& check : r.retrieval) {
    if (retrieval_failed(check.verdict)) failed.insert(check.context);
    if (check.verdict == RetrievalVerdict::Error) erred = true;
    if (check.verdict != RetrievalVerdict::NotApplicable) applicable = true;
  }
  s.retrieval_failed_contexts.assign(failed.begin(), failed.end());
  s.retrieval = !failed.empty() ? "failed" : erred ? "error" : applicable ? "read" : "not_applicable";
}

std::string context_list_text(const std::vector<int64_t>& contexts) {
  std::string out;
  for (int64_t c : contexts) out += (out.empty() ? "" : ",") + std::to_string(c);
  return out;
}

RunSummary summarize_run(const RunResult& r) {
  RunSummary s;
  s.run_id = r.run_id;
  s.kind = r.kind.empty() ? "measured" : r.kind;
  // The same names the report's title uses, so a row of the leaderboard and its report agree.
  const report::ReportModel model = report::build_report_model(r);
  s.gpu = model.hardware_name;
  s.model = model.model_name;
  s.engine = s.kind == "simulated" ? std::string(kSimulatedEngine) : r.engine.kind;
  s.engine_version = r.engine.version;
  s.quantization = r.engine.quantization;
  s.submitted_by = r.submitted_by;
  s.started_at = r.started_at;
  s.profile = r.settings.profile;
  s.decode_cells = static_cast<int64_t>(r.decode.size());
  // A context whose retrieval check failed is out of the rankings at that context: the server did
  // not read it back, so its speed there is not the model's (docs/METRICS.md).
  retrieval_standing(r, s);
  const std::set<int64_t> unread(s.retrieval_failed_contexts.begin(), s.retrieval_failed_contexts.end());
  for (const DecodeCell& c : r.decode) {
    if (c.status != CellStatus::Valid || !c.total_tok_s) continue;
    ++s.valid_cells;
    if (!output_stands(r, c)) continue;  // a loop's speed is not the model's (docs/METRICS.md)
    if (unread.contains(c.context)) continue;
    if (c.concurrency == 1 && (!s.single_stream_context || c.context < *s.single_stream_context)) {
      s.single_stream_context = c.context;
      s.single_stream_tok_s = c.total_tok_s;
      s.single_stream_projected = report::total_is_projected(r, c);
    }
    if (!s.best_total_tok_s || *c.total_tok_s > *s.best_total_tok_s) {
      s.best_total_tok_s = c.total_tok_s;
      s.best_total_context = c.context;
      s.best_total_concurrency = c.concurrency;
      s.best_total_projected = report::total_is_projected(r, c);
    }
  }
  for (const PrefillRow& p : r.prefill)
    if (p.context == kLeaderboardPrefillContext && p.status == CellStatus::Valid && p.prompt_tok_s &&
        !unread.contains(p.context))
      s.prefill_32k_tok_s = p.prompt_tok_s;
  s.capacity = capacity_points(counted_decode_cells(r), kDefaultUserFloorsTokS);
  const RunTelemetry t = summarize_run_telemetry(r);
  s.gpu_telemetry = std::string(to_string(t.scope));
  s.best_tokens_per_joule = t.best_tokens_per_joule;
  s.best_tokens_per_joule_context = t.best_tokens_per_joule_context;
  s.best_tokens_per_joule_concurrency = t.best_tokens_per_joule_concurrency;
  // A client's GPU clocks say nothing about the server: lists show no verdict for them.
  if (t.scope == GpuTelemetryScope::Server && t.measurements_with_verdict > 0) {
    s.throttle_worst = t.worst_throttle;
    s.throttled_cells = static_cast<int64_t>(t.throttled.size());
  }
  return s;
}

}  // namespace sm::store
