#pragma once
// The token counter prompts are built with, calibrated against the server before the first row:
// its tokenize endpoint plus what the request route adds (BOS, chat template), measured with one
// max_tokens=1 request; without a tokenizer, tokens = a + b x words fitted on two requests that
// read usage.prompt_tokens (or an estimate, said as a warning).
#include "bench/phase_context.h"
#include "core/error.h"

namespace sm {

/// Sets ctx.counter (and ctx.endpoint_counter); an error when a calibration request failed.
Result<void> calibrate_counter(PhaseContext& ctx);

}  // namespace sm
