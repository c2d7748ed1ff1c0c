#include "calc/predict.h"

#include "calc/fit.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <limits>

#include "calc/catalog.h"
#include "calc/compat.h"
#include "calc/fit.h"
#include "core/build_info.h"
#include "core/sha256.h"
#include "core/units.h"
#include "metrics/stats.h"
#include "result/result_json.h"

namespace sm::calc {

namespace {

// Weighted percentile of (value, weight) pairs; q in [0, 1].
double weighted_percentile(std::vector<std::pair<double, double>> values, double q) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  double total = 0;
  for (const auto& [v, w] : values) total += w;
  double target = q * total;
  double seen = 0;
  for (const auto& [v, w] : values) {
    seen += w;
    if (seen >= target) return v;
  }
  return values.back().first;
}

// Percentile of a copy (metrics' type-7 definition); 0 when there are no values.
double percentile_or_zero(std::vector<double> values, double q) { return values.empty() ? 0 : percentile(values, q); }

// One closed-loop stream of a decode cell.
struct Stream {
  bool generating = false;     // false: its request is queued at the API server or waiting to join the batch
  double arrival_s = 0;        // when its current request was sent
  double ready_s = 0;          // when the API server has handed the request to the scheduler
  int64_t generated = 0;       // output tokens of the current request so far
  bool had_first_token = false;  // produced a first token at least once (the window waits for all)
  int64_t window_tokens = 0;   // output tokens inside the window
  double window_first_s = -1;  // first token inside the window
  double window_last_s = -1;   // last token inside the window
};

// What would fit when `s` does not: the fewest GPUs of the same kind (up to 8), and the
// quantisations the engine runs there that fit on the GPUs asked for, smallest first.
std::vector<Phrase> fit_alternatives(const Setup& s, std::span<const EngineParams> engines, std::span<const QuantSpec> quants) {
  std::vector<Phrase> out;
  for (int n = s.gpus + 1; n <= 8; ++n) {
    Setup more = s;
    more.gpus = n;
    if (PerfModel(more).memory().kv_pool_bytes > 0) {
      out.push_back({"calc.refusal.fits_on_more", {{"gpus", std::to_string(n)}, {"gpu", s.gpu.name}}});
      break;
    }
  }
  std::vector<std::pair<double, std::string>> smaller;
  for (const auto& q : quants) {
    if (q.id == s.quant.id || q.bits_per_weight() >= s.quant.bits_per_weight()) continue;
    Setup other = s;
    other.quant = q;
    if (check_compatibility(other, engines, quants).refused()) continue;
    const PerfModel pm(other);
    if (pm.memory().kv_pool_bytes > 0) smaller.emplace_back(pm.memory().weight_bytes, q.id);
  }
  std::sort(smaller.begin(), smaller.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  if (!smaller.empty()) {
    const size_t shown = std::min<size_t>(smaller.size(), 3);
    Phrase p{fmt::format("calc.refusal.fits_with_quant.{}", shown), {}};
    for (size_t i = 0; i < shown; ++i) {
      p.fields.emplace_back(fmt::format("quant{}", i + 1), smaller[i].second);
      p.fields.emplace_back(fmt::format("gib{}", i + 1), fmt::format("{:.1f}", smaller[i].first / (1024.0 * 1024.0 * 1024.0)));
    }
    p.fields.emplace_back("gpus", std::to_string(s.gpus));
    p.fields.emplace_back("gpu", s.gpu.name);
    out.push_back(std::move(p));
  }
  if (out.empty()) out.push_back({"calc.refusal.no_fit", {}});
  return out;
}

}  // namespace

int64_t default_max_steps(double duration_s) {
  return 5'000'000 + static_cast<int64_t>(std::max(0.0, duration_s) * 200'000.0);
}

CellPrediction predict_decode_cell(const PerfModel& model, int64_t context, int64_t concurrency,
                                   int64_t max_output_tokens, double duration_s, int64_t max_steps) {
  CellPrediction out;
  if (max_steps <= 0) max_steps = default_max_steps(duration_s);
  if (concurrency < 1 || max_output_tokens < 1 || !(duration_s > 0)) return out;
  const auto n = static_cast<size_t>(concurrency);
  const double cpu_s = model.request_cpu_time_s(context);
  std::vector<Stream> streams(n);
  double api_free_s = 0;  // the API server handles one arrival at a time
  auto send = [&](Stream& s, double now) {
    s.generating = false;
    s.generated = 0;
    s.arrival_s = now;
    const double start = std::max(now, api_free_s);
    api_free_s = start + cpu_s;
    s.ready_s = api_free_s;
    ++out.requests_started;
  };
  for (Stream& s : streams) send(s, 0.0);

  std::vector<int64_t> contexts;
  std::vector<PrefillChunk> chunks;
  std::vector<size_t> joining;
  std::vector<double> ttfts;
  std::vector<std::pair<double, double>> gaps;  // (gap seconds, how many stream gaps had it)
  contexts.reserve(n);
  chunks.reserve(n);
  double window_open_s = -1;
  size_t with_first_token = 0;
  double active_time = 0;      // ∫ requests in flight dt over the window
  double generating_time = 0;  // ∫ streams generating dt over the window
  double now = 0;
  const PrefillChunk last_token{std::max<int64_t>(0, context - 1), 1};

  bool window_ended = false;
  int64_t step = 0;
  for (; step < max_steps; ++step) {
    contexts.clear();
    chunks.clear();
    joining.clear();
    for (size_t i = 0; i < n; ++i) {
      const Stream& s = streams[i];
      if (s.generating) {
        contexts.push_back(context + s.generated);
      } else if (s.ready_s <= now) {
        joining.push_back(i);
        chunks.push_back(last_token);
      }
    }
    if (contexts.empty() && chunks.empty()) {
      double next = std::numeric_limits<double>::infinity();
      for (const Stream& s : streams) next = std::min(next, s.ready_s);
      now = next;
      continue;
    }
    const double dt = std::max(1e-9, model.step_time_s(contexts, chunks, context));
    const double end = now + dt;
    const bool in_window = window_open_s >= 0 && end <= window_open_s + duration_s;
    if (window_open_s >= 0) {
      // Time-weighted averages over the part of this step inside the window.
      const double from = std::max(now, window_open_s);
      const double to = std::min(end, window_open_s + duration_s);
      if (to > from) {
        active_time += static_cast<double>(n) * (to - from);
        generating_time += static_cast<double>(contexts.size() + chunks.size()) * (to - from);
      }
    }
    if (window_open_s >= 0 && end > window_open_s + duration_s) {
      window_ended = true;
      break;
    }

    if (in_window && !contexts.empty()) gaps.emplace_back(dt, static_cast<double>(contexts.size()));
    auto emit = [&](Stream& s) {
      ++s.generated;
      if (!in_window) return;
      ++s.window_tokens;
      ++out.output_tokens;
      if (s.window_first_s < 0) s.window_first_s = end;
      s.window_last_s = end;
    };
    for (Stream& s : streams) {
      if (!s.generating) continue;
      emit(s);
      if (s.generated >= max_output_tokens) {
        if (in_window) ++out.completed;
        send(s, end);
      }
    }
    for (size_t i : joining) {
      Stream& s = streams[i];
      s.generating = true;
      ttfts.push_back(end - s.arrival_s);
      if (!s.had_first_token) {
        s.had_first_token = true;
        ++with_first_token;
      }
      emit(s);
      if (s.generated >= max_output_tokens) {
        if (in_window) ++out.completed;
        send(s, end);
      }
    }
    now = end;
    if (window_open_s < 0 && with_first_token >= n) window_open_s = now;
  }

  out.steps = step;
  out.window_s = duration_s;
  if (!window_ended) {
    // The cap, not the window, ended the simulation: the figures are over what was simulated.
    out.truncated = true;
    out.window_s = window_open_s >= 0 ? std::max(0.0, now - window_open_s) : 0.0;
  }
  if (out.window_s <= 0) return out;
  out.total_tok_s = static_cast<double>(out.output_tokens) / out.window_s;
  std::vector<double> per_stream;
  for (const Stream& s : streams)
    if (s.window_tokens >= 2 && s.window_last_s > s.window_first_s)
      per_stream.push_back(static_cast<double>(s.window_tokens - 1) / (s.window_last_s - s.window_first_s));
  out.per_request_tok_s = percentile_or_zero(per_stream, 0.5);
  out.ttft_s = percentile_or_zero(ttfts, 0.5);
  out.ttft_p90_s = percentile_or_zero(ttfts, 0.9);
  out.ttft_p99_s = percentile_or_zero(ttfts, 0.99);
  out.tbt_s = weighted_percentile(gaps, 0.5);
  out.tbt_p90_s = weighted_percentile(gaps, 0.9);
  out.tbt_p99_s = weighted_percentile(gaps, 0.99);
  out.avg_active = active_time / out.window_s;
  out.effective_concurrency = generating_time / out.window_s;
  return out;
}

namespace {

// The combination rules (engines.json backends and formats, quants.json tensor math) of `setup`;
// the built-in catalog supplies the alternatives a refusal names.
Compatibility builtin_compatibility(const Setup& setup, std::span<const EngineParams>* engines_out = nullptr,
                                    std::span<const QuantSpec>* quants_out = nullptr) {
  static const Result<Catalog> builtin = Catalog::builtin();
  const std::span<const EngineParams> engines = builtin ? std::span<const EngineParams>(builtin->engines())
                                                        : std::span<const EngineParams>();
  const std::span<const QuantSpec> quants = builtin ? std::span<const QuantSpec>(builtin->quants())
                                                    : std::span<const QuantSpec>();
  if (engines_out) *engines_out = engines;
  if (quants_out) *quants_out = quants;
  return check_compatibility(setup, engines, quants);
}

}  // namespace

std::vector<Phrase> setup_refusal(const Setup& setup) {
  std::span<const EngineParams> engines;
  std::span<const QuantSpec> quants;
  Compatibility compat = builtin_compatibility(setup, &engines, &quants);
  if (compat.refused()) return std::move(compat.refusal_phrases);
  const MemoryBreakdown mem = PerfModel(setup).memory();
  if (mem.kv_pool_bytes > 0) return {};
  constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
  auto gib = [](double bytes) { return fmt::format("{:.2f}", bytes / kGiB); };
  std::vector<Phrase> out = {{"calc.refusal.does_not_fit",
                              {{"model", setup.model.name},
                               {"quant", setup.quant.name},
                               {"gpus", std::to_string(setup.gpus)},
                               {"gpu", setup.gpu.name},
                               {"mem_util", fmt::format("{}", setup.mem_util())},
                               {"weights_gib", gib(mem.weight_bytes)},
                               {"reserve_gib", gib(mem.reserve_bytes)},
                               {"activations_gib", gib(mem.activation_bytes)},
                               {"memory_gib", gib(mem.engine_bytes)}}}};
  for (Phrase& p : fit_alternatives(setup, engines, quants)) out.push_back(std::move(p));
  return out;
}

Result<RunResult> predict(const Setup& setup, const PredictOptions& options, PredictionWording* wording) {
  if (auto ok = validate(options.matrix); !ok) return std::unexpected(ok.error());
  if (setup.gpus < 1 || setup.gpus > 64) return fail(ErrorCode::InvalidArgument, "--gpus must be between 1 and 64");
  if (!(setup.mem_util() > 0 && setup.mem_util() <= 1))
    return fail(ErrorCode::InvalidArgument, "--gpu-mem-util must be in (0, 1]");
  if (auto why = setup_refusal(setup); !why.empty()) return fail(ErrorCode::InvalidArgument, english(why));
  const Compatibility compat = builtin_compatibility(setup);  // its warnings
  const PerfModel model(setup);
  const MemoryBreakdown& mem = model.memory();
  constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

  CapacityLimits limits;
  limits.max_model_len = options.max_model_len.value_or(setup.model.max_position);
  if (options.kv_capacity_override)
    limits.kv_capacity_tokens = *options.kv_capacity_override;
  else if (mem.kv_bytes_per_token > 0)
    limits.kv_capacity_tokens = model.kv_capacity_tokens();
  const Plan plan = make_plan(options.matrix, limits);

  RunResult r;
  r.kind = "predicted";
  r.tool_version = build::kVersion;
  r.tool_commit = build::kGitCommit;
  r.tool_build_type = build::kBuildType;
  r.run_id = fmt::format("calc-{}x{}-{}-{}-{}", setup.gpus, setup.gpu.id, setup.model.id, setup.quant.id, setup.engine.id);
  PredictionWording words;
  auto gib = [](double bytes) { return fmt::format("{:.2f}", bytes / kGiB); };
  words.notes.push_back({"calc.note.predicted",
                         {{"engine", setup.engine.id},
                          {"weights_gib", gib(mem.weight_bytes)},
                          {"reserve_gib", gib(mem.reserve_bytes)},
                          {"activations_gib", gib(mem.activation_bytes)},
                          {"kv_gib", gib(mem.kv_pool_bytes)},
                          {"mem_util", fmt::format("{}", setup.mem_util())}}});

  r.engine.kind = setup.engine.id;
  r.engine.version = "predicted";
  {
    std::vector<std::string> build;
    if (!setup.flash_attention) build.push_back("flash attention off (-fa off)");
    if (!setup.cuda_graphs) build.push_back("CUDA graphs off (--enforce-eager)");
    r.engine.build = fmt::format("{}", fmt::join(build, "; "));
  }
  r.engine.model = setup.model.name;
  r.engine.quantization = setup.quant.name;
  r.engine.backend = setup.gpu.backend.empty() ? "cuda" : setup.gpu.backend;
  r.engine.max_model_len = limits.max_model_len;
  r.engine.kv_capacity_tokens = limits.kv_capacity_tokens;
  r.engine.kv_capacity_source = options.kv_capacity_override ? "--kv-capacity" : "predicted: calculator memory model";
  r.engine.slots = setup.num_seqs();
  r.engine.prefix_caching = true;  // the prediction assumes the cell's prompt is cached (warm-up)

  r.hardware.type = setup.gpu.type;
  for (int i = 0; i < setup.gpus; ++i) {
    GpuInfo g;
    g.name = setup.gpu.name;
    g.vram_bytes = setup.gpu.memory_bytes;
    r.hardware.gpus.push_back(g);
  }
  r.hardware.source = HardwareSource::Catalog;  // the catalog's GPU, not a machine that ran anything

  r.settings.max_output_tokens = options.matrix.max_output_tokens;
  r.settings.duration_s = options.matrix.duration_s;
  r.settings.decode_test = "fixed_duration";
  r.settings.prefill_mode = "predicted: cold prompt alone on the server";
  for (const auto& p : plan.prefill) r.settings.prefill_contexts.push_back(p.context);
  for (const auto& d : plan.decode) {
    if (std::find(r.settings.contexts.begin(), r.settings.contexts.end(), d.context) == r.settings.contexts.end())
      r.settings.contexts.push_back(d.context);
    if (std::find(r.settings.concurrency.begin(), r.settings.concurrency.end(), d.concurrency) ==
        r.settings.concurrency.end())
      r.settings.concurrency.push_back(d.concurrency);
  }
  std::sort(r.settings.concurrency.begin(), r.settings.concurrency.end());
  r.settings.kv_capacity_override = options.kv_capacity_override;
  r.settings.max_model_len_override = options.max_model_len;

  for (const auto& planned : plan.prefill) {
    PrefillRow row;
    row.context = planned.context;
    row.status = planned.status;
    if (planned.status == CellStatus::Valid) {
      const double ttft = model.prefill_time_s(planned.context);
      row.ttft_ms = ttft * 1000.0;
      row.prompt_tok_s = static_cast<double>(planned.context) / ttft;
      row.prompt_tokens = planned.context;
      row.cached_tokens = 0;
    }
    r.prefill.push_back(row);
  }
  for (const auto& planned : plan.decode) {
    DecodeCell cell;
    cell.context = planned.context;
    cell.concurrency = planned.concurrency;
    cell.status = planned.status;
    if (planned.status == CellStatus::Valid) {
      const CellPrediction p = predict_decode_cell(model, planned.context, planned.concurrency,
                                                   options.matrix.max_output_tokens, options.matrix.duration_s,
                                                   options.max_steps_per_cell);
      if (p.truncated && p.window_s <= 0) {
        cell.status = CellStatus::Error;
        cell.error = fmt::format("the simulation reached its cap of {} engine steps before any of the window was "
                                 "simulated: nothing to predict",
                                 p.steps);
        r.decode.push_back(cell);
        continue;
      }
      if (p.truncated)
        cell.warnings.push_back(fmt::format(
            "the simulation reached its cap of {} engine steps after {:.3g} s of the {:.3g} s window; the figures "
            "are over that part",
            p.steps, p.window_s, options.matrix.duration_s));
      cell.total_tok_s = p.total_tok_s;
      cell.per_request_tok_s = p.per_request_tok_s;
      cell.ttft_ms = p.ttft_s * 1000.0;
      cell.ttft_p90_ms = p.ttft_p90_s * 1000.0;
      cell.ttft_p99_ms = p.ttft_p99_s * 1000.0;
      cell.tbt_ms = p.tbt_s * 1000.0;
      cell.tbt_p90_ms = p.tbt_p90_s * 1000.0;
      cell.tbt_p99_ms = p.tbt_p99_s * 1000.0;
      cell.chunk_gap_ms = cell.tbt_ms;
      cell.tokens_per_chunk = 1.0;
      cell.avg_active = p.avg_active;
      cell.effective_concurrency = p.effective_concurrency;
      cell.completed = p.completed;
      cell.output_tokens = p.output_tokens;
      cell.measured_s = p.window_s;
      cell.requests_started = p.requests_started;
      cell.requests_failed = 0;
      cell.ended_early = 0;
      cell.token_count_source = "predicted";
      cell.prompt_tokens_min = planned.context;
      cell.prompt_tokens_max = planned.context;
    }
    r.decode.push_back(cell);
  }
  // The error interval of this engine on this GPU class (docs/calculator.md, "Honest error").
  {
    const std::string cls = gpu_class(setup.gpu);
    auto interval = [&](const std::string& family) -> Phrase {
      const auto& e = setup.engine.error_80;
      const std::string id = "calc.warning." + family + "_error";
      const auto& little = setup.engine.error_80_little_evidence;
      if (auto it = e.find(family + "/" + cls); it != e.end()) {
        if (std::find(little.begin(), little.end(), it->first) != little.end())
          return {id + ".little_evidence", {{"percent", fmt::format("{:.0f}", 100 * it->second)}, {"class", cls}}};
        return {id, {{"percent", fmt::format("{:.0f}", 100 * it->second)}}};
      }
      // No row of this class but rows of others: the wide band of little evidence (calc/fit.h),
      // or an engine file's band over every class where that is wider.
      const bool family_measured =
          std::any_of(e.begin(), e.end(), [&](const auto& kv) { return kv.first.rfind(family + "/", 0) == 0; });
      if (!family_measured) return {id + ".none", {}};
      double band = kLittleEvidenceBand;
      if (auto it = e.find(family + "/all"); it != e.end()) band = std::max(band, it->second);
      return {id + ".unmeasured", {{"percent", fmt::format("{:.0f}", 100 * band)}, {"class", cls}}};
    };
    if (setup.engine.error_80.empty())
      words.warnings.push_back({{"calc.warning.no_error_estimate", {{"engine", setup.engine.id}}}});
    else
      words.warnings.push_back({{"calc.warning.expected_error", {{"engine", setup.engine.id}, {"class", cls}}},
                                interval("decode"),
                                interval("prefill")});
  }
  // Unusual combinations: run-level warnings (every printer shows them) and the notes.
  for (const Phrase& w : compat.warning_phrases) {
    words.warnings.push_back({w});
    words.notes.push_back(w);
  }
  if (setup.engine.notes.find("uncalibrated") != std::string::npos)
    words.warnings.push_back({{"calc.warning.uncalibrated", {{"engine", setup.engine.id}, {"notes", setup.engine.notes}}}});
  r.notes = english(words.notes);
  for (const auto& w : words.warnings) r.warnings.push_back(english(w));
  if (wording) *wording = std::move(words);
  // The id names the setup and ends with a hash of everything that shapes the prediction (the
  // settings, the engine's limits and the hardware), so two different predictions of one setup
  // never share an id and the same prediction always gets the same one.
  const nlohmann::json record = to_json(r);
  r.run_id += "-" + sha256_hex(record["settings"].dump() + record["engine"].dump() + record["hardware"].dump()).substr(0, 8);
  return r;
}

}  // namespace sm::calc
