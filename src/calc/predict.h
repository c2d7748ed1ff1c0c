#pragma once
// Predicts a whole speed-test matrix from the performance model: the same RunResult a measured
// run produces, with kind "predicted", so `report` and `compare` read it like any run.
//
//   sm::calc::PredictOptions options;
//   options.matrix.contexts = {0, 16384};
//   auto result = sm::calc::predict(setup, options);   // Result<RunResult>
#include <cstdint>
#include <optional>
#include <vector>

#include "result/plan.h"
#include "calc/perf_model.h"
#include "calc/phrase.h"
#include "calc/setup.h"
#include "core/error.h"
#include "result/result.h"

namespace sm::calc {

struct PredictOptions {
  MatrixSettings matrix;                        ///< rows, columns, prefill rows, max output, window length
  std::optional<int64_t> max_model_len;         ///< per-request context limit; default: the model's max position
  std::optional<int64_t> kv_capacity_override;  ///< tokens; replaces the predicted KV capacity
  int64_t max_steps_per_cell = 0;               ///< engine steps a cell may simulate; 0: default_max_steps
};

/// The engine steps a decode cell may simulate by default: 5 million plus 200,000 per second of
/// window (5 µs steps, far below any real engine's), so only a broken model reaches it.
int64_t default_max_steps(double duration_s);

/// One decode cell simulated step by step: N closed-loop streams over a `context`-token prompt.
struct CellPrediction {
  double total_tok_s = 0;        ///< output tokens inside the window / window length
  double per_request_tok_s = 0;  ///< median over streams of (tokens − 1) / (last − first token) in the window
  double ttft_s = 0;             ///< median time to first token of the cell's requests
  double ttft_p90_s = 0;
  double ttft_p99_s = 0;
  double tbt_s = 0;              ///< median gap between consecutive tokens of a stream, in the window
  double tbt_p90_s = 0;
  double tbt_p99_s = 0;
  double avg_active = 0;         ///< time-weighted requests in flight (queued or generating), in the window
  double effective_concurrency = 0;  ///< time-weighted streams generating, in the window
  int64_t output_tokens = 0;     ///< output tokens inside the window
  int64_t completed = 0;         ///< requests that finished inside the window
  int64_t requests_started = 0;  ///< requests sent for the cell (first wave and restarts)
  int64_t steps = 0;             ///< engine steps simulated
  /// The step cap was reached before the window ended: the figures cover `window_s` seconds of
  /// the `duration_s` asked for (0 when the window never opened).
  bool truncated = false;
  double window_s = 0;           ///< simulated window length the figures are over
};

/// Simulates one decode cell the way the benchmark drives it (design.md "Sustained decode
/// cell"): all N requests arrive at once with the same `context`-token prompt, already in the
/// prefix cache (warm-up). The API server processes arrivals one after another
/// (request_cpu_time_s each), each then joins the batch with a one-token prefill chunk (the
/// prompt's last token is recomputed) and decodes one token per step, its context growing;
/// after `max_output` tokens it ends and a new request takes its place at once. The window
/// opens when every stream has produced a first token and lasts `duration_s`.
/// At most `max_steps` steps (0: default_max_steps); reaching it sets `truncated`.
CellPrediction predict_decode_cell(const PerfModel& model, int64_t context, int64_t concurrency,
                                   int64_t max_output_tokens, double duration_s, int64_t max_steps = 0);

/// Why `setup` cannot be predicted, with what to use instead, as sentences a page can translate
/// (calc/phrase.h): the engine, weight format and GPU rules of check_compatibility (the built-in
/// catalog's engines and quantisations supply the alternatives), else the model not fitting in the
/// engine's share of memory (with the GPU counts and quantisations that would hold it). Empty when
/// it can be predicted; predict() fails with these sentences' English.
std::vector<Phrase> setup_refusal(const Setup& setup);

/// What predict() writes into a result for people, as sentences a page can translate:
/// english(notes) is RunResult::notes and english(warnings[i]) is RunResult::warnings[i] (the
/// expected error, the compatibility warnings, an uncalibrated engine). Values from the catalogs'
/// data (an engine's notes, why a format is experimental) are fields, in the data's words.
struct PredictionWording {
  std::vector<Phrase> notes;
  std::vector<std::vector<Phrase>> warnings;
};

/// The full prediction: prefill rows (cold prompt TTFT and prompt tok/s), decode cells, the KV
/// capacity and therefore which cells are over capacity or too long. Fails when the weights do
/// not fit in the engine's share of memory or the options are invalid.
/// `wording`, when given, receives the sentences of the result's notes and warnings.
Result<RunResult> predict(const Setup& setup, const PredictOptions& options, PredictionWording* wording = nullptr);

}  // namespace sm::calc
