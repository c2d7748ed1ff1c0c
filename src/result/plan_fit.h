#pragma once
// Fitting the matrix to the server in front of it (docs/METRICS.md, "Defaults that fit the
// server"): what the user asked for, before the server was probed, and what the run measures
// once its limits are known, with every choice said in words.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "result/plan.h"

namespace sm {

/// The matrix as asked: the values (defaults where a flag was not given) and which were given.
struct MatrixRequest {
  MatrixSettings matrix;
  bool contexts_given = false;     ///< --contexts: the rows are the user's (not fitted to the model)
  bool concurrency_given = false;  ///< --concurrency
  bool max_output_given = false;   ///< --max-output
  std::string profile;             ///< a fixed profile ("standard/1"): its cells are kept as they are,
                                   ///< those beyond the model marked beyond_model
};

/// What the server allows, as probed (or overridden).
struct ServerLimits {
  CapacityLimits capacity;
  std::optional<int64_t> slots;  ///< requests it runs at once (llama.cpp slots, SGLang max running, TGI)
};

struct FittedMatrix {
  MatrixSettings matrix;            ///< what the plan is made of
  std::vector<std::string> notes;   ///< each choice and drop, in words (settings.plan_notes)
};

/// Longest default max output: the seed page's.
constexpr int64_t kDefaultMaxOutputTokens = 8192;
/// The fitted max output never goes below this: shorter, a stream restarts too often to measure decode.
constexpr int64_t kMinFittedMaxOutputTokens = 256;

/// The default max output for a model of `max_model_len` tokens: 8,192, halved until it is at
/// most a quarter of the model's length (4K model: 1,024), and, when the user gave contexts, until
/// the longest of them that can fit still does; never below kMinFittedMaxOutputTokens.
int64_t fitted_max_output(std::optional<int64_t> max_model_len, const std::vector<int64_t>& given_contexts);

/// Without a profile: max output fitted (when not given), default contexts up to the model's
/// length, contexts and prefill rows beyond it dropped, default concurrency stopped at the
/// server's slots. With a profile: nothing changes (make_plan marks what does not fit). Either
/// way, concurrency above the slots is said up front.
FittedMatrix fit_matrix(const MatrixRequest& request, const ServerLimits& limits);

}  // namespace sm
