#include "bench/phase_context.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fmt/format.h>
#include <functional>
#include <thread>

#include "bench/run_folder.h"
#include "core/interrupt.h"
#include "engines/server_load.h"
#include "metrics/capacity.h"
#include "metrics/energy_cost.h"
#include "result/redact_result.h"
#include "result/result_json.h"
#include "telemetry/window_summary.h"

namespace sm {

namespace {
constexpr std::string_view kIgnoresMaxTokens = "server ignores max_tokens";  // ClosedLoop's reason
}  // namespace

HttpRequest PhaseContext::completion_request(const std::string& prompt, int64_t max_tokens) const {
  return session.completion_request(prompt, max_tokens, config.temperature);
}

// One request outside a decode window, bounded by --request-timeout (scaled from the prompt's
// length by default) and by max_tokens: a server that never ends its answer cannot hang the run.
LoopOutcome PhaseContext::run_loop(const LoopSpec& spec, const RequestTag& tag) {
  LoopOutcome out = loop->run(spec);
  if (request_log)
    if (auto ok = request_log->append(tag, out.records); !ok) {
      note(ok.error().message);
      result.warnings.push_back(ok.error().message);
    }
  return out;
}

RequestRecord PhaseContext::single_request(const std::string& prompt, int64_t prompt_tokens, int64_t max_tokens,
                                           std::string& error, const RequestTag& tag) {
  LoopSpec spec;
  spec.request = completion_request(prompt, max_tokens);
  spec.concurrency = 1;
  spec.max_tokens = max_tokens;
  spec.duration_ns = 0;
  const double timeout_s =
      config.request_timeout_s > 0 ? config.request_timeout_s : default_request_timeout_s(prompt_tokens);
  spec.request_timeout_ns = static_cast<int64_t>(timeout_s * 1e9);
  spec.on_tick = [this] { progress.tick(); };
  LoopOutcome out = run_loop(spec, tag);
  if (out.interrupted) error = "interrupted";
  if (out.records.empty()) {
    if (error.empty()) error = "request was not sent";
    return RequestRecord{};
  }
  RequestRecord r = std::move(out.records.front());
  if (r.end == RequestEnd::Failed) error = r.error;
  if (ignores_max_tokens(r)) note_once_ignores_max_tokens(r);
  return r;
}

bool PhaseContext::ignores_max_tokens(const RequestRecord& r) {
  return r.end == RequestEnd::Failed && r.error.starts_with(kIgnoresMaxTokens);
}

void PhaseContext::note_once_ignores_max_tokens(const RequestRecord& r) {
  const std::string text = r.error + "; its requests were cut there";
  if (std::find(result.warnings.begin(), result.warnings.end(), text) != result.warnings.end()) return;
  for (const auto& w : result.warnings)
    if (w.starts_with(kIgnoresMaxTokens)) return;
  result.warnings.push_back(text);
  note(text);
}

// The unique part comes first: prefix caches match from the first token, so a shared
// "speedmatrix ..." opening would be reused across prompts and no prefill would be cold.
std::string PhaseContext::unique_head(std::string_view what, int64_t tokens) const {
  const size_t nonce =
      std::hash<std::string>{}(fmt::format("{}/{}/{}/{}", result.run_id, result.resumes, what, tokens));
  return fmt::format("{:016x} speedmatrix {} {}:", nonce, what, tokens);
}

std::unique_ptr<PromptBuilder> PhaseContext::make_builder() const {
  return std::make_unique<PromptBuilder>(*counter, result.settings.seed, config.prompts.corpus);
}

Result<BuiltPrompt> PhaseContext::build_prompt(int64_t context, const std::string& head) {
  const int64_t t0 = clock.now_ns();
  if (!builder) builder = make_builder();
  auto built = builder->build(context, head);
  timing.prompts_s += seconds_since(t0);
  return built;
}

ServerWatch& PhaseContext::watch() {
  if (!watch_) {
    ServerWatchOptions o{session.probed().kind, session.base_url(), session.headers(),
                         load_transport(session.connection()), config.drain_timeout_s};
    watch_ = std::make_unique<ServerWatch>(
        o, clock, [](int64_t ns) { std::this_thread::sleep_for(std::chrono::nanoseconds(ns)); },
        [this](const std::string& n) {
          note(n);
          if (std::find(result.warnings.begin(), result.warnings.end(), n) == result.warnings.end())
            result.warnings.push_back(n);
        });
  }
  return *watch_;
}

// The idle barrier before a row or cell: false (and the status set) when it must not run.
bool PhaseContext::server_ready(CellStatus& status, std::string& error) {
  const int64_t t0 = clock.now_ns();
  Readiness ready = watch().before_measurement([] { return interrupt_requested(); });
  timing.idle_wait_s += seconds_since(t0);
  if (ready.interrupted) {
    status = CellStatus::Interrupted;
    return false;
  }
  if (!ready.busy.empty()) {
    status = CellStatus::Error;
    error = ready.busy;
    return false;
  }
  return true;
}

// A decode loop's time: before its window opened (the ramp), the window, after it (cutting the streams).
void PhaseContext::charge_loop(int64_t loop_start_ns, const LoopOutcome& out) {
  const int64_t end_ns = clock.now_ns();
  if (!out.window_opened) {
    timing.ramp_s += static_cast<double>(end_ns - loop_start_ns) / 1e9;
    return;
  }
  timing.ramp_s += static_cast<double>(std::max<int64_t>(0, out.window.begin_ns - loop_start_ns)) / 1e9;
  timing.windows_s += static_cast<double>(out.window.end_ns - out.window.begin_ns) / 1e9;
  timing.wind_down_s += static_cast<double>(std::max<int64_t>(0, end_ns - out.window.end_ns)) / 1e9;
}

void PhaseContext::save() {
  if (session_start_ns != 0) {
    RunTiming t = earlier_timing;
    t += timing;
    t.total_s += seconds_since(session_start_ns);
    result.timing = t;
  }
  for (auto& n : session.take_telemetry_notes()) {
    note(n);
    // Why there is no GPU telemetry is in result.telemetry; the rest (a series that cannot be
    // written) is a warning.
    if (!n.starts_with("no GPU telemetry") && !n.starts_with("GPU telemetry is of this machine") &&
        std::find(result.warnings.begin(), result.warnings.end(), n) == result.warnings.end())
      result.warnings.push_back(n);
  }
  result.capacity = capacity_of_run(result);
  const TelemetrySetup& telemetry = session.telemetry();
  if (telemetry.recorder && result.telemetry) {
    // The box's idle draw from this session's series (a resumed run keeps an earlier figure
    // where this session has none).
    const IdlePower idle = idle_power(telemetry.recorder->series(), result.telemetry->server_gpus);
    if (idle.gpu_w && telemetry.gpu_figures) result.telemetry->idle_gpu_power_w = idle.gpu_w;
    if (idle.host_w && !result.telemetry->client_side_only) result.telemetry->idle_host_power_w = idle.host_w;
  }
  apply_energy(result, energy_inputs(result));
  auto ok = write_result_file((std::filesystem::path(run_dir) / kResultFile).string(),
                              redacted(result, session.redact_options()));
  if (!ok && !save_failed) {
    save_failed = true;
    note(fmt::format("cannot save the result: {} (the run goes on; results stay in memory)", ok.error().message));
  } else if (ok && save_failed) {
    save_failed = false;
    note("result saved again");
  }
}

}  // namespace sm
