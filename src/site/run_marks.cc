#include "site/run_marks.h"

#include <fmt/format.h>

#include <cctype>
#include <set>

#include "core/units.h"
#include "result/profile.h"
#include "site/page_layout.h"
#include "site/query_string.h"
#include "site/ui_language.h"

namespace sm::site {

std::string kind_badge(std::string_view kind) {
  if (kind.empty()) return "";
  std::string label = ui_text("tabs." + std::string(kind));
  if (label == "tabs." + std::string(kind)) {  // a kind the catalogs do not name: the word itself
    label = std::string(kind);
    label[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(label[0])));
  }
  return " <span class=\"badge " + esc(kind) + "\">" + esc(label) + "</span>";
}

std::string failed_contexts_text(const store::RunSummary& run) {
  std::string out;
  for (int64_t c : run.retrieval_failed_contexts) out += (out.empty() ? "" : ", ") + format_tokens(c);
  return out;
}

std::string retrieval_badge(const store::RunSummary& run) {
  if (run.retrieval == "read")
    return " <span class=\"badge retrieval-read\" title=\"" + esc(ui_text("badge.retrieval_read.title")) + "\">" +
           esc(ui_text("badge.retrieval_read")) + "</span>";
  if (run.retrieval == "failed") {
    const std::string contexts = failed_contexts_text(run);
    return " <span class=\"badge retrieval-failed\" title=\"" + esc(ui_text("badge.retrieval_failed.title")) + "\">" +
           esc(ui_format("badge.retrieval_failed", contexts)) + "</span>";
  }
  if (run.retrieval == "error")
    return " <span class=\"badge retrieval-error\" title=\"" + esc(ui_text("badge.retrieval_error.title")) + "\">" +
           esc(ui_text("badge.retrieval_error")) + "</span>";
  return "";  // no check, or a synthetic model (its own badge says so)
}

std::string run_badges(const store::RunSummary& run) {
  std::string out = kind_badge(run.kind);
  if (!run.implausible.empty())
    out += " <span class=\"badge implausible\" title=\"" + esc(run.implausible) + "\">" + esc(ui_text("badge.implausible")) +
           "</span>";
  if (run.synthetic_model)
    out += " <span class=\"badge synthetic\" title=\"" + esc(ui_text("badge.synthetic.title")) + "\">" +
           esc(ui_text("badge.synthetic")) + "</span>";
  if (run.unverified_hardware)
    out += " <span class=\"badge unverified\" title=\"" + esc(ui_text("badge.unverified.title")) + "\">" +
           esc(ui_text("badge.unverified")) + "</span>";
  out += retrieval_badge(run);
  if (!is_ranked_profile(run.profile))
    out += " <span class=\"badge profile\" title=\"" + esc(ui_format("badge.profile.title", kCurrentStandardProfile)) +
           "\">" + esc(profile_text(run.profile)) + "</span>";
  return out;
}

std::string profile_text(std::string_view profile) {
  return profile.empty() ? ui_text("profile.own_matrix") : std::string(profile);
}

std::string profile_tabs(std::string_view action, const ListingQuery& q) {
  std::string out = "<nav class=\"tabs profiles\" aria-label=\"" + esc(ui_text("profile_tabs.label")) + "\">";
  const bool other = other_runs_view(q);
  for (std::string_view view : {kStandardView, kOtherView}) {
    auto params = listing_params(q);
    for (auto& [name, value] : params) {
      if (name == "profile") value = view == kOtherView ? std::string(kOtherView) : std::string();
      // Each view has its own default order (ranked by single stream; other runs newest first).
      if (name == "sort") value.clear();
    }
    const bool on = (view == kOtherView) == other;
    const std::string label = view == kOtherView ? ui_text("profile_tabs.other")
                                                 : ui_format("profile_tabs.standard", kCurrentStandardProfile);
    out += fmt::format("<a href=\"{}{}\" class=\"tab {}{}\"{}>{}</a>", action, esc(build_query(params)), esc(view),
                       on ? " current" : "", on ? " aria-current=\"page\"" : "", esc(label));
  }
  out += "</nav>\n";
  return out;
}

std::string other_runs_note(std::string_view action, const ListingQuery& q, int64_t others) {
  if (others <= 0) return "";
  auto params = listing_params(q);
  for (auto& [name, value] : params)
    if (name == "profile") value = std::string(kOtherView);
  return "<p class=\"note\" id=\"other-runs-unranked\">" +
         ui_count("profile.others_note.html", others, esc(kCurrentStandardProfile),
                  std::string(action) + esc(build_query(params))) +
         "</p>\n";
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
  return "<p class=\"note\" id=\"flagged-unranked\">" +
         ui_count("flagged.note.html", flagged, esc(ui_text("badge.implausible")), esc(ui_text("badge.synthetic")),
                  std::string(action) + esc(build_query(params)), esc(ui_text("badge.unverified"))) +
         "</p>\n";
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
    for (const auto& k : kinds) list += (list.empty() ? "" : ", ") + ui_text("tabs." + k);
    out += "<div class=\"warn-box\" id=\"mixed-kinds\">" + ui_format("compare.mixed_kinds.html", esc(list)) + "</div>\n";
  }
  if (synthetic > 0 && synthetic < runs.size())
    out += "<div class=\"warn-box\" id=\"mixed-synthetic\">" + ui_text("compare.mixed_synthetic.html") + "</div>\n";
  return out;
}

}  // namespace sm::site
