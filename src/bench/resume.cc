#include "bench/resume.h"

#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "bench/retrieval_check.h"
#include "bench/mixed_prefill_phase.h"
#include "bench/slo_search.h"

namespace sm {

std::string resume_target(const RunResult& stored) {
  if (!stored.settings.target.empty()) return stored.settings.target;
  // Files from before settings.target: how the server was reached, from what they do say.
  if (!stored.launch_command.empty()) return "launched";
  if (stored.hardware.source == HardwareSource::Simulated) return "embedded";
  return "url";
}

RunConfig config_to_resume(const RunResult& stored, const std::string& dir) {
  RunConfig c;
  const RunSettings& s = stored.settings;
  c.target.base_url = stored.target_url;
  c.target.api = s.api == "chat" ? ApiKind::Chat : ApiKind::Completions;
  c.target.model = stored.engine.model;
  c.matrix.contexts = s.contexts;
  c.matrix.concurrency = s.concurrency;
  c.matrix.prefill_contexts = s.prefill_contexts;
  c.matrix.max_output_tokens = s.max_output_tokens;
  c.matrix.duration_s = s.duration_s;
  c.matrix.precision = s.precision.value_or(0);
  c.matrix.min_window_s = s.min_window_s.value_or(5);
  c.matrix.precision_audit = s.precision_audit.value_or(false);
  c.matrix.requests_per_cell = s.requests_per_cell;
  c.matrix.warmup_requests = s.warmup_requests;
  c.contexts_given = true;
  c.limits_override.kv_capacity_tokens = s.kv_capacity_override;
  c.limits_override.max_model_len = s.max_model_len_override;
  c.temperature = s.temperature;
  c.seed = s.seed;
  c.profile = s.profile;
  c.repeat = std::max<int64_t>(1, s.repeat);
  c.retrieval_check = s.retrieval_check.value_or(false);  // files from before the check never ran it
  c.cost = s.cost;
  c.launch_command = stored.launch_command;
  if (resume_target(stored) == "embedded") {
    // The built-in engine died with the run: start it again; its old port means nothing.
    c.embedded_sim = true;
    c.target.base_url.clear();
  }
  c.out_dir = dir;
  c.resume_dir = dir;
  return c;
}

Result<void> check_resume_settings(const RunResult& stored, const RunConfig& r, const std::vector<std::string>& given) {
  const RunSettings& s = stored.settings;
  auto is_given = [&](const char* flag) { return std::find(given.begin(), given.end(), flag) != given.end(); };
  auto differ = [&](const char* flag, const std::string& now, const std::string& before) {
    return fail(ErrorCode::InvalidArgument,
                fmt::format("--resume: {} {} differs from the interrupted run's {} (in its result.json); a resumed run "
                            "must measure the same matrix: drop the flag, or start a new run",
                            flag, now, before));
  };
  if (is_given("--contexts") && sorted_unique(r.matrix.contexts) != sorted_unique(s.contexts))
    return differ("--contexts", fmt::format("{}", fmt::join(r.matrix.contexts, ",")), fmt::format("{}", fmt::join(s.contexts, ",")));
  if (is_given("--concurrency") && sorted_unique(r.matrix.concurrency) != sorted_unique(s.concurrency))
    return differ("--concurrency", fmt::format("{}", fmt::join(r.matrix.concurrency, ",")),
                  fmt::format("{}", fmt::join(s.concurrency, ",")));
  if (is_given("--prefill-contexts") && sorted_unique(r.matrix.prefill_contexts) != sorted_unique(s.prefill_contexts))
    return differ("--prefill-contexts", fmt::format("{}", fmt::join(r.matrix.prefill_contexts, ",")),
                  fmt::format("{}", fmt::join(s.prefill_contexts, ",")));
  if (is_given("--duration") && r.matrix.duration_s != s.duration_s)
    return differ("--duration", fmt::format("{}", r.matrix.duration_s), fmt::format("{}", s.duration_s));
  if (is_given("--requests") && r.matrix.requests_per_cell != s.requests_per_cell)
    return differ("--requests", fmt::format("{}", r.matrix.requests_per_cell), fmt::format("{}", s.requests_per_cell));
  if (is_given("--max-output") && r.matrix.max_output_tokens != s.max_output_tokens)
    return differ("--max-output", fmt::format("{}", r.matrix.max_output_tokens), fmt::format("{}", s.max_output_tokens));
  if (is_given("--kv-capacity") && r.limits_override.kv_capacity_tokens != s.kv_capacity_override)
    return differ("--kv-capacity", fmt::format("{}", r.limits_override.kv_capacity_tokens.value_or(0)),
                  fmt::format("{}", s.kv_capacity_override.value_or(0)));
  if (is_given("--max-model-len") && r.limits_override.max_model_len != s.max_model_len_override)
    return differ("--max-model-len", fmt::format("{}", r.limits_override.max_model_len.value_or(0)),
                  fmt::format("{}", s.max_model_len_override.value_or(0)));
  if (is_given("--api") && (r.target.api == ApiKind::Chat ? "chat" : "completions") != s.api)
    return differ("--api", r.target.api == ApiKind::Chat ? "chat" : "completions", s.api);
  if (is_given("--temperature") && r.temperature != s.temperature)
    return differ("--temperature", fmt::format("{}", r.temperature), fmt::format("{}", s.temperature));
  if ((is_given("--profile") || is_given("--quick")) && r.profile != s.profile)
    return differ("--profile", r.profile.empty() ? std::string("(none)") : r.profile,
                  s.profile.empty() ? std::string("(none)") : s.profile);
  if (is_given("--repeat") && r.repeat != std::max<int64_t>(1, s.repeat))
    return differ("--repeat", fmt::format("{}", r.repeat), fmt::format("{}", std::max<int64_t>(1, s.repeat)));
  if (is_given("--slo") && r.slo && s.slo && !same_slo(s, *r.slo))
    return differ("--slo", describe_slo(r.slo->targets), describe_slo(*s.slo));
  if (is_given("--mixed-prefill") && !s.mixed_prefill_contexts.empty() &&
      sorted_unique(r.mixed_prefill.contexts) != s.mixed_prefill_contexts)
    return differ("--mixed-prefill", fmt::format("{}", fmt::join(r.mixed_prefill.contexts, ",")),
                  fmt::format("{}", fmt::join(s.mixed_prefill_contexts, ",")));
  if (is_given("--sessions") && r.sessions && s.sessions) {
    const SessionShape& shape = r.sessions->shape;
    const std::string now = fmt::format("{}x{} first={},user={},answer={}", shape.sessions, shape.turns,
                                        format_token_range(shape.first), format_token_range(shape.user),
                                        format_token_range(shape.answer));
    const std::string before = fmt::format("{}x{} first={},user={},answer={}", s.sessions->sessions, s.sessions->turns,
                                           s.sessions->first_tokens, s.sessions->user_tokens, s.sessions->answer_tokens);
    if (now != before) return differ("--sessions", now, before);
  }
  if (is_given("--model") && r.target.model != stored.engine.model)
    return differ("--model", r.target.model, stored.engine.model);
  return {};
}

bool needs_measuring(CellStatus status) { return status == CellStatus::Pending || status == CellStatus::Interrupted; }

int64_t passes_done(const PrefillRow& row) {
  if (!row.repeat_prompt_tok_s.empty()) return static_cast<int64_t>(row.repeat_prompt_tok_s.size());
  return row.status == CellStatus::Valid ? 1 : 0;
}

int64_t passes_done(const DecodeCell& cell) {
  if (!cell.repeat_tok_s.empty()) return static_cast<int64_t>(cell.repeat_tok_s.size());
  return cell.status == CellStatus::Valid ? 1 : 0;
}

int64_t passes_owed(CellStatus status, int64_t done, int64_t passes) {
  if (status == CellStatus::Pending) return passes;
  return status == CellStatus::Valid ? std::max<int64_t>(0, passes - done) : 0;
}

ResumeWork resume_work(const RunResult& stored, bool retry_failed, std::optional<bool> retrieval_check) {
  ResumeWork w;
  const int64_t passes = std::max<int64_t>(1, stored.settings.repeat);
  auto count = [&](CellStatus status, int64_t done) {
    if (needs_measuring(status) || (retry_failed && status == CellStatus::Error)) ++w.to_measure;
    else if (status == CellStatus::Error) ++w.errors_left;
    else if (status == CellStatus::Valid) {
      ++w.valid;
      if (passes_owed(status, done, passes) > 0) ++w.short_of_passes;
    }
  };
  for (const auto& r : stored.prefill) count(r.status, passes_done(r));
  for (const auto& c : stored.decode) count(c.status, passes_done(c));
  if (retrieval_check.value_or(stored.settings.retrieval_check.value_or(false)))
    w.checks_owed = static_cast<int64_t>(retrieval_contexts_owed(stored).size());
  w.checks_owed += static_cast<int64_t>(slo_contexts_owed(stored).size());
  w.checks_owed += static_cast<int64_t>(mixed_prefill_contexts_owed(stored).size());
  if (stored.settings.sessions && !stored.sessions) ++w.checks_owed;  // the sessions workload, all or nothing
  else if (stored.sessions && stored.sessions->status == CellStatus::Error) {
    if (retry_failed) ++w.to_measure;
    else ++w.errors_left;
  }
  return w;
}

std::string finished_run_message(const std::string& dir, const ResumeWork& w) {
  std::string out = fmt::format("--resume: the run in {} is finished: nothing left to measure ({} valid", dir, w.valid);
  if (w.errors_left > 0)
    out += fmt::format(", {} in error; --retry-failed measures {} again", w.errors_left,
                       w.errors_left == 1 ? "it" : "them");
  return out + ")";
}

}  // namespace sm
