// What the numbers mean, where the token counts came from, and the footer.
#include "report/report_sections.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <map>
#include <set>

#include "core/units.h"
#include "metrics/cell_metrics.h"
#include "report/cell_format.h"
#include "report/connection_model.h"
#include "report/telemetry_model.h"

namespace sm::report::section {

std::string token_count_text(const RunResult& r) {
  static const std::map<std::string, std::string> kMeaning = {
      {"usage_continuous", "the server's running usage count in every chunk (exact)"},
      {"timings", "llama.cpp's per-chunk timings (exact)"},
      {"token_ids", "the token ids carried in each chunk (exact)"},
      {"usage_final", "the final usage count of each request, with per-chunk tokens reconciled to it"},
      {"finish_length", "one token per chunk, reconciled to max output where the server said it stopped at the "
                        "length limit (no usage count)"},
      {"chunks_scaled", "one count per chunk, scaled by the tokens per chunk of the cell's finished requests, for "
                        "streams cut before their final count (an estimate)"},
      {"chunks", "one token per chunk, because the server gave no count (may undercount)"},
      {"predicted", "the decode calculator's model (nothing was streamed)"},
  };
  std::map<std::string, int> counts;
  for (const auto& c : r.decode)
    if (has_numbers(c.status)) ++counts[c.token_count_source.empty() ? "unknown" : c.token_count_source];
  if (counts.empty()) return "";
  std::vector<std::string> parts;
  for (const auto& [source, n] : counts) {
    auto it = kMeaning.find(source);
    std::string meaning = it != kMeaning.end() ? it->second : "not recorded";
    parts.push_back(counts.size() == 1 ? meaning : fmt::format("{}, in {} cell{}", meaning, n, n == 1 ? "" : "s"));
  }
  return "Output tokens were counted from " + join(parts, "; ") + ".";
}

std::vector<Definition> definitions(const RunResult& r) {
  std::string max_out = format_thousands(r.settings.max_output_tokens);
  std::vector<Definition> out = {
      {"Prompt tok/s (prefill)",
       "Prompt tokens ÷ TTFT of one cold request: a prompt of exactly that many tokens, never seen by the server "
       "(no prefix-cache hit), asking for 1 output token."},
      {"TTFT", "Time to first token: request sent → first token received, on a monotonic clock when the bytes "
               "reach the client. In decode cells, the median over the cell's requests."},
      {"Total tok/s", "Output tokens that arrived inside the measurement window ÷ window length, across all "
                      "simultaneous requests."},
      {"Per request tok/s", "Median over requests of (tokens − 1) ÷ (last token time − first token time) inside "
                            "the window: the speed one user sees."},
      {"Time between tokens", "Median gap between consecutive tokens of one stream; a chunk carrying k tokens "
                              "shares its gap among them."},
      {"Average active requests", "Time-weighted mean of requests in flight during the window."},
      {"Completed requests", "Requests that finished inside the window (each asks for " + max_out +
                                 " tokens, so long windows or fast servers complete some)."},
      {"Output tokens", "Output tokens that arrived inside the window."},
      {"Measured for", "Window length. The window opens once all the cell's streams have produced a first token; "
                       "streams are kept in flight for the whole window (closed loop)."},
      {"Over capacity", "Not run: requests × (context + " + max_out +
                            " max output) exceeds the server's KV-cache capacity in tokens."},
      {"Too long", "Not run: context + " + max_out + " max output exceeds the model's context length."},
  };
  for (auto& d : telemetry_definitions(r)) out.push_back(std::move(d));
  return out;
}

std::string footer(const RunResult& r) {
  std::vector<std::string> parts;
  std::string tool = "speedmatrix";
  if (!r.tool_version.empty()) tool += " " + r.tool_version;
  std::vector<std::string> build;
  if (!r.tool_commit.empty()) build.push_back("commit " + r.tool_commit);
  if (!r.tool_build_type.empty()) build.push_back(r.tool_build_type + " build");
  if (!build.empty()) tool += " (" + join(build, ", ") + ")";
  parts.push_back("Measured with " + tool);
  if (r.kind == "simulated") parts.back() = "Simulated with " + tool;
  if (r.kind == "predicted") parts.back() = "Predicted by " + tool;
  if (!r.run_id.empty()) parts.push_back("run " + r.run_id);
  return join(parts, " · ");
}

}  // namespace sm::report::section
