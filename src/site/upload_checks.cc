#include "site/upload_checks.h"

#include <fmt/format.h>

#include <cctype>
#include <cmath>
#include <set>
#include <cstdio>
#include <vector>

#include "calc/perf_model.h"
#include "core/units.h"
#include "result/synthetic_model.h"
#include "site/upload_token.h"
#include "telemetry/window_summary.h"

namespace sm::site {

namespace {

// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's days_from_civil).
int64_t days_from_civil(int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

Result<void> refuse(std::string_view field, std::string_view why) {
  return fail(ErrorCode::InvalidArgument, fmt::format("{}: {}", field, why));
}

// A rate or time that must be a finite number ≥ 0 (absent is fine).
Result<void> non_negative(const std::optional<double>& v, const std::string& field) {
  if (!v) return {};
  if (!std::isfinite(*v)) return refuse(field, "not a finite number");
  if (*v < 0) return refuse(field, fmt::format("{} is negative", *v));
  return {};
}

bool close_to(double a, double b, double tolerance) {
  return std::fabs(a - b) <= tolerance * std::max(std::fabs(a), std::fabs(b));
}

// A window's efficiency figures agree with each other: tokens_per_joule is the window's tokens
// ÷ gpu_energy_j (as the tool computes it: telemetry/window_summary.cc), and the energy is about
// the mean power × the window where the window is long enough for the sampler to see it.
Result<void> check_efficiency(const CellTelemetry& t, std::optional<int64_t> tokens, std::optional<double> window_s,
                              const std::string& at) {
  for (const auto& [value, name] : {std::pair{&t.gpu_power_w, "gpu_power_w"}, {&t.gpu_energy_j, "gpu_energy_j"},
                                    {&t.tokens_per_joule, "tokens_per_joule"}})
    if (auto ok = non_negative(*value, at + name); !ok) return ok;
  // An idle GPU's draw is not the server's cost (a CPU-served run on a GPU machine): the tool
  // leaves these figures empty for such a window (docs/METRICS.md, "An idle GPU").
  if (t.gpu_util_pct && *t.gpu_util_pct < kIdleUtilPct)
    for (const auto& [value, name] : {std::pair{&t.gpu_power_w, "gpu_power_w"}, {&t.gpu_energy_j, "gpu_energy_j"},
                                      {&t.tokens_per_joule, "tokens_per_joule"}})
      if (*value)
        return refuse(at + name, fmt::format("given for a window whose GPUs were idle (gpu_util_pct {:.3g}% < {:g}%): "
                                             "an idle GPU's draw is not the server's",
                                             *t.gpu_util_pct, kIdleUtilPct));
  if (t.tokens_per_joule) {
    if (!t.gpu_energy_j || *t.gpu_energy_j <= 0)
      return refuse(at + "tokens_per_joule", "given without the window's gpu_energy_j it is computed from");
    if (tokens) {
      const double implied = static_cast<double>(*tokens) / *t.gpu_energy_j;
      if (!close_to(*t.tokens_per_joule, implied, kRateTolerance))
        return refuse(at + "tokens_per_joule",
                      fmt::format("{:.6g} disagrees with tokens / gpu_energy_j = {} / {:.6g} = {:.6g} by more than {:.0f}%",
                                  *t.tokens_per_joule, *tokens, *t.gpu_energy_j, implied, kRateTolerance * 100));
    }
  }
  if (t.gpu_energy_j && t.gpu_power_w && window_s && *window_s >= kEnergyCheckMinWindowS) {
    const double implied = *t.gpu_power_w * *window_s;
    if (!close_to(*t.gpu_energy_j, implied, kEnergyTolerance))
      return refuse(at + "gpu_energy_j",
                    fmt::format("{:.6g} J disagrees with gpu_power_w × window = {:.6g} W × {:.6g} s = {:.6g} J by more "
                                "than {:.0f}%",
                                *t.gpu_energy_j, *t.gpu_power_w, *window_s, implied, kEnergyTolerance * 100));
  }
  return {};
}

// The shortest window a valid sustained cell can have under the run's own settings: the fixed
// --duration, or an adaptive window's --min-window (kWindowAllowance of either, for a window
// that closes on the tick after its last token). Burst cells have no minimum beyond > 0.
double shortest_window_s(const RunSettings& s) {
  if (s.decode_test == "burst") return 0;
  const double window = s.precision ? s.min_window_s.value_or(0) : s.duration_s;
  return window * kWindowAllowance;
}

Result<void> check_time(const std::string& text, const char* field, int64_t now_unix_ms) {
  if (text.empty()) return {};
  auto ms = parse_iso8601_ms(text);
  if (!ms) return refuse(field, fmt::format("'{}' is not an ISO-8601 time", text));
  if (*ms < kEarliestRunUnixMs) return refuse(field, fmt::format("{} is before 2023", text));
  if (*ms > now_unix_ms + kClockSkewMs) return refuse(field, fmt::format("{} is in the future", text));
  return {};
}

}  // namespace

std::optional<int64_t> parse_iso8601_ms(std::string_view text) {
  int y = 0, mo = 0, d = 0, h = 0, mi = 0, s = 0, n = 0;
  const std::string t(text.substr(0, 64));
  if (std::sscanf(t.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d%n", &y, &mo, &d, &h, &mi, &s, &n) != 6 || n != 19) return std::nullopt;
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 60) return std::nullopt;
  int64_t ms = (days_from_civil(y, static_cast<unsigned>(mo), static_cast<unsigned>(d)) * 86400 + h * 3600 + mi * 60 + s) * 1000;
  size_t i = 19;
  if (i < t.size() && t[i] == '.') {
    int64_t frac = 0, scale = 1000;
    for (++i; i < t.size() && std::isdigit(static_cast<unsigned char>(t[i])); ++i) {
      scale /= 10;
      frac += (t[i] - '0') * scale;
    }
    ms += frac;
  }
  if (i == t.size()) return ms;  // no zone: taken as UTC
  if (t[i] == 'Z' && i + 1 == t.size()) return ms;
  int oh = 0, om = 0;
  if ((t[i] == '+' || t[i] == '-') && std::sscanf(t.c_str() + i + 1, "%2d:%2d", &oh, &om) == 2 && i + 6 == t.size()) {
    const int64_t offset_ms = (oh * 60 + om) * 60 * 1000;
    return t[i] == '+' ? ms - offset_ms : ms + offset_ms;
  }
  return std::nullopt;
}

// A measured run carries what only a measurement has (issue 30: a `calc` prediction relabelled
// "measured" ranked as one): the tool's version, and per valid decode cell the requests it sent
// and counted tokens of; a prediction's own marks (its engine version "predicted", the catalog's
// hardware, cells counted "predicted") are refused under the label.
Result<void> check_provenance(const RunResult& run) {
  if (run.kind != "measured") return {};
  if (run.tool_version.empty()) return refuse("$.tool_version", "a measured run names the speedmatrix that measured it");
  if (run.engine.version == "predicted" || run.hardware.source == HardwareSource::Catalog)
    return refuse("$.kind", "\"measured\", but the run is a calculator prediction (engine version \"predicted\" or the "
                            "catalog's hardware): upload it as \"predicted\"");
  for (size_t i = 0; i < run.decode.size(); ++i) {
    const DecodeCell& c = run.decode[i];
    const std::string at = fmt::format("$.decode[{}].", i);
    if (c.token_count_source == "predicted")
      return refuse(at + "token_count_source", "\"predicted\" in a run labelled measured");
    if (c.status == CellStatus::Valid && (!c.requests_started || *c.requests_started <= 0))
      return refuse(at + "requests_started", "a measured valid cell says how many requests it sent");
  }
  return {};
}

Result<void> check_upload_numbers(const RunResult& run, int64_t now_unix_ms) {
  if (auto ok = check_provenance(run); !ok) return ok;
  if (auto ok = check_time(run.started_at, "$.started_at", now_unix_ms); !ok) return ok;
  if (auto ok = check_time(run.finished_at, "$.finished_at", now_unix_ms); !ok) return ok;
  if (const auto start = parse_iso8601_ms(run.started_at), finish = parse_iso8601_ms(run.finished_at);
      start && finish && *finish < *start)
    return refuse("$.finished_at", fmt::format("{} is before started_at {}", run.finished_at, run.started_at));
  bool measured_anything = false;
  std::set<std::pair<int64_t, int64_t>> cells_seen;
  for (size_t i = 0; i < run.decode.size(); ++i) {
    const DecodeCell& c = run.decode[i];
    const std::string at = fmt::format("$.decode[{}].", i);
    for (const auto& [value, name] : {std::pair{&c.total_tok_s, "total_tok_s"}, {&c.per_request_tok_s, "per_request_tok_s"},
                                      {&c.ttft_ms, "ttft_ms"}, {&c.tbt_ms, "tbt_ms"}, {&c.measured_s, "measured_s"}})
      if (auto ok = non_negative(*value, at + name); !ok) return ok;
    if (c.output_tokens && *c.output_tokens < 0) return refuse(at + "output_tokens", "is negative");
    if (!cells_seen.emplace(c.context, c.concurrency).second)
      return refuse(at + "context", fmt::format("a second cell at context {} × concurrency {}", c.context, c.concurrency));
    if (auto ok = check_efficiency(c.telemetry, c.output_tokens, c.measured_s, at + "telemetry."); !ok) return ok;
    if (c.status != CellStatus::Valid) continue;
    if (!c.total_tok_s || *c.total_tok_s <= 0 || !c.output_tokens || *c.output_tokens <= 0)
      return refuse(at + "total_tok_s", "a valid cell measured no output tokens (status valid needs total_tok_s and "
                                        "output_tokens above 0)");
    if (!c.measured_s || *c.measured_s <= 0)
      return refuse(at + "measured_s", "a valid cell needs a window longer than 0 s");
    if (const double shortest = shortest_window_s(run.settings); *c.measured_s < shortest)
      return refuse(at + "measured_s", fmt::format("{:.6g} s is shorter than the run's settings allow ({:.6g} s: "
                                                   "settings.duration_s or min_window_s)",
                                                   *c.measured_s, shortest));
    measured_anything = true;
    if (auto ok = non_negative(c.window_tok_s, at + "window_tok_s"); !ok) return ok;
    // An adaptive window that closed early reports its projection to the full window: the
    // window's own rate (window_tok_s) is the one tokens ÷ length must give, and the projection
    // may differ from it by the drift, within kProjectionTolerance.
    const bool projected = c.window_tok_s.has_value();
    const auto& rate = projected ? c.window_tok_s : c.total_tok_s;
    const std::string rate_name = projected ? "window_tok_s" : "total_tok_s";
    if (rate && c.output_tokens && c.measured_s && *c.measured_s > 0) {
      const double implied = static_cast<double>(*c.output_tokens) / *c.measured_s;
      if (!close_to(*rate, implied, kRateTolerance))
        return refuse(at + rate_name,
                      fmt::format("{:.6g} disagrees with output_tokens / measured_s = {} / {:.6g} = {:.6g} by more than "
                                  "{:.0f}%",
                                  *rate, *c.output_tokens, *c.measured_s, implied, kRateTolerance * 100));
    }
    if (projected && c.total_tok_s && !close_to(*c.total_tok_s, *c.window_tok_s, kProjectionTolerance))
      return refuse(at + "total_tok_s", fmt::format("projection {:.6g} is more than {:.0f}% from the window's {:.6g}",
                                                    *c.total_tok_s, kProjectionTolerance * 100, *c.window_tok_s));
    if (c.total_tok_s && c.per_request_tok_s) {
      // The total counts the gaps between one stream's requests (about a TTFT each, every
      // max-output tokens) and the per-request rate does not: at one request the per-request
      // rate is above the total by up to TTFT × rate / max output.
      const double max_output = run.settings.max_output_tokens > 0 ? static_cast<double>(run.settings.max_output_tokens) : 0;
      const double gaps = c.ttft_ms && max_output > 0 ? *c.ttft_ms / 1000.0 * *c.per_request_tok_s / max_output : 0;
      if (*c.per_request_tok_s > *c.total_tok_s * (1 + gaps) * (1 + kPerRequestAllowance))
        return refuse(at + "per_request_tok_s", fmt::format("{:.6g} is above the cell's total_tok_s {:.6g}",
                                                            *c.per_request_tok_s, *c.total_tok_s));
    }
  }
  for (size_t i = 0; i < run.prefill.size(); ++i) {
    const PrefillRow& p = run.prefill[i];
    const std::string at = fmt::format("$.prefill[{}].", i);
    if (auto ok = non_negative(p.prompt_tok_s, at + "prompt_tok_s"); !ok) return ok;
    if (auto ok = non_negative(p.ttft_ms, at + "ttft_ms"); !ok) return ok;
    const std::optional<double> request_s = p.ttft_ms ? std::optional(*p.ttft_ms / 1000.0) : std::nullopt;
    if (auto ok = check_efficiency(p.telemetry, p.prompt_tokens ? p.prompt_tokens : std::optional(p.context), request_s,
                                   at + "telemetry.");
        !ok)
      return ok;
    if (p.status != CellStatus::Valid) continue;
    if (!p.prompt_tok_s || *p.prompt_tok_s <= 0 || !p.ttft_ms || *p.ttft_ms <= 0)
      return refuse(at + "prompt_tok_s", "a valid row needs prompt_tok_s and ttft_ms above 0");
    measured_anything = true;
    if (p.context <= 0) continue;
    const double tokens = *p.prompt_tok_s * *p.ttft_ms / 1000.0;
    const bool matches = close_to(tokens, static_cast<double>(p.context), kRateTolerance) ||
                         (p.prompt_tokens && close_to(tokens, static_cast<double>(*p.prompt_tokens), kRateTolerance));
    if (!matches)
      return refuse(at + "prompt_tok_s",
                    fmt::format("{:.6g} × ttft_ms {:.6g} is {:.0f} prompt tokens, not the row's {}: a prefill cannot be "
                                "faster (or slower) than its context allows",
                                *p.prompt_tok_s, *p.ttft_ms, tokens, p.context));
  }
  if (!measured_anything && run.kind == "measured")
    return refuse("$.decode", "a measured run with no valid decode cell or prefill row: nothing was measured");
  return {};
}

namespace {

calc::Setup roofline_setup(const calc::Setup& base) {
  calc::Setup s = base;
  s.engine.bandwidth_efficiency = 1;
  s.engine.attention_bandwidth_efficiency = 1;
  s.engine.decode_compute_efficiency = 1;
  s.engine.prefill_compute_efficiency = 1;
  s.engine.step_overhead_s = 0;
  s.engine.shared_prefix_reuse = 1;
  s.engine.tp_loss_per_extra_gpu = 0;
  s.kv_bytes_per_element = 1;
  return s;
}

}  // namespace

double roofline_total_tok_s(const calc::Setup& base, int64_t context, int64_t concurrency) {
  const calc::PerfModel model(roofline_setup(base));
  const std::vector<int64_t> contexts(static_cast<size_t>(std::max<int64_t>(concurrency, 1)), context);
  const double step_s = model.decode_step_time_s(contexts, context);
  return step_s > 0 ? static_cast<double>(contexts.size()) / step_s : 0;
}

double roofline_prefill_tok_s(const calc::Setup& base, int64_t context) {
  if (context < 1) return 0;
  const calc::PerfModel model(roofline_setup(base));
  const double compute_s = model.prefill_compute_time_s(context);
  return compute_s > 0 ? static_cast<double>(context) / compute_s : 0;
}

std::optional<calc::GpuSpec> class_bound_gpu(const HardwareInfo& hardware, const calc::Catalog& catalog) {
  if (hardware.source == HardwareSource::Unknown || catalog.gpus().empty()) return std::nullopt;
  std::string vendor;
  if (!hardware.gpus.empty()) {
    const std::string& name = hardware.gpus.front().name;
    vendor = name.substr(0, name.find(' '));
  }
  auto of_vendor = [&](const calc::GpuSpec& g) { return !vendor.empty() && g.name.starts_with(vendor + " "); };
  const bool any_of_vendor = std::any_of(catalog.gpus().begin(), catalog.gpus().end(), of_vendor);
  calc::GpuSpec bound;
  bound.id = "class-bound";
  bound.name = any_of_vendor ? fmt::format("any {} GPU (the catalog's fastest: an unverified GPU's bound)", vendor)
                             : std::string("any GPU (the catalog's fastest: an unverified device's bound)");
  auto raise = [](std::optional<double>& to, const std::optional<double>& from) {
    if (from && (!to || *from > *to)) to = from;
  };
  for (const calc::GpuSpec& g : catalog.gpus()) {
    if (any_of_vendor && !of_vendor(g)) continue;
    bound.memory_bytes = std::max(bound.memory_bytes, g.memory_bytes);
    bound.usable_memory_bytes = std::max(bound.usable_memory_bytes, g.usable_memory_bytes);
    bound.bandwidth_bytes_per_s = std::max(bound.bandwidth_bytes_per_s, g.bandwidth_bytes_per_s);
    bound.tensor_16bit_flops = std::max(bound.tensor_16bit_flops, g.tensor_16bit_flops);
    raise(bound.tensor_8bit_flops, g.tensor_8bit_flops);
    raise(bound.tensor_4bit_flops, g.tensor_4bit_flops);
  }
  // Every format at the fastest rate: a bound, not a prediction.
  bound.tensor_8bit_formats = {"int8", "fp8"};
  if (bound.tensor_4bit_flops) bound.tensor_4bit_formats = {"nvfp4", "mxfp4"};
  return bound;
}

std::string power_reason(const RunResult& run) {
  if (!run.telemetry || run.telemetry->gpus.empty()) return "";
  double limit_w = 0;
  for (const TelemetryGpu& g : run.telemetry->gpus) {
    if (!g.power_limit_w || !(*g.power_limit_w > 0)) return "";
    limit_w += *g.power_limit_w;
  }
  const double bound_w = kPowerLimitFactor * limit_w;
  auto over = [&](const std::optional<double>& power_w) { return power_w && *power_w > bound_w; };
  for (const DecodeCell& c : run.decode)
    if (c.status == CellStatus::Valid && over(c.telemetry.gpu_power_w))
      return fmt::format("decode {}: a mean of {:.0f} W is above {}× the sampled GPUs' enforced power limit ({:.0f} W): "
                         "its tokens per joule cannot be right",
                         format_tokens(c.context) + " × " + std::to_string(c.concurrency), *c.telemetry.gpu_power_w,
                         kPowerLimitFactor, limit_w);
  for (const PrefillRow& p : run.prefill)
    if (p.status == CellStatus::Valid && over(p.telemetry.gpu_power_w))
      return fmt::format("prefill {}: a mean of {:.0f} W is above {}× the sampled GPUs' enforced power limit ({:.0f} W): "
                         "its tokens per joule cannot be right",
                         format_tokens(p.context), *p.telemetry.gpu_power_w, kPowerLimitFactor, limit_w);
  return "";
}

std::string implausible_reason(const RunResult& run, const CatalogMatch& match, const calc::Catalog& catalog) {
  std::string reason = roofline_reason(run, match, catalog);
  return reason.empty() ? power_reason(run) : reason;
}

std::string roofline_reason(const RunResult& run, const CatalogMatch& match, const calc::Catalog& catalog) {
  if (!match.model) return "";
  calc::Setup setup;
  if (match.gpu && match.gpu_count >= 1) {
    setup.gpu = *match.gpu;
    setup.gpus = match.gpu_count;
  } else if (auto bound = class_bound_gpu(run.hardware, catalog)) {
    // Hardware the catalog does not know: checked against the fastest of its class, generously.
    setup.gpu = *bound;
    setup.gpus = std::max<int>(1, static_cast<int>(run.hardware.gpus.size()));
  } else {
    return "";
  }
  setup.model = *match.model;
  if (match.engine) setup.engine = *match.engine;
  if (match.quant) {
    setup.quant = *match.quant;
  } else {
    if (catalog.quants().empty()) return "";
    setup.quant = *std::min_element(catalog.quants().begin(), catalog.quants().end(),
                                    [](const calc::QuantSpec& a, const calc::QuantSpec& b) {
                                      return a.bits_per_weight() < b.bits_per_weight();
                                    });
  }
  double worst_ratio = 0;
  std::string reason;
  for (const DecodeCell& c : run.decode) {
    if (c.status != CellStatus::Valid || !c.total_tok_s || c.concurrency < 1) continue;
    const double roof = roofline_total_tok_s(setup, c.context, c.concurrency);
    if (!(roof > 0)) continue;
    const double ratio = *c.total_tok_s / roof;
    if (ratio > kImplausibleFactor && ratio > worst_ratio) {
      worst_ratio = ratio;
      reason = fmt::format("decode {}: {:.0f} tok/s is {:.1f}× the calculator's roofline ({:.0f} tok/s) for {}× {}, {}, {}",
                           format_tokens(c.context) + " × " + std::to_string(c.concurrency), *c.total_tok_s, ratio, roof,
                           setup.gpus, setup.gpu.name, setup.model.name, setup.quant.name);
    }
  }
  for (const PrefillRow& p : run.prefill) {
    if (p.status != CellStatus::Valid || !p.prompt_tok_s) continue;
    const double roof = roofline_prefill_tok_s(setup, p.context);
    if (!(roof > 0)) continue;
    const double ratio = *p.prompt_tok_s / roof;
    if (ratio > kImplausibleFactor && ratio > worst_ratio) {
      worst_ratio = ratio;
      reason = fmt::format("prefill {}: {:.0f} tok/s is {:.1f}× the calculator's compute roofline ({:.0f} tok/s) for {}× {}, {}, {}",
                           format_tokens(p.context), *p.prompt_tok_s, ratio, roof, setup.gpus, setup.gpu.name,
                           setup.model.name, setup.quant.name);
    }
  }
  return reason;
}

bool is_synthetic_model(const RunResult& run, const nlohmann::json& document) {
  if (auto e = document.find("engine"); e != document.end() && e->is_object()) {
    if (auto s = e->find("synthetic_model"); s != e->end() && s->is_boolean() && s->get<bool>()) return true;
  }
  return is_synthetic_engine_model(run.engine);
}

std::string measurements_sha256(const nlohmann::json& document) {
  nlohmann::json copy = document;
  if (copy.is_object())
    for (const char* key : {"run_id", "submitted_by", "notes"}) copy.erase(key);
  return sha256_hex(copy.dump());
}

}  // namespace sm::site
