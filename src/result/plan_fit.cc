#include "result/plan_fit.h"

#include <algorithm>
#include <fmt/format.h>

#include "core/units.h"

namespace sm {

namespace {
std::string token_list(const std::vector<int64_t>& v) {
  std::string out;
  for (int64_t t : v) out += (out.empty() ? "" : ", ") + format_tokens(t);
  return out;
}
std::string count_list(const std::vector<int64_t>& v) {
  std::string out;
  for (int64_t n : v) out += (out.empty() ? "" : ", ") + std::to_string(n);
  return out;
}
}  // namespace

int64_t fitted_max_output(std::optional<int64_t> max_model_len, const std::vector<int64_t>& given_contexts) {
  int64_t m = kDefaultMaxOutputTokens;
  if (!max_model_len) return m;
  const int64_t len = *max_model_len;
  while (m > kMinFittedMaxOutputTokens && m > len / 4) m /= 2;
  // The longest given context that can hold at least the smallest output: it should still fit.
  int64_t longest = -1;
  for (int64_t c : given_contexts)
    if (c + kMinFittedMaxOutputTokens <= len) longest = std::max(longest, c);
  while (longest >= 0 && m > kMinFittedMaxOutputTokens && longest + m > len) m /= 2;
  return m;
}

FittedMatrix fit_matrix(const MatrixRequest& request, const ServerLimits& limits) {
  FittedMatrix out{request.matrix, {}};
  MatrixSettings& m = out.matrix;
  const std::optional<int64_t> len = limits.capacity.max_model_len;
  const bool profile = !request.profile.empty();

  if (!profile && !request.max_output_given && len) {
    const int64_t fitted = std::min(m.max_output_tokens,
                                    fitted_max_output(len, request.contexts_given ? m.contexts : std::vector<int64_t>{}));
    if (fitted != m.max_output_tokens) {
      out.notes.push_back(fmt::format(
          "max output {} tokens, fitted to the server: its model holds {} tokens, and {} output tokens would leave "
          "{} (--max-output sets it)",
          format_thousands(fitted), format_thousands(*len), format_thousands(m.max_output_tokens),
          m.max_output_tokens >= *len ? std::string("no room for a prompt")
                                      : "too little room for the contexts"));
      m.max_output_tokens = fitted;
    }
  }
  if (!profile && !request.contexts_given) m.contexts = default_contexts(len, m.max_output_tokens);

  if (!profile && len) {
    std::vector<int64_t> dropped;
    std::erase_if(m.contexts, [&](int64_t c) {
      const bool beyond = c + m.max_output_tokens > *len;
      if (beyond) dropped.push_back(c);
      return beyond;
    });
    if (!dropped.empty())
      out.notes.push_back(fmt::format("contexts {} dropped: beyond the model's {}-token length with {} output tokens",
                                      token_list(dropped), format_thousands(*len), format_thousands(m.max_output_tokens)));
    std::vector<int64_t> dropped_prefill;
    std::erase_if(m.prefill_contexts, [&](int64_t c) {
      const bool beyond = c + 1 > *len;
      if (beyond) dropped_prefill.push_back(c);
      return beyond;
    });
    if (!dropped_prefill.empty())
      out.notes.push_back(fmt::format("prefill rows {} dropped: beyond the model's {}-token length",
                                      token_list(dropped_prefill), format_thousands(*len)));
  }

  if (limits.slots && *limits.slots > 0) {
    const int64_t slots = *limits.slots;
    if (!profile && !request.concurrency_given) {
      std::vector<int64_t> kept;
      for (int64_t n : m.concurrency)
        if (n <= slots) kept.push_back(n);
      if (kept.size() < m.concurrency.size()) {
        if (kept.empty() || kept.back() < slots) kept.push_back(slots);
        out.notes.push_back(fmt::format(
            "concurrency stops at {}: the server runs {} requests at once, more would wait in its queue "
            "(--concurrency sets it)",
            slots, slots));
        m.concurrency = kept;
      }
    }
    std::vector<int64_t> above;
    for (int64_t n : m.concurrency)
      if (n > slots) above.push_back(n);
    std::sort(above.begin(), above.end());
    above.erase(std::unique(above.begin(), above.end()), above.end());
    if (!above.empty() && !m.contexts.empty())
      out.notes.push_back(fmt::format(
          "cells with {} requests exceed the server's {} slots: {} run at once and the rest queue, so those cells "
          "measure {} streams' total and each queued request's TTFT includes its wait",
          count_list(above), slots, slots, slots));
  }
  if (m.contexts.empty() && m.prefill_contexts.empty() && !request.matrix.contexts.empty())
    out.notes.push_back("nothing fits this server: every context and prefill row is beyond the model's length");
  return out;
}

}  // namespace sm
