#pragma once
// Counting the tokens of a text the way the server will: through its tokenize endpoint, or,
// for servers without one, by a linear model calibrated with max_tokens=1 requests.
#include <cstdint>
#include <memory>
#include <string>

#include "core/error.h"
#include "engines/probe.h"

namespace sm {

class TokenCounter {
 public:
  virtual ~TokenCounter() = default;
  /// Tokens the server will count for `text` as a prompt (overhead included).
  virtual Result<int64_t> count(const std::string& text) = 0;
  /// True when counts are exact (endpoint), false when estimated (calibration).
  virtual bool exact() const = 0;
};

/// Uses the engine's tokenize endpoint; `overhead_tokens` is added to every count (BOS or chat
/// template tokens that the endpoint does not see; calibrated once per run).
std::unique_ptr<TokenCounter> make_endpoint_counter(EngineKind kind, std::string base_url, std::string model,
                                                    std::vector<std::string> headers, HttpTransport transport);

/// Estimates tokens from the word count: tokens ≈ overhead + per_word × words.
class LinearTokenCounter final : public TokenCounter {
 public:
  LinearTokenCounter(double overhead_tokens, double tokens_per_word)
      : overhead_tokens_(overhead_tokens), tokens_per_word_(tokens_per_word) {}
  Result<int64_t> count(const std::string& text) override;
  bool exact() const override { return false; }

 private:
  double overhead_tokens_;
  double tokens_per_word_;
};

/// Counts whitespace-separated words.
int64_t count_words(std::string_view text);

/// Wraps a counter and adds a fixed offset (calibrated prompt overhead).
class OffsetTokenCounter final : public TokenCounter {
 public:
  OffsetTokenCounter(TokenCounter& inner, int64_t offset) : inner_(inner), offset_(offset) {}
  Result<int64_t> count(const std::string& text) override {
    auto n = inner_.count(text);
    if (!n) return n;
    return *n + offset_;
  }
  bool exact() const override { return inner_.exact(); }

 private:
  TokenCounter& inner_;
  int64_t offset_;
};

}  // namespace sm
