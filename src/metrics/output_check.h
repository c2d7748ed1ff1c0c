#pragma once
// The output checks of one streamed answer (issue 32: fast but broken must not win): the loop
// guard (metrics/loop_detector.h) and the sanity checks — text that is not text (replacement
// characters and control characters throughout) and token counts its text contradicts by far.
// Fed each chunk's text in order, on the output check worker's thread (metrics/output_check_worker.h:
// the measuring thread only copies the text); bounded in memory (the loop detector's tail) and cheap
// (bench/output_check_bench: about a nanosecond a byte of varied text; docs/performance.md, "Output
// checks").
//
// Thresholds (docs/METRICS.md, "Output checks"):
//   not_text        at least kNotTextMinChars characters, and half of them or more U+FFFD
//                   (what servers send for bytes that are no character) or control characters
//                   other than tab, line feed and carriage return.
//   count_mismatch  at least kCountCheckMinTokens tokens, and more than kMaxBytesPerToken bytes of
//                   text per token (the server counted far fewer tokens than it sent text for) or
//                   fewer than kMinBytesPerToken (far more tokens than text: tokens of nothing).
// A cell is flagged when more than kOutputFlawShare of its checked requests have a flaw.
#include <cstdint>
#include <string>
#include <string_view>
#include <span>
#include <vector>

#include "metrics/loop_detector.h"
#include "result/result.h"
#include "result/synthetic_model.h"

namespace sm {

struct RequestRecord;

inline constexpr int64_t kNotTextMinChars = 64;
inline constexpr int64_t kCountCheckMinTokens = 64;
inline constexpr double kMaxBytesPerToken = 32.0;
inline constexpr double kMinBytesPerToken = 0.5;
/// A cell is flagged when flawed requests are more than this share of those checked.
inline constexpr double kOutputFlawShare = 0.10;

/// What is wrong with one request's output, worst first when several hold.
enum class OutputFlaw : uint8_t {
  None,
  Repeat,         ///< loop: a phrase (or one token) repeated back to back
  Empty,          ///< loop: many tokens, no visible text
  NotText,        ///< replacement and control characters throughout
  CountMismatch,  ///< the token count contradicts the text by far
};
/// "none", "repeat", "empty", "not_text", "count_mismatch".
std::string_view to_string(OutputFlaw flaw);
/// Repeat or Empty: the request's speed is a loop's, not the model's.
inline bool is_loop(OutputFlaw flaw) { return flaw == OutputFlaw::Repeat || flaw == OutputFlaw::Empty; }

class OutputCheck {
 public:
  /// One chunk: its text (reasoning first, then content; either may be empty) and the output
  /// tokens it carried.
  void add(std::string_view reasoning, std::string_view text, int64_t tokens);
  /// The request ended having `tokens` output tokens in all (its reconciled count): the last
  /// checks, and the flaw (with an excerpt of the loop or of the text, at most kLoopExcerptBytes).
  void finish(int64_t tokens, OutputFlaw& flaw, std::string& excerpt);

 private:
  void count_characters(std::string_view text);
  void note_text(std::string_view part);

  LoopDetector loop_;
  int64_t text_bytes_ = 0;
  int64_t chars_ = 0;
  int64_t bad_chars_ = 0;  ///< U+FFFD and control characters
  std::string head_;       ///< the text's first bytes (an excerpt when it is not text)
};

/// The cell's speed stands as the model's: its output was not flagged, or the model is synthetic
/// (random weights loop by construction). Rankings (the site's figures) count only such cells.
inline bool output_stands(const RunResult& run, const DecodeCell& cell) {
  return !cell.output_check || cell.output_check->verdict == "ok" || is_synthetic_engine_model(run.engine);
}

/// Adds up the requests of a cell (or of a sweep's rate) one record at a time: each record's
/// output_flaw and output_excerpt; finish() gives the verdict (docs/METRICS.md, "Output checks").
class OutputTally {
 public:
  void add(const RequestRecord& r);
  OutputCheckSummary finish() const;

 private:
  OutputCheckSummary counts_;
  // The excerpt of each verdict: the first request with a flaw of its kind, one with an excerpt
  // (a cycle) before one without (no text).
  OutputFlaw loop_flaw_ = OutputFlaw::None, text_flaw_ = OutputFlaw::None;
  std::string loop_excerpt_, text_excerpt_;
};

/// The summary of a cell's requests (each record's output_flaw and output_excerpt).
OutputCheckSummary summarize_output(std::span<const RequestRecord> records);

}  // namespace sm
