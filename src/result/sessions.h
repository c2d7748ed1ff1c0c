#pragma once
// The sessions workload's part of a result (`run --sessions` / `--trace`; docs/METRICS.md,
// "Sessions"): what was asked for (SessionsSettings) and what was measured (SessionsResult), a row
// per turn number across the sessions.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "result/cell_status.h"

namespace sm {

/// `run --sessions SxT [--session-lengths ...]` or `run --trace FILE [--trace-speed X]`.
struct SessionsSettings {
  std::string source = "generated";  ///< "generated" (--sessions) or "trace" (--trace)
  int64_t sessions = 0;              ///< sessions (the trace's distinct sessions)
  int64_t turns = 0;                 ///< turns per session (the trace's longest session)
  /// --session-lengths, tokens as given ("1K", "128-512": uniform, seeded); generated only.
  std::string first_tokens;   ///< the text a session opens with (a document, a system prompt)
  std::string user_tokens;    ///< what each turn adds
  std::string answer_tokens;  ///< each answer's output tokens
  uint64_t seed = 0;          ///< draws the lengths (the run's prompt seed)
  std::string trace_file;     ///< --trace: its file name (no folder)
  std::string trace_sha256;   ///< of its bytes: --resume refuses another file
  int64_t trace_requests = 0; ///< its turns
  double trace_speed = 1;     ///< --trace-speed: 2 = replayed twice as fast as recorded
};

/// One turn number across every session that reached it.
struct SessionTurnRow {
  int64_t turn = 0;  ///< 1-based
  int64_t requests = 0;
  int64_t failed = 0;
  std::optional<double> prompt_tokens_mean;  ///< the context at that turn, by the server's count
  std::optional<double> cached_share;        ///< its prompt tokens the server took from its cache
  std::optional<double> ttft_p50_ms;
  std::optional<double> ttft_p90_ms;
  std::optional<double> decode_tok_s_p50;    ///< each request's output after its first token
};

struct SessionsResult {
  CellStatus status = CellStatus::Valid;
  std::string error;                  ///< status Error: why
  std::vector<std::string> warnings;
  int64_t requests = 0;               ///< turns sent
  int64_t failed = 0;
  double elapsed_s = 0;               ///< first send to last end
  std::optional<double> output_tok_s;      ///< every answer's tokens over elapsed_s
  /// Prompt tokens the server took from its prefix cache, over every prompt token of the requests
  /// that said (usage.prompt_tokens_details.cached_tokens, llama.cpp timings.cache_n); nullopt: none said.
  std::optional<double> cache_hit_rate;
  int64_t cached_requests = 0;        ///< requests with at least half their prompt cached
  int64_t cold_requests = 0;          ///< the others that said
  std::optional<double> ttft_cached_p50_ms;
  std::optional<double> ttft_cold_p50_ms;
  /// Trace replay: how late turns were sent after their time (the previous turn's answer came
  /// after it); p90, ms. nullopt for generated sessions (each turn follows the answer at once).
  std::optional<double> send_late_p90_ms;
  std::vector<SessionTurnRow> by_turn;  ///< ascending turn
};

}  // namespace sm
