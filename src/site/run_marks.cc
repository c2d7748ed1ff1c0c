#include "site/run_marks.h"

#include <fmt/format.h>

#include <cctype>
#include <set>

#include "site/page_layout.h"
#include "site/query_string.h"
#include "site/ui_language.h"

namespace sm::site {

std::string kind_badge(std::string_view kind) {
  if (kind.empty()) return "";
  std::string label(kind);
  label[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(label[0])));
  return " <span class=\"badge " + esc(kind) + "\">" + esc(label) + "</span>";
}

std::string run_badges(const store::RunSummary& run) {
  std::string out = kind_badge(run.kind);
  if (!run.implausible.empty())
    out += " <span class=\"badge implausible\" title=\"" + esc(run.implausible) + "\">Implausible</span>";
  if (run.synthetic_model)
    out += " <span class=\"badge synthetic\" title=\"measured on a synthetic model (speedmatrix synth-model): its speed "
           "says how the engine runs that shape, not how a real model answers\">Synthetic model</span>";
  return out;
}

std::string kind_tabs(std::string_view action, const ListingQuery& q) {
  std::string out = "<nav class=\"tabs\" aria-label=\"" + esc(ui_text("tabs.label")) + "\">";
  const std::string current = q.filter.kind.empty() ? "all" : q.filter.kind;
  for (std::string_view kind : {"measured", "predicted", "simulated", "all"}) {
    auto params = listing_params(q);
    for (auto& [name, value] : params)
      if (name == "kind") value = std::string(kind);
    const std::string label = ui_text("tabs." + std::string(kind));
    const bool on = current == kind;
    out += fmt::format("<a href=\"{}{}\" class=\"tab {}{}\"{}>{}</a>", action, esc(build_query(params)), esc(kind),
                       on ? " current" : "", on ? " aria-current=\"page\"" : "", esc(label));
  }
  out += "</nav>\n";
  return out;
}

std::string flagged_note(std::string_view action, const ListingQuery& q, int64_t flagged) {
  if (flagged <= 0) return "";
  auto params = listing_params(q);
  for (auto& [name, value] : params)
    if (name == "flagged") value = "include";
  return fmt::format("<p class=\"note\" id=\"flagged-unranked\">{} run{} flagged <span class=\"badge implausible\">"
                     "Implausible</span> (decode above twice the calculator's roofline for the hardware) or measured on "
                     "a <span class=\"badge synthetic\">Synthetic model</span> {} not ranked. <a href=\"{}{}\">Rank them "
                     "too</a>.</p>\n",
                     flagged, flagged == 1 ? "" : "s", flagged == 1 ? "is" : "are", action, esc(build_query(params)));
}

std::string mixed_kinds_warning(const std::vector<store::RunSummary>& runs) {
  std::set<std::string> kinds;
  size_t synthetic = 0;
  for (const auto& r : runs) {
    kinds.insert(r.kind);
    if (r.synthetic_model) ++synthetic;
  }
  std::string out;
  if (kinds.size() > 1) {
    std::string list;
    for (const auto& k : kinds) list += (list.empty() ? "" : ", ") + k;
    out += "<div class=\"warn-box\" id=\"mixed-kinds\"><strong>These runs are of different kinds (" + esc(list) +
           ").</strong> A prediction or a simulation is not a measurement: the ratios below compare a model's "
           "numbers with a machine's, not two machines.</div>\n";
  }
  if (synthetic > 0 && synthetic < runs.size())
    out += "<div class=\"warn-box\" id=\"mixed-synthetic\"><strong>Some runs are on a synthetic model.</strong> Its "
           "speed follows the model's shape, not a real model's answers; compare it with runs of the same shape.</div>\n";
  return out;
}

}  // namespace sm::site
