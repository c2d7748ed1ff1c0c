#pragma once
// The calibration corpus (data/measurements/measurements.csv, issue 13 part 1) read and mapped to
// calculator setups: which rows the model can predict, and why the others cannot.
//
//   auto rows = sm::calc::parse_corpus_csv(text);          // Result<std::vector<CorpusRow>>
//   auto cases = sm::calc::map_corpus(*rows, catalog);     // one CorpusCase per row
//   for (const auto& c : cases) if (c.usable) predict_corpus_value(c, c.setup.engine);
//
// A usable row has a catalog GPU, model (or a model the corpus notes call the same shape as a
// catalog one), quantisation and engine, a fixed concurrency, and a metric the closed-form
// predictions below cover. predict_corpus_value() works in the row's own unit.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "calc/catalog.h"
#include "calc/setup.h"
#include "core/error.h"
#include "result/result.h"

namespace sm::calc {

/// One row of measurements.csv, columns as data/measurements/README.md describes them.
struct CorpusRow {
  std::string id, source_id, gpu, gpu_class, interconnect, model, quant, engine, engine_version, metric, unit, notes;
  std::optional<int64_t> gpu_count, context_tokens, concurrency, prompt_tokens, output_tokens, batch, ubatch, tp;
  std::optional<bool> flash_attention;  ///< "on" / "off"; unset: not stated (the engine's default)
  double value = 0;
};

enum class CorpusMetric { DecodePerStream, DecodeTotal, Tpot, Prefill, Ttft };

/// "decode" for the decode metrics (per-stream, total, TPOT), "prefill" for prefill tok/s and TTFT.
std::string_view metric_family(CorpusMetric m);

/// A row mapped to the calculator.
struct CorpusCase {
  CorpusRow row;
  bool usable = false;
  std::string why_not;   ///< the reason a row is not usable (short, groupable: "gpu not in catalog: B200")
  CorpusMetric metric = CorpusMetric::DecodePerStream;
  Setup setup;           ///< GPU × count × model × quant × engine (the catalog's engine parameters)
  bool layer_split = false;  ///< llama.cpp multi-GPU: layers split over GPUs, run one after another
  int64_t concurrency = 1;
  int64_t context = 0;   ///< tokens in the KV cache when the measured phase starts
  int64_t prompt = 0;    ///< prompt tokens per request (prefill rows: the prompt measured)
  int64_t output = 0;    ///< output tokens per request (0: not stated)
  bool shared_prefix = false;  ///< every stream shares its context (a speedmatrix decode cell: one cached prompt)
};

/// Parses measurements.csv (RFC 4180 quoting). Fails on a missing column or a non-numeric number.
Result<std::vector<CorpusRow>> parse_corpus_csv(std::string_view text);
/// Reads and parses a file.
Result<std::vector<CorpusRow>> load_corpus_file(const std::string& path);

/// Maps every row to a setup from `catalog`; rows it cannot describe get usable = false and why.
std::vector<CorpusCase> map_corpus(const std::vector<CorpusRow>& rows, const Catalog& catalog);

/// A measured speedmatrix run as cases for `setup` (the run's GPU, model, quantisation, engine):
/// every valid decode cell (total tok/s of N streams sharing a C-token cached prompt, max output
/// O) and every valid prefill row (TTFT of a cold P-token prompt). `calc --calibrate-from`.
std::vector<CorpusCase> cases_from_run(const RunResult& run, const Setup& setup);

/// The model's prediction of `c`'s figure in the row's unit (tok/s or ms) with engine parameters
/// `engine` (instead of c.setup.engine). Closed forms, no simulation:
///  - decode at N streams: a request cycle is O decode steps at context C + O/2 plus the N
///    prompts' prefill chunks the engine interleaves (none when the row's context is 0, as in
///    llama-bench tg); total tok/s = N × O / cycle, per-stream = O / cycle, TPOT = cycle / O;
///  - prefill tok/s = P / (prefill compute of P tokens); TTFT (one request) = request CPU time +
///    prefill compute.
double predict_corpus_value(const CorpusCase& c, const EngineParams& engine);

}  // namespace sm::calc
