#pragma once
// Degenerate output in one stream (issue 32, the loop guard): a phrase repeated back to back, one
// token over and over, or tokens that carry no visible text. A fast server can be fast because
// its model loops (a broken quantisation, a context it cannot read): such a stream's speed is not
// the model's speed. Fed a request's text as it arrives; memory is bounded (the last
// kLoopTailBytes of text), and a check costs about one byte comparison per candidate period for
// varied text, so it runs beside the stream, off the measuring thread.
//
// Thresholds (docs/METRICS.md, "Degenerate output"):
//   repeat  the text ends in a cycle of 1 to kLoopMaxPeriodBytes bytes repeated back to back at
//           least kLoopMinCycles times over at least kLoopMinSpanBytes bytes (the seed's tool asks
//           four cycles over 4,096 characters; 1,024 here, so a 4K-token answer of one-character
//           tokens, "]]]]…", is caught too); a cycle of one byte repeated needs kLoopMinRunBytes.
//           No project document or source file, and no real model answer of the fixtures
//           (tests/fixtures/real_output), trips it (tests).
//           At the end, an answer held whole (up to twice kLoopTailBytes) is also a repeat when a cycle
//           repeats kLoopShortMinCycles times over half its text and kLoopShortMinSpanBytes or more:
//           a short answer that is mostly a loop (128 tokens of "]").
//   empty   kLoopEmptyTokens tokens in a row brought no visible character.
// A repeat seen at any check stays: the verdict is of the whole request, not only its end.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

namespace sm {

inline constexpr size_t kLoopTailBytes = 8192;
inline constexpr size_t kLoopMaxPeriodBytes = 1024;
inline constexpr size_t kLoopMinCycles = 4;
inline constexpr size_t kLoopMinSpanBytes = 1024;
/// A repeat whose cycle is one byte over and over (padding, a rule line) needs this many bytes:
/// real answers pad tables with runs of 1,216 spaces and 1,230 dashes (tests/fixtures/real_output).
inline constexpr size_t kLoopMinRunBytes = 2048;
inline constexpr size_t kLoopShortMinCycles = 8;
inline constexpr size_t kLoopShortMinSpanBytes = 64;
inline constexpr int64_t kLoopEmptyTokens = 128;
/// New text between two repeat checks.
inline constexpr size_t kLoopCheckEveryBytes = 256;
/// The longest excerpt of a loop kept for the result.
inline constexpr size_t kLoopExcerptBytes = 120;

enum class LoopKind : uint8_t {
  None,    ///< varied text
  Repeat,  ///< a phrase (or one token) repeated back to back
  Empty,   ///< many tokens, no visible text
};

/// "none", "repeat", "empty".
std::string_view to_string(LoopKind kind);

struct LoopVerdict {
  LoopKind kind = LoopKind::None;
  size_t period_bytes = 0;    ///< repeat: the cycle's length
  size_t repeated_bytes = 0;  ///< repeat: how much text the repetition covered when found
  std::string excerpt;        ///< repeat: the cycle (cut to kLoopExcerptBytes, on a UTF-8 boundary)
};

class LoopDetector {
 public:
  /// The next piece of the stream's text and the tokens it carried.
  void add(std::string_view text, int64_t tokens);
  /// The request has ended: one last check of its end.
  void finish();
  const LoopVerdict& verdict() const { return verdict_; }
  /// Text held now (never more than twice kLoopTailBytes).
  size_t buffered_bytes() const { return tail_.size(); }

 private:
  void check_repeat(size_t min_cycles = kLoopMinCycles, size_t min_span = kLoopMinSpanBytes,
                    size_t min_run = kLoopMinRunBytes);

  std::string tail_;               ///< the last kLoopTailBytes of text (at most twice that between trims)
  size_t unchecked_bytes_ = 0;
  size_t total_bytes_ = 0;         ///< all the text seen
  int64_t tokens_without_text_ = 0;
  LoopVerdict verdict_;
};

/// The repetition at the end of `text`: the shortest cycle of at most `max_period` bytes that
/// repeats back to back at least `min_cycles` times over at least `min_span` bytes (and, when the
/// repetition is one byte over and over, over at least `min_run` bytes), as (period, span); (0, 0)
/// when there is none. Exposed for tests.
std::pair<size_t, size_t> trailing_repeat(std::string_view text, size_t max_period, size_t min_cycles, size_t min_span,
                                          size_t min_run = 0);

}  // namespace sm
