#include "site/calc_input.h"

#include <fmt/format.h>

#include <charconv>

#include "result/plan.h"
#include "calc/predict.h"
#include "core/clock.h"
#include "core/text.h"
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

UiResult<void> check_count(std::string_view field, size_t n, int64_t limit) {
  if (static_cast<int64_t>(n) > limit)
    return ui_fail("calc_input.too_many_values", {{"field", std::string(field)}, {"max", std::to_string(limit)}});
  return {};
}

using Fields = std::vector<std::pair<std::string, std::string>>;

// A token count core's parse_token_count refused: why, as a sentence for pages. Its checks, in
// its order: empty; not a whole number of 0 or more with an optional K or M; above 2^40 tokens.
UiMessage token_count_fault(std::string_view field, std::string_view text) {
  Fields f = {{"field", std::string(field)}, {"value", std::string(text)}};
  std::string_view digits = trim_blanks(text);
  if (digits.empty()) return {"calc_input.empty_token_count", f};
  if (std::string_view("kKmM").find(digits.back()) != std::string_view::npos) digits.remove_suffix(1);
  int64_t v = 0;
  auto r = std::from_chars(digits.data(), digits.data() + digits.size(), v);
  if (r.ec == std::errc{} && r.ptr == digits.data() + digits.size() && v >= 0) return {"calc_input.token_count_too_large", f};
  return {"calc_input.not_token_count", f};
}

// A list (core's parse_token_list or parse_int_list) refused: the parser's English after the
// field's name, as the API has always said it, and the item at fault as a sentence for pages.
std::unexpected<UiError> list_error(std::string_view field, std::string_view text, const Error& e, bool token_counts) {
  std::string english = fmt::format("{}: {}", field, e.message);
  if (trim_blanks(text).empty()) return ui_fail_as(std::move(english), {{"calc_input.empty_list", {{"field", std::string(field)}}}});
  for (size_t start = 0; start <= text.size();) {
    const size_t comma = text.find(',', start);
    const std::string_view item = trim_blanks(text.substr(start, comma == std::string_view::npos ? text.npos : comma - start));
    if (token_counts) {
      if (!parse_token_count(item)) return ui_fail_as(std::move(english), {token_count_fault(field, item)});
    } else {
      int64_t v = 0;
      auto r = std::from_chars(item.data(), item.data() + item.size(), v);
      if (r.ec != std::errc{} || r.ptr != item.data() + item.size() || v <= 0)
        return ui_fail_as(std::move(english), {{"calc_input.not_positive_integer", {{"field", std::string(field)}, {"value", std::string(item)}}}});
    }
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return std::unexpected(untranslated(Error{e.code, std::move(english)}));
}

// validate()'s refusal of the calculator's matrix, with its sentence for pages: the checks a
// form can fail (its lists are parsed, so counts are positive and contexts not negative), in
// validate's order.
std::unexpected<UiError> matrix_error(const MatrixSettings& m, const Error& e) {
  auto as = [&](const char* key, Fields fields) { return ui_fail_as(e.message, {{key, std::move(fields)}}); };
  const std::string limit = std::to_string(kMaxContextTokens);
  for (int64_t c : m.contexts)
    if (c > kMaxContextTokens) return as("calc_input.context_too_large", {{"tokens", std::to_string(c)}, {"limit", limit}});
  for (int64_t p : m.prefill_contexts) {
    if (p < 1) return as("calc_input.prefill_too_small", {});
    if (p > kMaxContextTokens) return as("calc_input.prefill_too_large", {{"tokens", std::to_string(p)}, {"limit", limit}});
  }
  if (!m.contexts.empty() && m.max_output_tokens < 2)
    return as("calc_input.max_output_decode", {{"tokens", std::to_string(m.max_output_tokens)}});
  return std::unexpected(untranslated(e));
}

// A name the catalog does not know: the catalog's English after the field's name (the API's
// words), and for pages the same sentence from the catalog's key, with the closest ids the
// catalog names (calc::Catalog's find_* pick them the same way).
template <class Entry>
std::unexpected<UiError> unknown_name(const std::vector<Entry>& entries, std::string_view field, std::string_view name,
                                      const Error& e, const char* key, const char* key_none) {
  std::vector<std::string> ids;
  for (const Entry& entry : entries) ids.push_back(entry.id);
  const size_t slash = name.rfind('/');
  std::string closest;
  for (const auto& c : calc::closest_names(slash == std::string_view::npos ? name : name.substr(slash + 1), ids))
    closest += (closest.empty() ? "" : ", ") + c;
  return ui_fail_as(fmt::format("{}: {}", field, e.message),
                    {{closest.empty() ? key_none : key, {{"name", std::string(name)}, {"closest", closest}}}});
}

}  // namespace

UiResult<CalcInput> calc_input_from_query(const QueryParams& q) {
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
    if (!n) return ui_fail("calc_input.not_whole_number", {{"field", "gpus"}, {"value", q.get("gpus")}});
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

UiResult<RunResult> run_calc(const calc::Catalog& catalog, const CalcInput& in, calc::PredictionWording* wording) {
  calc::Setup s;
  auto gpu = catalog.find_gpu(in.gpu);
  if (!gpu)
    return unknown_name(catalog.gpus(), "gpu", in.gpu, gpu.error(), "calc_input.unknown_gpu", "calc_input.unknown_gpu.none");
  auto model = catalog.find_model(in.model);
  if (!model)
    return unknown_name(catalog.models(), "model", in.model, model.error(), "calc_input.unknown_model",
                        "calc_input.unknown_model.none");
  auto quant = catalog.find_quant(in.quant);
  if (!quant)
    return unknown_name(catalog.quants(), "quant", in.quant, quant.error(), "calc_input.unknown_quant",
                        "calc_input.unknown_quant.none");
  auto engine = catalog.find_engine(in.engine);
  if (!engine)
    return unknown_name(catalog.engines(), "engine", in.engine, engine.error(), "calc_input.unknown_engine",
                        "calc_input.unknown_engine.none");
  if (in.gpus < 1 || in.gpus > kCalcMaxGpus) return ui_fail("calc_input.gpus_range", {{"max", std::to_string(kCalcMaxGpus)}});
  s.gpu = *gpu;
  s.model = *model;
  s.quant = *quant;
  s.engine = *engine;
  s.gpus = static_cast<int>(in.gpus);

  calc::PredictOptions o;
  const std::string max_output = in.max_output.empty() ? "8192" : in.max_output;
  auto max_out = parse_token_count(max_output);
  if (!max_out)
    return ui_fail_as(fmt::format("max_output: {}", max_out.error().message),
                      {token_count_fault("max_output", max_output)});
  o.matrix.max_output_tokens = *max_out;
  o.matrix.contexts = default_contexts(s.model.max_position, o.matrix.max_output_tokens);
  if (!in.contexts.empty()) {
    auto v = parse_token_list(in.contexts);
    if (!v) return list_error("contexts", in.contexts, v.error(), true);
    o.matrix.contexts = *v;
  }
  o.matrix.concurrency = default_concurrency();
  if (!in.concurrency.empty()) {
    auto v = parse_int_list(in.concurrency);
    if (!v) return list_error("concurrency", in.concurrency, v.error(), false);
    o.matrix.concurrency = *v;
  }
  o.matrix.prefill_contexts = default_prefill_contexts();
  if (in.prefill_contexts == "none") {
    o.matrix.prefill_contexts.clear();
  } else if (!in.prefill_contexts.empty()) {
    auto v = parse_token_list(in.prefill_contexts);
    if (!v) return list_error("prefill", in.prefill_contexts, v.error(), true);
    o.matrix.prefill_contexts = *v;
  }
  if (auto ok = check_count("contexts", o.matrix.contexts.size(), kCalcMaxRows); !ok) return std::unexpected(ok.error());
  if (auto ok = check_count("concurrency", o.matrix.concurrency.size(), kCalcMaxColumns); !ok)
    return std::unexpected(ok.error());
  if (auto ok = check_count("prefill", o.matrix.prefill_contexts.size(), kCalcMaxRows); !ok)
    return std::unexpected(ok.error());
  for (int64_t n : o.matrix.concurrency)
    if (n > kCalcMaxConcurrency) return ui_fail("calc_input.concurrency_max", {{"max", std::to_string(kCalcMaxConcurrency)}});
  if (o.matrix.max_output_tokens > 1 << 20) return ui_fail("calc_input.max_output_max", {});
  if (auto ok = validate(o.matrix); !ok) return matrix_error(o.matrix, ok.error());
  // What predict() would refuse (engine, format, memory), as sentences the page translates.
  if (auto why = calc::setup_refusal(s); !why.empty()) return ui_fail_phrases(why);
  auto result = calc::predict(s, o, wording);
  if (!result) return std::unexpected(untranslated(result.error()));
  char when[32];
  result->started_at = std::string(format_iso8601_utc(wall_clock_unix_ms(), when));
  result->finished_at = result->started_at;
  return std::move(*result);
}

}  // namespace sm::site
