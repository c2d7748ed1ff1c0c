#pragma once
// The raw record of one request: send time, every token-bearing chunk's arrival time and token
// count, and how it ended. Every statistic is derived from these afterwards (never on the fly).
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"
#include "engines/chunk_parser.h"
#include "metrics/output_check.h"

namespace sm {

/// Arrival of one chunk that carried output tokens.
struct ChunkStamp {
  int64_t t_ns = 0;    ///< when its bytes reached the client (monotonic)
  int32_t tokens = 0;  ///< output tokens it carried (>= 1)
};

/// Where a request's per-chunk token counts came from, best first: a cell reports the weakest
/// source among the requests it counted (cell_metrics).
enum class TokenSource : uint8_t {
  UsageContinuous,  ///< cumulative usage.completion_tokens on every chunk (vLLM/SGLang continuous_usage_stats)
  Timings,          ///< cumulative timings.predicted_n on every chunk (llama.cpp timings_per_token)
  TokenIds,         ///< length of each chunk's token_ids (vLLM return_token_ids)
  UsageFinal,       ///< one token per content chunk, reconciled to the final usage.completion_tokens
  FinishLength,     ///< no usage, but finish_reason "length": reconciled to max_tokens
  ChunksScaled,     ///< no count (a stream cut at the window's end): one per chunk, scaled by the
                    ///< tokens per chunk the cell's reconciled requests showed
  Chunks,           ///< one token per content chunk, no count to check against (fallback)
};
std::string_view to_string(TokenSource source);

/// How a request ended.
enum class RequestEnd : uint8_t {
  Running,     ///< still streaming
  Finished,    ///< produced everything it asked for (finish_reason length)
  EndedEarly,  ///< the server ended it before max output (finish_reason stop, or fewer tokens)
  Failed,      ///< transport, HTTP or protocol error
  Cut,         ///< cancelled by us because the measurement window closed
};

struct RequestRecord {
  uint64_t id = 0;             ///< unique within the run
  int32_t slot = 0;            ///< closed-loop stream slot (0..N-1) that issued it
  int64_t max_tokens = 0;      ///< output tokens asked for
  int64_t send_ns = 0;         ///< handed to the HTTP client
  int64_t first_token_ns = -1; ///< first token-bearing chunk; -1 = none yet
  int64_t first_answer_ns = -1; ///< first chunk with answer text (not reasoning); -1 = none yet
  int64_t reasoning_tokens = -1; ///< tokens streamed as reasoning before the answer (the server streams
                                 ///< reasoning apart: delta "reasoning_content"/"reasoning"); -1 = none seen
  int64_t end_ns = -1;         ///< stream ended (any way); -1 = running
  std::vector<ChunkStamp> chunks;  ///< token-bearing chunks in arrival order
  int64_t tokens = 0;          ///< sum of chunks[].tokens
  int64_t usage_prompt_tokens = -1;      ///< server's usage.prompt_tokens; -1 = not reported
  int64_t usage_completion_tokens = -1;  ///< server's final usage.completion_tokens; -1 = not reported
  int64_t cached_prompt_tokens = -1;     ///< prompt tokens the server reused from its cache: llama.cpp
                                         ///< timings.cache_n, else usage.prompt_tokens_details.cached_tokens;
                                         ///< -1 = not reported
  double server_tok_s = -1;    ///< llama.cpp timings.predicted_per_second of the last chunk; -1 = none
  TokenSource source = TokenSource::Chunks;
  FinishReason finish = FinishReason::None;
  RequestEnd end = RequestEnd::Running;
  ErrorCode error_code = ErrorCode::Internal;  ///< when end == Failed
  std::string error;           ///< when end == Failed
  bool saw_done = false;       ///< the stream sent "[DONE]"
  std::string server_id;       ///< the server's id for the request (its first chunk's "id"); empty = none sent
  OutputFlaw output_flaw = OutputFlaw::None;  ///< what the output checks found (metrics/output_check.h)
  std::string output_excerpt;  ///< with a flaw: the loop's cycle or the text's start
};

/// Replaces a request's per-chunk counts by `total` tokens spread evenly over the chunks it
/// counted (the i-th of k chunks gets ⌈(i+1)·total/k⌉ − ⌈i·total/k⌉, so the first chunk keeps at
/// least one and the first-token time stands; later chunks left with none are dropped). Used
/// when a count arrives only at the end, or is estimated.
void spread_tokens(RequestRecord& r, int64_t total);

}  // namespace sm
