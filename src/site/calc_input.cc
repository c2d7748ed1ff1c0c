#include "site/calc_input.h"

#include <fmt/format.h>

#include <charconv>

#include "result/plan.h"
#include "calc/predict.h"
#include "core/clock.h"
#include "core/units.h"

namespace sm::site {

namespace {

Result<int64_t> parse_int(std::string_view field, std::string_view text) {
  int64_t v = 0;
  auto r = std::from_chars(text.data(), text.data() + text.size(), v);
  if (r.ec != std::errc{} || r.ptr != text.data() + text.size())
    return fail(ErrorCode::InvalidArgument, fmt::format("{}: '{}' is not a whole number", field, text));
  return v;
}

// A list field of the JSON body: an array of numbers/strings, or one string "0,16K".
Result<std::string> list_text(const nlohmann::json& v, std::string_view field) {
  if (v.is_string()) return v.get<std::string>();
  if (!v.is_array()) return fail(ErrorCode::InvalidArgument, fmt::format("{}: expected an array or a string", field));
  std::string out;
  for (const auto& item : v) {
    if (!out.empty()) out += ',';
    if (item.is_number_integer()) out += std::to_string(item.get<int64_t>());
    else if (item.is_string()) out += item.get<std::string>();
    else return fail(ErrorCode::InvalidArgument, fmt::format("{}: items must be whole numbers or strings like \"16K\"", field));
  }
  if (out.empty()) return std::string("none");
  return out;
}

Result<void> check_count(std::string_view field, size_t n, int64_t limit) {
  if (static_cast<int64_t>(n) > limit)
    return fail(ErrorCode::InvalidArgument, fmt::format("{}: at most {} values", field, limit));
  return {};
}

}  // namespace

Result<CalcInput> calc_input_from_query(const QueryParams& q) {
  CalcInput in;
  auto take = [&](const char* name, std::string& out) {
    if (q.has(name)) out = q.get(name);
  };
  take("gpu", in.gpu);
  take("model", in.model);
  take("quant", in.quant);
  take("engine", in.engine);
  take("contexts", in.contexts);
  take("concurrency", in.concurrency);
  take("prefill", in.prefill_contexts);
  take("max_output", in.max_output);
  if (q.has("gpus") && !q.get("gpus").empty()) {
    auto n = parse_int("gpus", q.get("gpus"));
    if (!n) return std::unexpected(n.error());
    in.gpus = *n;
  }
  return in;
}

Result<CalcInput> calc_input_from_json(const nlohmann::json& body) {
  if (!body.is_object()) return fail(ErrorCode::InvalidArgument, "the body must be a JSON object");
  CalcInput in;
  for (const auto& [key, value] : body.items()) {
    auto text_field = [&](std::string& out) -> Result<void> {
      if (!value.is_string()) return fail(ErrorCode::InvalidArgument, fmt::format("{}: expected a string", key));
      out = value.get<std::string>();
      return {};
    };
    auto list_field = [&](std::string& out) -> Result<void> {
      auto t = list_text(value, key);
      if (!t) return std::unexpected(t.error());
      out = *t;
      return {};
    };
    Result<void> ok;
    if (key == "gpu") ok = text_field(in.gpu);
    else if (key == "model") ok = text_field(in.model);
    else if (key == "quant" || key == "quantization") ok = text_field(in.quant);
    else if (key == "engine") ok = text_field(in.engine);
    else if (key == "contexts") ok = list_field(in.contexts);
    else if (key == "concurrency") ok = list_field(in.concurrency);
    else if (key == "prefill_contexts") ok = list_field(in.prefill_contexts);
    else if (key == "gpus") {
      if (!value.is_number_integer()) ok = fail(ErrorCode::InvalidArgument, "gpus: expected a whole number");
      else in.gpus = value.get<int64_t>();
    } else if (key == "max_output_tokens") {
      if (value.is_number_integer()) in.max_output = std::to_string(value.get<int64_t>());
      else if (value.is_string()) in.max_output = value.get<std::string>();
      else ok = fail(ErrorCode::InvalidArgument, "max_output_tokens: expected a whole number");
    } else {
      ok = fail(ErrorCode::InvalidArgument,
                fmt::format("unknown field \"{}\" (expected gpu, model, quant, engine, gpus, contexts, concurrency, "
                            "prefill_contexts, max_output_tokens)",
                            key));
    }
    if (!ok) return std::unexpected(ok.error());
  }
  return in;
}

Result<RunResult> run_calc(const calc::Catalog& catalog, const CalcInput& in) {
  auto named = [](const char* field, const Error& e) { return fail(ErrorCode::InvalidArgument, fmt::format("{}: {}", field, e.message)); };
  calc::Setup s;
  auto gpu = catalog.find_gpu(in.gpu);
  if (!gpu) return named("gpu", gpu.error());
  auto model = catalog.find_model(in.model);
  if (!model) return named("model", model.error());
  auto quant = catalog.find_quant(in.quant);
  if (!quant) return named("quant", quant.error());
  auto engine = catalog.find_engine(in.engine);
  if (!engine) return named("engine", engine.error());
  if (in.gpus < 1 || in.gpus > kCalcMaxGpus)
    return fail(ErrorCode::InvalidArgument, fmt::format("gpus: must be between 1 and {}", kCalcMaxGpus));
  s.gpu = *gpu;
  s.model = *model;
  s.quant = *quant;
  s.engine = *engine;
  s.gpus = static_cast<int>(in.gpus);

  calc::PredictOptions o;
  auto max_out = parse_token_count(in.max_output.empty() ? "8192" : in.max_output);
  if (!max_out) return named("max_output", max_out.error());
  o.matrix.max_output_tokens = *max_out;
  o.matrix.contexts = default_contexts(s.model.max_position, o.matrix.max_output_tokens);
  if (!in.contexts.empty()) {
    auto v = parse_token_list(in.contexts);
    if (!v) return named("contexts", v.error());
    o.matrix.contexts = *v;
  }
  o.matrix.concurrency = default_concurrency();
  if (!in.concurrency.empty()) {
    auto v = parse_int_list(in.concurrency);
    if (!v) return named("concurrency", v.error());
    o.matrix.concurrency = *v;
  }
  o.matrix.prefill_contexts = default_prefill_contexts();
  if (in.prefill_contexts == "none") {
    o.matrix.prefill_contexts.clear();
  } else if (!in.prefill_contexts.empty()) {
    auto v = parse_token_list(in.prefill_contexts);
    if (!v) return named("prefill", v.error());
    o.matrix.prefill_contexts = *v;
  }
  if (auto ok = check_count("contexts", o.matrix.contexts.size(), kCalcMaxRows); !ok) return std::unexpected(ok.error());
  if (auto ok = check_count("concurrency", o.matrix.concurrency.size(), kCalcMaxColumns); !ok)
    return std::unexpected(ok.error());
  if (auto ok = check_count("prefill", o.matrix.prefill_contexts.size(), kCalcMaxRows); !ok)
    return std::unexpected(ok.error());
  for (int64_t n : o.matrix.concurrency)
    if (n > kCalcMaxConcurrency)
      return fail(ErrorCode::InvalidArgument, fmt::format("concurrency: at most {}", kCalcMaxConcurrency));
  if (o.matrix.max_output_tokens > 1 << 20)
    return fail(ErrorCode::InvalidArgument, "max_output: at most 1M tokens");
  if (auto ok = validate(o.matrix); !ok) return std::unexpected(ok.error());
  auto result = calc::predict(s, o);
  if (!result) return result;
  char when[32];
  result->started_at = std::string(format_iso8601_utc(wall_clock_unix_ms(), when));
  result->finished_at = result->started_at;
  return result;
}

}  // namespace sm::site
