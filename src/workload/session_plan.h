#pragma once
// The sessions workload's plan (`run --sessions SxT` or `run --trace FILE`; docs/METRICS.md,
// "Sessions"): every turn of every session, in the order it may be sent — what text it adds, how
// many tokens its answer asks for, the shared prefix its session opens with, and, for a trace, when
// it was sent. Each turn's prompt is its session's whole conversation so far (the shared prefix,
// then each turn's text and the model's answer), so a server's prefix cache decides its TTFT.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"

namespace sm {

/// A token length: one value, or a uniform range drawn per turn (seeded).
struct TokenRange {
  int64_t lo = 0;
  int64_t hi = 0;
};

/// "1K" or "128-512" (token counts as the matrix's lists take them: 512, 2K, 1M).
Result<TokenRange> parse_token_range(std::string_view text);
/// As given back: "1K", "128-512".
std::string format_token_range(const TokenRange& r);

/// --sessions SxT and --session-lengths first=...,user=...,answer=...
struct SessionShape {
  int64_t sessions = 4;
  int64_t turns = 6;
  TokenRange first{1024, 1024};  ///< the text a session opens with (its own: sessions share none)
  TokenRange user{256, 256};     ///< what each turn adds
  TokenRange answer{128, 128};   ///< each answer's output tokens
};

/// "4x6": 4 sessions of 6 turns each (1 to 4096 sessions, 1 to 1000 turns).
Result<void> parse_sessions_flag(std::string_view text, SessionShape& shape);
/// "first=2K,user=128-512,answer=64-256"; keys not given keep their value.
Result<void> parse_session_lengths(std::string_view text, SessionShape& shape);

/// One turn of one session.
struct SessionTurn {
  int64_t session = 0;       ///< 0-based, in order of first appearance
  int64_t turn = 0;          ///< 1-based within its session
  int64_t at_ns = 0;         ///< trace: when it was sent, from the trace's start (already scaled);
                             ///< generated: 0 (each turn follows its session's previous answer)
  int64_t prefix = -1;       ///< index into SessionPlan::prefixes of the text its session opens with
                             ///< (turn 1 only: later turns carry the conversation); -1 = none
  int64_t input_tokens = 0;  ///< the text this turn adds
  int64_t output_tokens = 0; ///< its answer's tokens (max_tokens)
  int64_t after = -1;        ///< index in SessionPlan::turns of its session's previous turn; -1 = first
};

/// Text that opens sessions: one per session when generated; shared by every session of a trace
/// naming the same prefix id.
struct SessionPrefix {
  std::string id;
  int64_t tokens = 0;
};

struct SessionPlan {
  std::vector<SessionPrefix> prefixes;
  std::vector<SessionTurn> turns;  ///< a session's turns in order; sessions interleaved by at_ns
  int64_t sessions = 0;
  int64_t max_turns = 0;           ///< the longest session's turns
};

/// S sessions of T turns, lengths drawn from the shape's ranges with `seed`; every session opens
/// with its own text of `first` tokens.
SessionPlan generate_sessions(const SessionShape& shape, uint64_t seed);

/// A trace (JSON Lines, docs/sessions.md): each line a turn,
///   {"session": "a", "timestamp_s": 0.0, "input_tokens": 300, "output_tokens": 120,
///    "prefix": "system-1", "prefix_tokens": 2000}
/// "session" (string or number) is required, "turn" optional (else file order within the
/// session), "timestamp_s" optional (absent: as soon as the session's previous answer ends),
/// "input_tokens" the tokens the turn adds, "output_tokens" its answer's; "prefix"/"prefix_tokens"
/// (on the session's first turn) a shared opening text. Times are divided by `speed`.
/// Errors name the line.
Result<SessionPlan> parse_session_trace(std::string_view content, double speed);

}  // namespace sm
