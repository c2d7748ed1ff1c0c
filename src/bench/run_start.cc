#include "bench/run_start.h"

#include <algorithm>
#include <filesystem>
#include <fmt/format.h>
#include <functional>
#include <string>

#include "bench/resume.h"
#include "bench/retrieval_check.h"
#include "bench/run_folder.h"
#include "bench/mixed_prefill_phase.h"
#include "bench/sessions_phase.h"
#include "bench/slo_search.h"
#include "core/build_info.h"
#include "result/redact.h"
#include "result/redact_result.h"
#include "result/result_json.h"

namespace sm {

namespace {

Result<void> resume_run(PhaseContext& ctx) {
  const std::string path = (std::filesystem::path(ctx.config.resume_dir) / kResultFile).string();
  auto stored = read_result_file(path);
  if (!stored) return std::unexpected(stored.error());
  if (!stored->engine.model.empty() && stored->engine.model != ctx.session.probed().engine.model &&
      stored->engine.model != redact_text(ctx.session.probed().engine.model, ctx.session.redact_options()))
    return fail(ErrorCode::InvalidArgument,
                fmt::format("--resume: the server now serves '{}', the interrupted run measured '{}'",
                            ctx.session.probed().engine.model, stored->engine.model));
  const bool was_unverified = stored->connection && stored->connection->tls && !stored->connection->tls_verified;
  ctx.result = std::move(*stored);
  ctx.earlier_timing = ctx.result.timing.value_or(RunTiming{});
  ctx.result.target_url =
      ctx.session.base_url();  // the embedded engine or a relaunched server may listen elsewhere now
  ++ctx.result.resumes;
  // How this session reached the server; a certificate left unchecked by any session stays said.
  ctx.result.connection = ctx.session.connection_info();
  if (was_unverified) ctx.result.connection->tls_verified = false;
  ctx.result.finished_at.clear();
  // Finished checks are kept; --retrieval-check / --no-retrieval-check decide about the rest.
  if (ctx.config.retrieval_check) ctx.result.settings.retrieval_check = *ctx.config.retrieval_check;
  // --slo on a run that had none adds the search (check_resume_settings refused a different one).
  if (ctx.config.slo && !ctx.result.settings.slo) apply_slo_spec(ctx.result.settings, *ctx.config.slo);
  // So does --mixed-prefill (a different list was refused).
  if (!ctx.config.mixed_prefill.contexts.empty() && ctx.result.settings.mixed_prefill_contexts.empty())
    apply_mixed_prefill_settings(ctx.result.settings, ctx.config.mixed_prefill, ctx.session.probed().engine.slots);
  // The sessions workload in error is measured again with --retry-failed.
  if (ctx.config.retry_failed && ctx.result.sessions && ctx.result.sessions->status == CellStatus::Error)
    ctx.result.sessions.reset();
  // And --sessions / --trace (a run that had them keeps its own: the phase checks a trace's hash).
  if (ctx.config.sessions && !ctx.result.settings.sessions)
    apply_sessions_settings(ctx.result.settings, *ctx.config.sessions, ctx.result.settings.seed);
  ctx.run_dir = ctx.config.resume_dir;
  ctx.matrix = ctx.config.matrix;
  ctx.limits.kv_capacity_tokens = ctx.result.engine.kv_capacity_tokens;
  ctx.limits.max_model_len = ctx.result.engine.max_model_len;
  // Unfinished rows and cells start over (with --retry-failed, those in error too); finished ones
  // are kept exactly as they were.
  auto redo = [&](CellStatus status) {
    return needs_measuring(status) || (ctx.config.retry_failed && status == CellStatus::Error);
  };
  int64_t retried = 0;
  for (auto& row : ctx.result.prefill)
    if (redo(row.status)) {
      retried += row.status == CellStatus::Error;
      row = PrefillRow{row.context, CellStatus::Pending};
    }
  for (auto& cell : ctx.result.decode)
    if (redo(cell.status)) {
      retried += cell.status == CellStatus::Error;
      DecodeCell fresh;
      fresh.context = cell.context;
      fresh.concurrency = cell.concurrency;
      fresh.status = CellStatus::Pending;
      cell = std::move(fresh);
    }
  if (ctx.config.retry_failed)
    ctx.note(retried > 0 ? fmt::format("--retry-failed: measuring {} {} that ended in error again", retried,
                                       retried == 1 ? "row or cell" : "rows and cells")
                         : std::string("--retry-failed: no row or cell ended in error"));
  if (!ctx.session.launch_log_path().empty()) {
    ctx.session.move_server_log(
        (std::filesystem::path(ctx.run_dir) / fmt::format("server-resume{}.log", ctx.result.resumes)).string());
  }
  return write_result_file(path, redacted(ctx.result, ctx.session.redact_options()));
}
}  // namespace

Result<void> start_run(PhaseContext& ctx) {
  if (!ctx.config.resume_dir.empty()) return resume_run(ctx);
  const int64_t now_ms = wall_clock_unix_ms();
  // The matrix asked for, fitted to this server (max output, contexts, slots), every choice said.
  FittedMatrix fitted =
      fit_matrix(matrix_request(ctx.config), ServerLimits{ctx.limits, ctx.session.probed().engine.slots});
  ctx.matrix = fitted.matrix;
  Plan plan = make_plan(ctx.matrix, ctx.limits);

  ctx.session.open_result(ctx.result, now_ms, ctx.config);
  ctx.result.launch_command = ctx.config.launch_command;
  if (const sim::SimServer* sim = ctx.session.embedded()) {
    ctx.result.notes =
        "Simulated: measured against speedmatrix's built-in engine, whose speed comes from the decode "
        "calculator (" +
        (sim->config().cost_model ? sim->config().cost_model->describe() : std::string("linear model")) +
        "). Not a real server.";
  }
  RunSettings& s = ctx.result.settings;
  s.target = ctx.session.embedded() ? "embedded" : !ctx.config.launch_command.empty() ? "launched" : "url";
  s.profile = ctx.config.profile;
  s.repeat = ctx.config.repeat;
  s.user_floors_tok_s = ctx.config.user_floors_tok_s;
  s.cost = ctx.config.cost;
  s.retrieval_check = retrieval_check_wanted(ctx.config);
  if (ctx.config.slo) apply_slo_spec(s, *ctx.config.slo);
  if (!ctx.config.mixed_prefill.contexts.empty())
    apply_mixed_prefill_settings(s, ctx.config.mixed_prefill, ctx.session.probed().engine.slots);
  if (!ctx.config.profile_note.empty()) s.plan_notes.push_back(ctx.config.profile_note);
  for (auto& n : fitted.notes) s.plan_notes.push_back(std::move(n));
  for (const auto& n : s.plan_notes) ctx.note("plan: " + n);
  s.api = ctx.config.target.api == ApiKind::Chat ? "chat" : "completions";
  s.max_output_tokens = ctx.matrix.max_output_tokens;
  s.duration_s = ctx.matrix.duration_s;
  if (ctx.matrix.precision > 0) {
    s.precision = ctx.matrix.precision;
    s.min_window_s = ctx.matrix.min_window_s;
    // An audit's windows all run to --duration: fixed windows, with where each would have closed.
    s.decode_test = ctx.matrix.precision_audit ? "fixed_duration" : "adaptive_duration";
    if (ctx.matrix.precision_audit) s.precision_audit = true;
  }
  s.requests_per_cell = ctx.matrix.requests_per_cell;
  s.warmup_requests = ctx.matrix.warmup_requests;
  if (ctx.matrix.requests_per_cell > 0) s.decode_test = "burst";
  for (const auto& c : plan.decode)
    if (std::find(s.contexts.begin(), s.contexts.end(), c.context) == s.contexts.end()) s.contexts.push_back(c.context);
  for (const auto& c : plan.decode)
    if (std::find(s.concurrency.begin(), s.concurrency.end(), c.concurrency) == s.concurrency.end())
      s.concurrency.push_back(c.concurrency);
  for (const auto& r : plan.prefill) s.prefill_contexts.push_back(r.context);
  s.temperature = ctx.config.temperature;
  record_prompt_source(ctx.config.prompts, ctx.config.target.natural_eos, s);
  s.seed = ctx.config.seed != 0 ? ctx.config.seed : std::hash<std::string>{}(ctx.result.run_id);
  if (ctx.config.sessions) apply_sessions_settings(s, *ctx.config.sessions, s.seed);
  s.kv_capacity_override = ctx.config.limits_override.kv_capacity_tokens;
  s.max_model_len_override = ctx.config.limits_override.max_model_len;
  if (ctx.limits.kv_capacity_tokens) ctx.result.engine.kv_capacity_tokens = ctx.limits.kv_capacity_tokens;
  if (ctx.config.limits_override.kv_capacity_tokens) ctx.result.engine.kv_capacity_source = "--kv-capacity";
  if (ctx.limits.max_model_len) ctx.result.engine.max_model_len = ctx.limits.max_model_len;
  for (const auto& n : ctx.session.probed().notes) ctx.result.warnings.push_back(n);
  if (std::string(build::kBuildType) == "Debug")
    ctx.result.warnings.push_back("speedmatrix was built in Debug mode: the client may be slower than it should be");

  for (const auto& r : plan.prefill) {
    PrefillRow row;
    row.context = r.context;
    row.status = r.status == CellStatus::Valid ? CellStatus::Pending : r.status;
    ctx.result.prefill.push_back(row);
  }
  for (const auto& c : plan.decode) {
    DecodeCell cell;
    cell.context = c.context;
    cell.concurrency = c.concurrency;
    cell.status = c.status == CellStatus::Valid ? CellStatus::Pending : c.status;
    ctx.result.decode.push_back(cell);
  }

  ctx.run_dir =
      ctx.config.out_dir.empty() ? default_run_dir(now_ms, ctx.session.probed().engine.model) : ctx.config.out_dir;
  if (auto ok = create_run_folder(ctx.run_dir); !ok) return ok;
  if (!ctx.session.launch_log_path().empty()) {
    ctx.session.move_server_log((std::filesystem::path(ctx.run_dir) / "server.log").string());
  }
  auto written = write_result_file((std::filesystem::path(ctx.run_dir) / kResultFile).string(),
                                   redacted(ctx.result, ctx.session.redact_options()));
  if (!written) return written;
  return {};
}

}  // namespace sm
