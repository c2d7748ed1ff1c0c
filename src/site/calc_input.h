#pragma once
// What the site's decode calculator asks for (the form on /calc and POST /api/v1/calc), checked
// and bounded so one request cannot ask the server for minutes of simulation.
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "calc/catalog.h"
#include "calc/predict.h"
#include "core/error.h"
#include "result/result.h"
#include "site/query_string.h"
#include "site/ui_error.h"

namespace sm::site {

/// The calculator's inputs as text, the way the form and the API give them.
struct CalcInput {
  std::string gpu = "RTX 3090";       ///< catalog GPU name, id or alias
  std::string model = "Qwen3.5-4B";   ///< catalog model
  std::string quant = "AWQ";          ///< catalog quantisation
  std::string engine = "vllm";        ///< catalog engine
  int64_t gpus = 1;                   ///< tensor-parallel GPUs
  std::string contexts;               ///< decode rows, "0,16K,32K"; empty: the defaults for the model
  std::string concurrency;            ///< decode columns, "1,2,4"; empty: 1..128
  std::string prefill_contexts;       ///< prefill rows, "8K,32K" or "none"; empty: 8K..128K
  std::string max_output = "8192";    ///< tokens per decode request
};

/// Limits of one calculation.
constexpr int64_t kCalcMaxRows = 12;          ///< contexts and prefill rows, each
constexpr int64_t kCalcMaxColumns = 12;       ///< concurrency levels
constexpr int64_t kCalcMaxConcurrency = 1024; ///< largest concurrency level
constexpr int64_t kCalcMaxGpus = 16;

/// Reads the form's query parameters (gpu, model, quant, engine, gpus, contexts, concurrency,
/// prefill, max_output); absent ones keep their defaults.
UiResult<CalcInput> calc_input_from_query(const QueryParams& query);

/// Reads POST /api/v1/calc's body: the same fields as JSON; list fields may be arrays of numbers
/// or strings like "0,16K". Errors name the field.
Result<CalcInput> calc_input_from_json(const nlohmann::json& body);

/// Runs the calculator; errors (unknown names with suggestions, bad lists, limits) name the field,
/// and a refused setup says why and what to use instead (calc::setup_refusal). The errors' message
/// is the English the API shows (and the command line's words for the same mistake); their
/// sentences (`calc_input.*` and the calculator's `calc.refusal.*` catalog keys) are what the
/// /calc page shows in its language.
/// `wording`, when given, receives the sentences of the prediction's notes and warnings
/// (calc::predict), for a page that shows them in its language.
UiResult<RunResult> run_calc(const calc::Catalog& catalog, const CalcInput& input,
                             calc::PredictionWording* wording = nullptr);

}  // namespace sm::site
