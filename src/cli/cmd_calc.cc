// speedmatrix calc --gpu G --model M --quant Q --engine E [matrix flags] [--format term|json|html|md|csv]
// The decode calculator: predicts the speed-test matrix with the performance model of src/calc.
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "result/plan.h"
#include "calc/catalog.h"
#include "calc/hf_config.h"
#include "cli/gpu_figure_flags.h"
#include "calc/calibration_pairs.h"
#include "calc/catalog_listing.h"
#include "calc/corpus.h"
#include "calc/fit.h"
#include "calc/predict.h"
#include "cli/commands.h"
#include "core/clock.h"
#include "core/units.h"
#include "report/report.h"
#include "report/terminal.h"
#include "result/result_json.h"

namespace sm::cli {

namespace {

struct CalcFlags {
  std::string gpu;
  std::string model;
  std::string quant;
  std::string engine;
  int gpus = 1;
  std::string kv_dtype = "auto";
  bool no_flash_attention = false;
  bool enforce_eager = false;
  std::optional<double> gpu_mem_util;
  std::optional<int64_t> max_num_seqs;
  std::string max_batched_tokens;
  std::string contexts;
  std::string concurrency;
  std::string prefill_contexts;
  double duration_s = 30;
  std::string max_output = "8192";
  std::string max_model_len;
  std::string kv_capacity;
  std::string format = "term";
  std::string out;
  std::string color = "auto";
  std::vector<std::string> gpu_files;
  std::vector<std::string> model_files;
  std::vector<std::string> model_configs;  ///< --model-config: Hugging Face config.json files
  GpuFigureFlags gpu_figures;              ///< --gpu-bandwidth, --gpu-tflops, --gpu-memory, --gpu-class
  std::vector<std::string> quant_files;
  std::vector<std::string> engine_files;
  bool list = false;
  std::string calibrate_from;
  std::string calibrate_model;
  std::string calibrate_quant;
};

int usage_error(const std::string& message) {
  std::fprintf(stderr, "speedmatrix calc: %s\n", message.c_str());
  return kExitUsage;
}

// The built-in catalogs plus the user's files; `config_model` receives the id of the last
// --model-config's model (the default --model).
Result<calc::Catalog> load_catalog(const CalcFlags& f, std::string* config_model = nullptr) {
  auto catalog = calc::Catalog::builtin();
  if (!catalog) return catalog;
  const std::pair<const std::vector<std::string>*, const char*> files[] = {
      {&f.gpu_files, "gpus"}, {&f.model_files, "models"}, {&f.quant_files, "quants"}, {&f.engine_files, "engines"}};
  for (const auto& [paths, kind] : files)
    for (const auto& path : *paths)
      if (auto ok = catalog->add_file(path, kind); !ok) return std::unexpected(ok.error());
  for (const auto& path : f.model_configs) {
    auto id = calc::add_hf_config(*catalog, path);
    if (!id) return std::unexpected(id.error());
    if (config_model) *config_model = *id;
  }
  return catalog;
}

// Turns the flags into a setup and prediction options; errors name the flag.
Result<std::pair<calc::Setup, calc::PredictOptions>> to_config(const CalcFlags& f, const calc::Catalog& catalog) {
  std::vector<std::string> missing;
  if (f.gpu.empty()) missing.push_back("--gpu");
  if (f.model.empty()) missing.push_back("--model");
  if (f.quant.empty()) missing.push_back("--quant");
  if (f.engine.empty()) missing.push_back("--engine");
  if (!missing.empty())
    return fail(ErrorCode::InvalidArgument,
                fmt::format("missing {} (see `speedmatrix calc --list` for the names)", fmt::join(missing, ", ")));
  calc::Setup s;
  auto gpu = catalog.find_gpu(f.gpu);
  if (!gpu) return fail(ErrorCode::InvalidArgument, "--gpu: " + gpu.error().message);
  auto model = catalog.find_model(f.model);
  if (!model) return fail(ErrorCode::InvalidArgument, "--model: " + model.error().message);
  auto quant = catalog.find_quant(f.quant);
  if (!quant) return fail(ErrorCode::InvalidArgument, "--quant: " + quant.error().message);
  auto engine = catalog.find_engine(f.engine);
  if (!engine) return fail(ErrorCode::InvalidArgument, "--engine: " + engine.error().message);
  s.gpu = *gpu;
  s.model = *model;
  s.quant = *quant;
  s.engine = *engine;
  s.gpus = f.gpus;
  if (f.kv_dtype == "auto" || f.kv_dtype == "bf16" || f.kv_dtype == "fp16")
    s.kv_bytes_per_element = 2;
  else if (f.kv_dtype == "fp8" || f.kv_dtype == "fp8_e4m3" || f.kv_dtype == "fp8_e5m2" || f.kv_dtype == "q8_0")
    s.kv_bytes_per_element = 1;
  else
    return fail(ErrorCode::InvalidArgument, "--kv-dtype must be auto, bf16, fp16 or fp8");
  s.gpu_mem_util = f.gpu_mem_util;
  s.max_num_seqs = f.max_num_seqs;
  s.flash_attention = !f.no_flash_attention;
  s.cuda_graphs = !f.enforce_eager;
  if (f.enforce_eager && !(s.engine.eager_overhead_s_per_layer > 0))
    return fail(ErrorCode::InvalidArgument,
                fmt::format("--enforce-eager: {} has no eager mode in the calculator (its eager_overhead_ms_per_layer is "
                            "unset); vLLM and SGLang have one",
                            s.engine.name));

  auto with_flag = [](const char* flag, const Error& e) { return fail(e.code, fmt::format("{}: {}", flag, e.message)); };
  if (!f.max_batched_tokens.empty()) {
    auto v = parse_token_count(f.max_batched_tokens);
    if (!v) return with_flag("--max-batched-tokens", v.error());
    if (*v < 1) return fail(ErrorCode::InvalidArgument, "--max-batched-tokens must be at least 1");
    s.max_batched_tokens = *v;
  }

  calc::PredictOptions o;
  auto max_out = parse_token_count(f.max_output);
  if (!max_out) return with_flag("--max-output", max_out.error());
  o.matrix.max_output_tokens = *max_out;
  if (!f.max_model_len.empty()) {
    auto v = parse_token_count(f.max_model_len);
    if (!v) return with_flag("--max-model-len", v.error());
    o.max_model_len = *v;
  }
  if (!f.kv_capacity.empty()) {
    auto v = parse_token_count(f.kv_capacity);
    if (!v) return with_flag("--kv-capacity", v.error());
    o.kv_capacity_override = *v;
  }
  const int64_t max_model_len = o.max_model_len.value_or(s.model.max_position);
  o.matrix.contexts = default_contexts(max_model_len, o.matrix.max_output_tokens);
  if (f.contexts == "none") {
    o.matrix.contexts.clear();  // prefill rows only
  } else if (!f.contexts.empty()) {
    auto v = parse_token_list(f.contexts);
    if (!v) return with_flag("--contexts", v.error());
    o.matrix.contexts = *v;
  }
  o.matrix.concurrency = default_concurrency();
  if (!f.concurrency.empty()) {
    auto v = parse_int_list(f.concurrency);
    if (!v) return with_flag("--concurrency", v.error());
    o.matrix.concurrency = *v;
  }
  o.matrix.prefill_contexts = default_prefill_contexts();
  if (!f.prefill_contexts.empty()) {
    if (f.prefill_contexts == "none") {
      o.matrix.prefill_contexts.clear();
    } else {
      auto v = parse_token_list(f.prefill_contexts);
      if (!v) return with_flag("--prefill-contexts", v.error());
      o.matrix.prefill_contexts = *v;
    }
  }
  o.matrix.duration_s = f.duration_s;
  if (auto ok = validate(o.matrix); !ok) return std::unexpected(ok.error());
  return std::pair{s, o};
}

int print_text(const std::string& text) {
  std::fwrite(text.data(), 1, text.size(), stdout);
  return std::fflush(stdout) == 0 ? kExitOk : kExitFailure;
}

int run_calc(const CalcFlags& given) {
  CalcFlags f = given;
  std::string config_model;
  auto catalog = load_catalog(f, &config_model);
  if (!catalog) return usage_error(catalog.error().message);
  if (f.model.empty()) f.model = config_model;  // --model-config alone names the model
  if (auto ok = apply_gpu_figure_flags(f.gpu_figures, *catalog, f.gpu); !ok) return usage_error(ok.error().message);

  const bool json_output = f.format == "json";
  std::optional<ReportFormat> report_format;
  if (!json_output) {
    auto parsed = parse_report_format(f.format);
    if (!parsed) return usage_error("--format must be term, json, html, md or csv");
    report_format = *parsed;
  }
  auto color = report::parse_color_mode(f.color);
  if (!color) return usage_error(color.error().message);

  if (f.list) {
    if (json_output) return print_text(calc::catalog_to_json(*catalog).dump(2) + "\n");
    return print_text(calc::catalog_to_text(*catalog));
  }

  auto config = to_config(f, *catalog);
  if (!config) return usage_error(config.error().message);
  auto [setup, options] = *config;
  std::vector<std::string> calibration_notes;
  if (!f.calibrate_from.empty()) {
    // Measure once, predict every model: fit this GPU's engine parameters to the user's own run
    // (its model may differ from the one predicted), then predict with them.
    auto run = read_result_file(f.calibrate_from);
    if (!run) return usage_error("--calibrate-from: " + run.error().message);
    // The run calibrates the engine it was measured with.
    if (!run->engine.kind.empty()) {
      auto run_engine = catalog->find_engine(run->engine.kind);
      if (run_engine && run_engine->id != setup.engine.id)
        return usage_error(fmt::format("--calibrate-from: the run was measured with {}, not --engine {}",
                                       run_engine->id, setup.engine.id));
    }
    const std::string model_name = f.calibrate_model.empty() ? run->engine.model : f.calibrate_model;
    const std::string quant_name = f.calibrate_quant.empty() ? run->engine.quantization : f.calibrate_quant;
    auto model = catalog->find_model(model_name);
    if (!model)
      return usage_error(fmt::format("--calibrate-from: the run's model \"{}\" is not in the catalog; name it with "
                                     "--calibrate-model ({})", model_name, model.error().message));
    auto quant = catalog->find_quant(quant_name);
    if (!quant)
      return usage_error(fmt::format("--calibrate-from: the run's quantisation \"{}\" is not in the catalog; name it "
                                     "with --calibrate-quant ({})", quant_name, quant.error().message));
    calc::Setup run_setup = setup;
    run_setup.model = *model;
    run_setup.quant = *quant;
    const auto cases = calc::cases_from_run(*run, run_setup);
    if (cases.empty()) return usage_error("--calibrate-from: the run has no valid decode cell or prefill row");
    const calc::FitResult fit = calc::fit_engine(cases, setup.engine);
    std::vector<double> before, after;
    for (const auto& r : fit.residuals) {
      after.push_back(r.error());
      before.push_back(calc::predict_corpus_value(*r.c, setup.engine) / r.measured - 1.0);
    }
    const auto sb = calc::error_stats(before), sa = calc::error_stats(after);
    calibration_notes.push_back(fmt::format(
        "calibrated from {} ({} on {}, {} cells and rows): bandwidth efficiency {:.3f} -> {:.3f}, decode compute "
        "{:.3f} -> {:.3f}, prefill compute {:.3f} -> {:.3f}, step overhead {:.2f} -> {:.2f} ms; the run's median "
        "error {:.0f}% -> {:.0f}%",
        f.calibrate_from, model->id, setup.gpu.id, cases.size(), setup.engine.bandwidth_efficiency,
        fit.params.bandwidth_efficiency, setup.engine.decode_compute_efficiency, fit.params.decode_compute_efficiency,
        setup.engine.prefill_compute_efficiency, fit.params.prefill_compute_efficiency,
        setup.engine.step_overhead_s * 1000, fit.params.step_overhead_s * 1000, 100 * sb.median_abs,
        100 * sa.median_abs));
    setup.engine = fit.params;
  }
  char started[32];
  const std::string started_at(format_iso8601_utc(wall_clock_unix_ms(), started));
  auto result = calc::predict(setup, options);
  if (!result) {
    std::fprintf(stderr, "speedmatrix calc: %s\n", result.error().message.c_str());
    return kExitFailure;
  }
  for (const auto& note : calibration_notes) result->warnings.insert(result->warnings.begin(), note);
  result->started_at = started_at;
  result->finished_at = started_at;

  if (!f.out.empty()) {
    if (auto ok = write_result_file(f.out, *result); !ok) {
      std::fprintf(stderr, "speedmatrix calc: %s\n", ok.error().message.c_str());
      return kExitFailure;
    }
  }
  if (json_output) return print_text(to_json(*result).dump(2) + "\n");
  RenderOptions render;
  render.color = report::stdout_wants_color(*color);
  render.width_columns = report::stdout_width_columns();
  render.details_hint = "calc ... --format html (or md, csv)";
  return print_text(render_report(*result, *report_format, render));
}

struct FitFlags {
  std::string corpus = "data/measurements/measurements.csv";
  std::vector<std::string> engines;  // default: every engine with usable rows
  std::string out;
  bool cross_validate = false;
  bool calibration_pairs = false;  ///< --calibration-pairs
  bool residuals = false;
  /// Engines whose shipped values were fitted to the corpus, at values that never saw it:
  /// cross-validation refits these per fold from here, and scores every other engine as it is.
  std::string cv_start = "data/measurements/cv-start-engines.json";
};

/// One line per residual: the row, its setup, measured and predicted figure and the error.
std::string residual_rows(const std::vector<calc::Residual>& residuals) {
  std::string text = fmt::format("  {:<8} {:<22} {:<14} {:<8} {:<24} {:>5} {:>6} {:>6} {:>10} {:>10} {:>7}\n", "row",
                                 "metric", "gpu", "quant", "model", "gpus", "conc", "ctx", "measured", "predicted", "error");
  for (const auto& r : residuals)
    text += fmt::format("  {:<8} {:<22} {:<14} {:<8} {:<24} {:>5} {:>6} {:>6} {:>10.1f} {:>10.1f} {:>+6.0f}%\n",
                        r.c->row.id, r.c->row.metric, r.c->row.gpu, r.c->row.quant, r.c->row.model,
                        r.c->row.gpu_count.value_or(1), r.c->concurrency, r.c->context, r.measured, r.predicted,
                        100 * r.error());
  return text;
}

int run_fit(const CalcFlags& cf, const FitFlags& f) {
  auto catalog = load_catalog(cf);
  if (!catalog) return usage_error(catalog.error().message);
  auto rows = calc::load_corpus_file(f.corpus);
  if (!rows) return usage_error(rows.error().message);
  const auto cases = calc::map_corpus(*rows, *catalog);
  std::map<std::string, int> skipped;
  size_t usable = 0;
  for (const auto& c : cases) {
    if (c.usable)
      ++usable;
    else
      ++skipped[c.why_not];
  }
  std::string text = fmt::format("corpus {}: {} rows, {} usable, {} skipped:\n", f.corpus, cases.size(), usable,
                                 cases.size() - usable);
  std::vector<std::pair<int, std::string>> by_count;
  for (const auto& [why, n] : skipped) by_count.emplace_back(n, why);
  std::sort(by_count.rbegin(), by_count.rend());
  for (const auto& [n, why] : by_count) text += fmt::format("  {:>4}  {}\n", n, why);

  std::vector<std::string> engine_ids = f.engines;
  if (engine_ids.empty()) {
    for (const auto& e : catalog->engines())
      if (std::any_of(cases.begin(), cases.end(), [&](const auto& c) { return c.usable && c.setup.engine.id == e.id; }))
        engine_ids.push_back(e.id);
  }
  std::vector<calc::EngineParams> fitted;
  std::vector<calc::Residual> all;
  for (const auto& id : engine_ids) {
    auto start = catalog->find_engine(id);
    if (!start) return usage_error("--engine: " + start.error().message);
    calc::FitResult fit = calc::fit_engine(cases, *start);
    fit.params.source = fmt::format("speedmatrix calc fit on {} ({} usable rows of {}; robust loss {:.3f} -> {:.3f}); "
                                    "unfitted fields from: {}",
                                    f.corpus, fit.rows, start->id, fit.loss_before, fit.loss, start->source);
    text += fmt::format("\n{} ({} rows): loss {:.4f} -> {:.4f} in {} evaluations\n", start->id, fit.rows,
                        fit.loss_before, fit.loss, fit.evaluations);
    for (const auto& b : calc::fit_bounds()) {
      text += fmt::format("  {:<30} {:>8.4f} -> {:>8.4f}   [{}, {}]\n", b.name, calc::fit_param_value(*start, b.name),
                          calc::fit_param_value(fit.params, b.name), b.lo, b.hi);
    }
    if (f.residuals) text += residual_rows(fit.residuals);
    all.insert(all.end(), fit.residuals.begin(), fit.residuals.end());
    fitted.push_back(fit.params);
  }
  text += "\nIn-sample errors (fitted on every row):\n" + calc::error_table(all);
  if (f.cross_validate) {
    // The shipped parameters (data/engines.json as built in), in sample: what `calc` predicts
    // with; an engine fitted to these rows is scored on rows it saw.
    CalcFlags builtin_flags = cf;
    builtin_flags.engine_files.clear();
    auto shipped = load_catalog(builtin_flags);
    if (!shipped) return usage_error(shipped.error().message);
    text += "\nIn-sample errors of the shipped parameters (data/engines.json as built in, not refitted; an engine "
            "fitted to these rows is scored on rows it saw):\n" +
            calc::error_table(calc::predict_cases(cases, *shipped));
    // Held-out residuals: the engines of --cv-start refitted per fold from its values; every other
    // engine scored with the values `calc` uses (they never saw the corpus).
    auto refit = calc::engine_ids_in_file(f.cv_start);
    if (!refit) return usage_error("--cv-start: " + refit.error().message);
    calc::Catalog cv_catalog = *catalog;
    if (auto ok = cv_catalog.add_file(f.cv_start, "engines"); !ok) return usage_error("--cv-start: " + ok.error().message);
    const calc::CrossValidation cv = calc::cross_validate(cases, cv_catalog, &*refit);
    for (auto& e : fitted) {
      const auto bands = calc::calibrated_bands(cv.residuals, e.id);
      e.error_80 = calc::error_intervals(bands);
      e.error_80_little_evidence = calc::little_evidence_keys(bands);
      const std::string predicted_by =
          refit->count(e.id) ? fmt::format("{} refitted without the row's source, starting from {}", e.id, f.cv_start)
                             : fmt::format("{}'s shipped parameters, which never saw the corpus", e.id);
      e.error_source = fmt::format(
          "80% bands calibrated on held-out residuals over {} (speedmatrix calc fit --cross-validate; "
          "docs/calculator.md): the split-conformal quantile (rank ceil(0.8 (n + 1))) of |predicted/measured - 1| over "
          "the group's rows, each predicted by {}; a group with fewer than {} rows or {} sources has little evidence "
          "and the band max(+-{:.0f}%, its largest error); coverage measured on sources each band was not calibrated on",
          f.corpus, predicted_by, calc::kBandMinRows, calc::kBandMinSources, 100 * calc::kLittleEvidenceBand);
      if (!e.error_80.empty()) {
        text += fmt::format("{} 80% intervals: {}", e.id, nlohmann::json(e.error_80).dump());
        if (!e.error_80_little_evidence.empty())
          text += fmt::format(" (little evidence: {})", fmt::join(e.error_80_little_evidence, ", "));
        text += "\n";
      }
    }
    if (f.residuals)
      text += "\nLeave-one-source-out predictions (each row by a fit that never saw its source):\n" +
              residual_rows(cv.residuals);
    text += fmt::format(
        "\nLeave-one-source-out cross-validation (engines of {} refitted without each row's source; others "
        "scored as shipped), with 80% bands and their coverage on sources each band was not calibrated on:\n",
        f.cv_start) +
            calc::error_table(cv.residuals, true);
    if (!cv.unfitted_sources.empty())
      text += fmt::format("catalog values used (no other rows of the engine): {}\n", fmt::join(cv.unfitted_sources, ", "));
  }
  if (f.calibration_pairs) {
    // --calibrate-from, measured: fit one GPU's rows, predict the same source's other GPU, both
    // from the parameters `calc` would have without that source (the --cv-start engines refitted
    // without it, the others as shipped).
    auto refit = calc::engine_ids_in_file(f.cv_start);
    if (!refit) return usage_error("--cv-start: " + refit.error().message);
    calc::Catalog start = *catalog;
    if (auto ok = start.add_file(f.cv_start, "engines"); !ok) return usage_error("--cv-start: " + ok.error().message);
    text += fmt::format(
        "\nCalibration from a run, on held-out pairs: one source's rows of one setup fit the engine, as "
        "--calibrate-from fits it to a run, and predict the same source's rows of another; before: the engines of "
        "{} fitted without that source, the others as shipped.\n",
        f.cv_start);
    text += "\nThe same model on another GPU:\n" +
            calc::calibration_pairs_table(calc::evaluate_calibration_pairs(cases, start, *refit, calc::PairAcross::Gpu));
    text += "\nAnother model on the same GPU:\n" +
            calc::calibration_pairs_table(calc::evaluate_calibration_pairs(cases, start, *refit, calc::PairAcross::Model));
  }
  if (!f.out.empty()) {
    std::ofstream out(f.out, std::ios::binary | std::ios::trunc);
    out << calc::engine_file_json(fitted).dump(2) << "\n";
    if (!out) {
      std::fprintf(stderr, "speedmatrix calc fit: cannot write %s\n", f.out.c_str());
      return kExitFailure;
    }
    text += fmt::format("\nwrote {} (use: speedmatrix calc --engine-file {} ...)\n", f.out, f.out);
  }
  return print_text(text);
}

}  // namespace

void add_calc_command(CLI::App& app, Action& action) {
  auto flags = std::make_shared<CalcFlags>();
  CLI::App* cmd = app.add_subcommand("calc", "Predict the matrix for a GPU x model x quantisation (decode calculator)");
  cmd->footer(
      "Prints the same matrix a measured run has (kind \"predicted\"); --out writes it as a result file\n"
      "that `report` and `compare` read. Names match ids and aliases, ignoring case and punctuation.\n"
      "Examples:\n"
      "  speedmatrix calc --list\n"
      "  speedmatrix calc --gpu rtx3090 --model qwen3.5-4b --quant awq-4bit --engine vllm \\\n"
      "      --gpu-mem-util 0.94 --max-model-len 262144 --max-num-seqs 128\n"
      "  speedmatrix calc --gpu h100 --model llama-3.1-70b --quant fp8 --engine vllm --gpus 2 --format json\n"
      "  speedmatrix calc --gpu-file my-gpu.json --gpu my-gpu --model qwen3-4b --quant bf16 --engine sglang");
  cmd->add_option("--gpu", flags->gpu, "GPU from the catalog (see --list), e.g. rtx3090, h100-sxm, m3-ultra");
  cmd->add_option("--model", flags->model, "Model shape from the catalog, e.g. qwen3.5-4b, llama-3.1-8b");
  cmd->add_option("--quant", flags->quant, "Weight quantisation, e.g. awq-4bit, bf16, fp8, q4_k_m");
  cmd->add_option("--engine", flags->engine, "Engine whose fitted parameters to use: vllm, sglang, llamacpp or mlx");
  cmd->add_option("--gpus", flags->gpus, "Tensor-parallel GPUs serving one replica")
      ->capture_default_str()
      ->check(CLI::Range(1, 64));
  cmd->add_option("--kv-dtype", flags->kv_dtype, "KV cache element type: auto (16-bit), bf16, fp16 or fp8")
      ->capture_default_str();
  cmd->add_flag("--no-flash-attention", flags->no_flash_attention,
               "Predict attention without fused flash-attention kernels (llama.cpp -fa off, its default before "
               "September 2025): decode then slows with context in proportion to the GPU's arithmetic");
  cmd->add_flag("--enforce-eager", flags->enforce_eager,
               "Predict without CUDA graphs (vLLM --enforce-eager, SGLang --disable-cuda-graph): every step also "
               "launches each layer's kernels from Python (the engine's eager_overhead_ms_per_layer)");
  cmd->add_option("--gpu-mem-util", flags->gpu_mem_util,
                  "Fraction of GPU memory the engine takes (vLLM --gpu-memory-utilization; default: the engine's)")
      ->check(CLI::Range(0.05, 1.0));
  cmd->add_option("--max-num-seqs", flags->max_num_seqs,
                  "Concurrent sequences the engine is started with (sizes its sampler buffer; default: the engine's)")
      ->check(CLI::Range(int64_t{1}, int64_t{100000}));
  cmd->add_option("--max-batched-tokens", flags->max_batched_tokens,
                  "Tokens per scheduler step, i.e. the prefill chunk (default: the engine's for this GPU)");
  cmd->add_option("--contexts", flags->contexts,
                  "Decode rows, comma list, or 'none' for prefill rows only (default 0,16K,32K,64K,128K up to max model "
                  "length - max output, which ends the list)");
  cmd->add_option("--concurrency", flags->concurrency, "Decode columns, comma list (default 1,2,4,8,16,32,64,128)");
  cmd->add_option("--prefill-contexts", flags->prefill_contexts,
                  "Prefill rows, comma list, or 'none' (default 8K,16K,32K,64K,128K)");
  cmd->add_option("--duration", flags->duration_s, "Seconds of each decode cell's window")->capture_default_str();
  cmd->add_option("--max-output", flags->max_output, "Tokens each decode request asks for")->capture_default_str();
  cmd->add_option("--max-model-len", flags->max_model_len,
                  "Longest prompt + output per request (default: the model's maximum position)");
  cmd->add_option("--kv-capacity", flags->kv_capacity, "KV-cache capacity in tokens, instead of the predicted one");
  cmd->add_option("--format", flags->format, "term, json (the result record), html, md or csv")->capture_default_str();
  cmd->add_option("--out", flags->out, "Also write the prediction as a result file (JSON) for report/compare");
  cmd->add_option("--color", flags->color, "Terminal colours: auto, always or never")->capture_default_str();
  cmd->add_option("--gpu-file", flags->gpu_files, "JSON file of extra GPUs (same layout as data/gpus.json); repeatable");
  cmd->add_option("--model-file", flags->model_files, "JSON file of extra model shapes (data/models.json layout)");
  add_gpu_figure_flags(cmd, flags->gpu_figures);
  cmd->add_option("--model-config", flags->model_configs,
                  "A Hugging Face config.json of a model the catalog lacks (layers, heads, KV heads, hidden size, "
                  "experts, MLA, sliding windows are read from it); it becomes --model unless one is given. "
                  "Linear-attention models need a --model-file entry");
  cmd->add_option("--quant-file", flags->quant_files, "JSON file of extra quantisations (data/quants.json layout)");
  cmd->add_option("--engine-file", flags->engine_files, "JSON file of engine parameters (data/engines.json layout)");
  cmd->add_option("--calibrate-from", flags->calibrate_from,
                  "A result.json measured on this GPU: fit the engine's efficiencies and step overhead to it, then "
                  "predict (any model) with them. On published pairs it removes the corpus fit's bias but not its "
                  "typical error (calc fit --calibration-pairs; docs/calculator.md): use it where the corpus does not "
                  "describe your setup");
  cmd->add_option("--calibrate-model", flags->calibrate_model,
                  "Catalog model of the --calibrate-from run (default: the run's served model name)");
  cmd->add_option("--calibrate-quant", flags->calibrate_quant,
                  "Catalog quantisation of the --calibrate-from run (default: the run's quantisation)");
  cmd->add_flag("--list", flags->list, "List the GPUs, models, quantisations and engines, then exit");
  auto fit_flags = std::make_shared<FitFlags>();
  CLI::App* fit = cmd->add_subcommand("fit", "Fit the engines' parameters to the calibration corpus (issue 13)");
  fit->footer(
      "Reads data/measurements/measurements.csv (or --corpus), maps each row to a calculator setup, fits\n"
      "each engine's efficiencies, step overhead and tensor-parallel loss (bounded, robust loss on log\n"
      "error) and prints the residuals. --out writes an engine file for `calc --engine-file`.\n"
      "  speedmatrix calc fit --cross-validate          # the table in docs/calculator.md");
  fit->add_option("--corpus", fit_flags->corpus, "measurements.csv to fit")->capture_default_str();
  fit->add_option("--engine", fit_flags->engines, "Engines to fit (default: every engine with usable rows)");
  fit->add_option("--out", fit_flags->out, "Write the fitted engines (data/engines.json layout) to this file");
  fit->add_flag("--calibration-pairs", fit_flags->calibration_pairs,
                "Measure what --calibrate-from gains: for every source that measured a model on two GPUs, fit the "
                "engine to one GPU's rows and predict the other's, beside the uncalibrated predictions "
                "(docs/calculator.md, \"Calibrating from a run, measured\")");
  fit->add_flag("--cross-validate", fit_flags->cross_validate,
                "Also run leave-one-source-out cross-validation: print the shipped parameters' in-sample errors, "
                "the held-out error table, and 80% bands with their coverage on sources they were not "
                "calibrated on (--out writes them as error_80)");
  fit->add_flag("--residuals", fit_flags->residuals, "Print every row's measured and predicted figure");
  fit->add_option("--cv-start", fit_flags->cv_start,
                  "Engine file of the engines whose shipped values were fitted to the corpus, at values that never "
                  "saw it: --cross-validate refits these per left-out source from here and scores every other "
                  "engine with the values calc uses")
      ->capture_default_str();
  fit->add_option("--engine-file", flags->engine_files, "JSON file of engine parameters to start from");
  fit->add_option("--gpu-file", flags->gpu_files, "JSON file of extra GPUs");
  fit->add_option("--model-file", flags->model_files, "JSON file of extra model shapes");
  fit->add_option("--quant-file", flags->quant_files, "JSON file of extra quantisations");
  fit->callback([flags, fit_flags, &action]() { action = [flags, fit_flags]() { return run_fit(*flags, *fit_flags); }; });
  cmd->callback([flags, fit, &action]() {
    if (fit->parsed()) return;
    action = [flags]() { return run_calc(*flags); };
  });
}

}  // namespace sm::cli
