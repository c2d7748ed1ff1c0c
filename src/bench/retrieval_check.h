#pragma once
// The long-context retrieval check, a stage of a run (docs/METRICS.md, "Long-context retrieval
// check"): after the matrix's passes, one unmeasured request per context the matrix measured — a
// prompt of that context's length hiding a passkey at kNeedleDepth, asked back at temperature 0
// with kRetrievalMaxTokens — scored exact, near_miss, wrong or truncated. A context whose check
// fails puts kRetrievalFailedWarning on each of its decode cells. It runs after every measured
// window, so it cannot disturb one, nor the prefix-cache warmth a cell relies on.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "bench/run_config.h"
#include "core/error.h"
#include "engines/completion_response.h"
#include "result/result.h"
#include "workload/prompt_builder.h"

namespace sm {

/// What the stage needs from the run.
struct RetrievalCheckHooks {
  /// A unique head for a context's check prompt (no prefix cache can hold it before it is sent).
  std::function<std::string(int64_t context)> head;
  /// Sends `prompt` (of `prompt_tokens` tokens) once, unstreamed, temperature 0, asking for at
  /// most `max_tokens`, and returns the answer; an error when the request failed.
  std::function<Result<CompletionResponse>(const std::string& prompt, int64_t prompt_tokens, int64_t max_tokens)> ask;
  /// Called after each check is recorded (save the result, print a line). May be empty.
  std::function<void(const RetrievalCheck&)> on_checked;
  /// True when the run was interrupted: no further check starts. May be empty.
  std::function<bool()> interrupted;
};

/// Whether `config` asks for the check: --retrieval-check / --no-retrieval-check when given,
/// else on for the standard profile and off otherwise.
bool retrieval_check_wanted(const RunConfig& config);

/// The contexts that still owe a check, ascending: every context of at least
/// kMinRetrievalContext with a valid prefill row or decode cell and no entry in result.retrieval.
std::vector<int64_t> retrieval_contexts_owed(const RunResult& result);

/// Runs every owed check in ascending context (a synthetic model's are recorded not_applicable
/// without a request), keeps result.retrieval in ascending context and marks failed contexts'
/// cells. Returns false when interrupted before the last.
bool run_retrieval_checks(RunResult& result, PromptBuilder& builder, const RetrievalCheckHooks& hooks);

/// Adds kRetrievalFailedWarning to every decode cell at a context whose check failed (once per
/// cell; idempotent, so cells measured again after a resume get it back).
void mark_retrieval_failures(RunResult& result);

/// One line for the progress output: "retrieval 64K: exact".
std::string retrieval_summary(const RetrievalCheck& check);

}  // namespace sm
