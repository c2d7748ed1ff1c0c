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
#include "report/cell_noise.h"
#include "report/connection_model.h"
#include "report/telemetry_model.h"
#include "report/translate.h"

namespace sm::report::section {

std::string token_count_text(const RunResult& r) {
  const std::map<std::string, std::string> kMeaning = {
      {"usage_continuous", tr("the server's running usage count in every chunk (exact)")},
      {"timings", tr("llama.cpp's per-chunk timings (exact)")},
      {"token_ids", tr("the token ids carried in each chunk (exact)")},
      {"usage_final", tr("the final usage count of each request, with per-chunk tokens reconciled to it")},
      {"finish_length", tr("one token per chunk, reconciled to max output where the server said it stopped at the "
                           "length limit (no usage count)")},
      {"chunks_scaled", tr("one count per chunk, scaled by the tokens per chunk of the cell's finished requests, for "
                           "streams cut before their final count (an estimate)")},
      {"chunks", tr("one token per chunk, because the server gave no count (may undercount)")},
      {"predicted", tr("the decode calculator's model (nothing was streamed)")},
  };
  std::map<std::string, int> counts;
  for (const auto& c : r.decode)
    if (has_numbers(c.status)) ++counts[c.token_count_source.empty() ? "unknown" : c.token_count_source];
  if (counts.empty()) return "";
  std::vector<std::string> parts;
  for (const auto& [source, n] : counts) {
    auto it = kMeaning.find(source);
    std::string meaning = it != kMeaning.end() ? it->second : tr("not recorded");
    parts.push_back(counts.size() == 1 ? meaning : n == 1 ? trf("{}, in {} cell", meaning, n) : trf("{}, in {} cells", meaning, n));
  }
  return trf("Output tokens were counted from {}.", join(parts, "; "));
}

std::vector<Definition> definitions(const RunResult& r) {
  std::string max_out = format_thousands(r.settings.max_output_tokens);
  std::vector<Definition> out = {
      {tr("Prompt tok/s (prefill)"),
       tr("Prompt tokens ÷ TTFT of one cold request: a prompt of exactly that many tokens, never seen by the server "
          "(no prefix-cache hit), asking for 1 output token.")},
      {tr("TTFT"), tr("Time to first token: request sent → first token received, on a monotonic clock when the bytes "
                      "reach the client. In decode cells, the median over the cell's requests, read after the "
                      "benchmark warmed the prompt into the server's prefix cache (warm prefix): not the cold TTFT "
                      "other tools report, which the prefill rows measure.")},
      {tr("Output tok/s (all requests)"),
       tr("Output tokens that arrived inside the measurement window ÷ window length, across all simultaneous "
          "requests. Output tokens only: vLLM bench serve's \"total token throughput\" also counts prompt tokens.")},
      {tr("±"), trf("The cell's noise: the wider of its window's 95% interval and, with --repeat, half the range of its "
                    "passes. Shown beside a figure when wider than {:.0f}% of it.",
                    kShowNoiseAbove * 100)},
      {tr("Per request tok/s"), tr("Median over requests of (tokens − 1) ÷ (last token time − first token time) inside "
                                   "the window: the speed one user sees.")},
      {tr("Time between tokens"), tr("Median gap between consecutive tokens of one stream; a chunk carrying k tokens "
                                     "shares its gap among them.")},
      {tr("Average active requests"), tr("Time-weighted mean of requests in flight during the window.")},
      {tr("Completed requests"), trf("Requests that finished inside the window (each asks for {} tokens, so long windows "
                                     "or fast servers complete some).",
                                     max_out)},
      {tr("Output tokens"), tr("Output tokens that arrived inside the window.")},
      {tr("Measured for"), tr("Window length. The window opens once all the cell's streams have produced a first token; "
                              "streams are kept in flight for the whole window (closed loop).")},
      {tr("Over capacity"),
       trf("Not run: requests × (context + {} max output) exceeds the server's KV-cache capacity in tokens.", max_out)},
      {tr("Beyond the model"), trf("Not run: context + {} max output exceeds the model's context length.", max_out)},
  };
  // Adaptive windows: a settled cell's rate is a projection, and the definition above would
  // otherwise be wrong for it (issue 31 point 4).
  if (r.settings.precision)
    out.push_back({tr("Projected (adaptive windows)"), tr("With --precision a cell's window closes as soon as its rate is known within the precision asked for; the Output tok/s of a window that closed early is then projected to the full --duration, not measured over it. The window's own figure (its tokens ÷ its length) is window_tok_s in result.json and the CSV, beside settled and projected_to_s.")});
  for (auto& d : telemetry_definitions(r)) out.push_back(std::move(d));
  return out;
}

std::string footer(const RunResult& r) {
  std::vector<std::string> parts;
  std::string tool = "speedmatrix";
  if (!r.tool_version.empty()) tool += " " + r.tool_version;
  std::vector<std::string> build;
  if (!r.tool_commit.empty()) build.push_back(trf("commit {}", r.tool_commit));
  if (!r.tool_build_type.empty()) build.push_back(trf("{} build", r.tool_build_type));
  if (!build.empty()) tool += " (" + join(build, ", ") + ")";
  parts.push_back(trf("Measured with {}", tool));
  if (r.kind == "simulated") parts.back() = trf("Simulated with {}", tool);
  if (r.kind == "predicted") parts.back() = trf("Predicted by {}", tool);
  if (!r.run_id.empty()) parts.push_back(trf("run {}", r.run_id));
  return join(parts, " · ");
}

}  // namespace sm::report::section
