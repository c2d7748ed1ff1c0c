#include "report/output_check_model.h"

#include "core/text.h"
#include "core/units.h"
#include "report/cell_format.h"
#include "report/translate.h"
#include "result/synthetic_model.h"

namespace sm::report {

namespace {

// The excerpt as it reads in a sentence: short, control characters visible, quoted.
std::string quoted_excerpt(const std::string& excerpt) {
  constexpr size_t kShownBytes = 48;
  std::string shown = utf8_excerpt(excerpt, kShownBytes);
  if (shown.size() < excerpt.size()) shown += "…";
  return "“" + escape_controls(shown) + "”";
}

}  // namespace

namespace {

// "<name>: the output loops: 3 of 8 requests repeat “…” back to back" (and the other verdicts).
std::string flagged_output(const std::string& name, const OutputCheckSummary& o) {
  const std::string of = trf("{} of {} requests", format_thousands(o.verdict == "loop" ? o.repeat + o.empty
                                                                                        : o.not_text + o.count_mismatch),
                             format_thousands(o.requests));
  if (o.verdict == "loop")
    return o.flaw == "repeat" && !o.excerpt.empty()
               ? trf("{}: the output loops: {} repeat {} back to back", name, of, quoted_excerpt(o.excerpt))
               : trf("{}: the output loops: {} brought tokens without visible text", name, of);
  return o.flaw == "count_mismatch"
             ? trf("{}: the output contradicts its token count: {} (beginning {})", name, of, quoted_excerpt(o.excerpt))
             : trf("{}: the output is not text: {} are mostly replacement or control characters (beginning {})", name,
                   of, quoted_excerpt(o.excerpt));
}

bool flagged(const std::optional<OutputCheckSummary>& check) { return check && check->verdict != "ok"; }

}  // namespace

std::vector<Finding> output_check_findings(const RunResult& r) {
  std::vector<Finding> out;
  for (const auto& c : r.decode) {
    if (!has_numbers(c.status) || !flagged(c.output_check)) continue;
    const std::string what = flagged_output(trf("Decode {}", cell_name(c.context, c.concurrency)), *c.output_check);
    if (is_synthetic_engine_model(r.engine))
      out.push_back({Severity::Info, trf("{}. Expected of a synthetic model (random weights loop by construction): the "
                                         "cell's speed stands.",
                                         what)});
    else
      out.push_back({Severity::Warning, trf("{}. This speed is not the model's: a broken model or server can be fast "
                                            "this way, so the site keeps this cell out of its rankings.",
                                            what)});
  }
  return out;
}

std::vector<Finding> sweep_output_findings(const RunResult& r) {
  std::vector<Finding> out;
  if (!r.sweep) return out;
  for (const auto& p : r.sweep->points) {
    if (!has_numbers(p.status) || !flagged(p.output_check)) continue;
    const std::string what = flagged_output(trf("{:.3g} requests/s", p.rate_rps), *p.output_check);
    if (is_synthetic_engine_model(r.engine))
      out.push_back({Severity::Info, trf("{}. Expected of a synthetic model (random weights loop by construction): "
                                         "the rate's figures stand.",
                                         what)});
    else
      out.push_back({Severity::Warning, trf("{}. These latencies are not the model's: a broken model or server can be "
                                            "fast this way, so the goodput line leaves this rate out.",
                                            what)});
  }
  return out;
}

bool sweep_output_stands(const RunResult& r, const SweepPoint& p) {
  return !flagged(p.output_check) || is_synthetic_engine_model(r.engine);
}

std::optional<std::string> output_check_passed(const RunResult& r) {
  int64_t requests = 0, cells = 0;
  for (const auto& c : r.decode) {
    if (!has_numbers(c.status) || !c.output_check) continue;
    if (c.output_check->verdict != "ok") return std::nullopt;
    requests += c.output_check->requests;
    ++cells;
  }
  if (cells == 0) return std::nullopt;
  return trf("No output looped or was other than text ({} requests checked in {} cells).", format_thousands(requests),
             format_thousands(cells));
}

}  // namespace sm::report
