// The server-rendered pages of the results site. Every value that came from a result, a query
// or a header is escaped with esc() on its way into the markup; no page carries a script.
#include <fmt/format.h>

#include <algorithm>
#include <charconv>

#include "calc/catalog.h"
#include "core/units.h"
#include "metrics/capacity.h"
#include "report/report.h"
#include "result/profile.h"
#include "result/result_json.h"
#include "site/api_docs_page.h"
#include "site/benchmarks_page.h"
#include "site/calc_evidence.h"
#include "site/canonical_names.h"
#include "site/calc_input.h"
#include "site/cell_pages.h"
#include "site/listing_query.h"
#include "site/run_prices.h"
#include "site/page_layout.h"
#include "site/run_marks.h"
#include "site/run_telemetry_panel.h"
#include "site/site.h"
#include "site/site_data.h"
#include "site/site_json.h"
#include "site/telemetry_text.h"
#include "site/timestamps.h"
#include "site/ui_language.h"
#include "store/run_summary.h"
#include "store/run_telemetry.h"

namespace sm::site {

namespace {

using Params = std::vector<std::pair<std::string, std::string>>;

constexpr int64_t kMaxCompareRuns = 8;

SiteResponse html_response(int status, std::string body) {
  SiteResponse r;
  r.status = status;
  r.content_type = "text/html; charset=utf-8";
  r.body = std::move(body);
  return r;
}


std::string select_html(std::string_view name, std::string_view label, const std::vector<std::string>& values,
                        const std::string& current, std::string_view any_label = "All") {
  std::string out = fmt::format("<label>{}<select name=\"{}\"><option value=\"\">{}</option>", label, name, any_label);
  bool seen = false;
  for (const auto& v : values) {
    const bool selected = v == current;
    seen = seen || selected;
    out += "<option value=\"" + esc(v) + "\"" + (selected ? " selected" : "") + ">" + esc(v) + "</option>";
  }
  // A value from the URL that no run has (yet) stays visible rather than silently dropped.
  if (!current.empty() && !seen) out += "<option value=\"" + esc(current) + "\" selected>" + esc(current) + "</option>";
  out += "</select></label>";
  return out;
}

// The filter form of the leaderboard and the run list: a plain GET form, so a filtered view is
// a URL that can be shared (and tested).
// `kind_select`: a Kind menu (the run list); otherwise the kind is the tab's (kept in a hidden field).
std::string filter_form(std::string_view action, const store::FilterValues& values, const ListingQuery& q,
                        bool keep_sort, bool kind_select = true) {
  std::string out = fmt::format("<form class=\"panel\" method=\"get\" action=\"{}\" role=\"search\">", action);
  const std::string all = esc(ui_text("filter.all"));
  out += select_html("gpu", esc(ui_text("column.hardware")), values.gpus, q.filter.gpu, all);
  out += select_html("model", esc(ui_text("column.model")), values.models, q.filter.model, all);
  out += select_html("engine", esc(ui_text("column.engine")), values.engines, q.filter.engine, all);
  out += select_html("quantization", esc(ui_text("column.quantisation")), values.quantizations, q.filter.quantization, all);
  if (kind_select) out += select_html("kind", esc(ui_text("column.kind")), values.kinds, q.filter.kind, all);
  else if (!q.kind_param.empty()) out += "<input type=\"hidden\" name=\"kind\" value=\"" + esc(q.kind_param) + "\">";
  if (q.include_flagged) out += "<input type=\"hidden\" name=\"flagged\" value=\"include\">";
  // Users at a speed (docs/site.md): the column's floor and context, and the least users to keep;
  // folded until used, so the first rank stays on a phone's first screen.
  out += std::string(q.filter.min_users > 0 ? "<details open>" : "<details>") + "<summary>" +
         esc(ui_text("filter.users_at")) + "</summary>";
  out += "<label>" + esc(ui_text("filter.users_at")) + "<select name=\"users_at\">";
  for (double f : kDefaultUserFloorsTokS)
    out += fmt::format("<option value=\"{0:g}\"{1}>{0:g}</option>", f, f == q.filter.users_floor_tok_s ? " selected" : "");
  out += "</select></label>";
  out += fmt::format("<label>{}<input type=\"number\" name=\"context\" min=\"0\" value=\"{}\"></label>",
                     esc(ui_text("filter.context")), q.filter.users_context);
  out += fmt::format("<label>{}<input type=\"number\" name=\"min_users\" min=\"0\" value=\"{}\"></label>",
                     esc(ui_text("filter.min_users")), q.filter.min_users == 0 ? std::string() : std::to_string(q.filter.min_users));
  out += "</details>";
  if (keep_sort) out += "<input type=\"hidden\" name=\"sort\" value=\"" + esc(order_name(q.order)) + "\">";
  out += fmt::format("<div class=\"actions\"><button type=\"submit\">{}</button><a href=\"{}\">{}</a></div></form>\n",
                     esc(ui_text("filter.apply")), action, esc(ui_text("filter.reset")));
  return out;
}

// The listing at `action` with `q`'s filters, sorted by `order` (escaped for an attribute).
std::string sort_href(std::string_view action, const ListingQuery& q, store::RunOrder order) {
  Params params = listing_params(q);
  params.emplace_back("sort", std::string(order_name(order)));
  return std::string(action) + esc(build_query(params));
}

std::string sort_header(std::string_view action, const ListingQuery& q, store::RunOrder order, std::string_view title,
                        std::string_view sub) {
  return fmt::format("<th><a href=\"{}\"{}>{}</a><span class=\"sub\">{}</span></th>", sort_href(action, q, order),
                     q.order == order ? " class=\"sorted\"" : "", title, sub);
}

// The sort links again, as a bar over the table: below 600 px the rows are cards and the column
// headers (where the links are) are hidden, so this is how a phone sorts (page_layout.cc).
std::string sort_bar(std::string_view action, const ListingQuery& q) {
  std::string out = "<nav class=\"sort-bar\" aria-label=\"" + esc(ui_text("sort.label")) + "\"><span>" +
                    esc(ui_text("sort.label")) + "</span>";
  const std::pair<store::RunOrder, const char*> orders[] = {{store::RunOrder::SingleStream, "column.single_stream"},
                                                            {store::RunOrder::BestTotal, "column.best_total"},
                                                            {store::RunOrder::Prefill32K, "column.prefill_32k"},
                                                            {store::RunOrder::TokensPerJoule, "column.efficiency"},
                                                            {store::RunOrder::Newest, "column.uploaded"}};
  for (const auto& [order, label] : orders)
    out += fmt::format("<a href=\"{}\"{}>{}</a>", sort_href(action, q, order),
                       q.order == order ? " class=\"sorted\" aria-current=\"true\"" : "", esc(ui_text(label)));
  return out + "</nav>\n";
}

std::string best_cell_note(const store::RunSummary& s) {
  if (!s.best_total_concurrency) return "";
  return fmt::format("{} × {}", format_tokens(s.best_total_context.value_or(0)), *s.best_total_concurrency);
}

// The run's best tokens per joule and its cell; why there is none when the GPUs read were the client's.
std::string efficiency_cell(const store::RunSummary& s, const NumberColumn& column) {
  if (s.best_tokens_per_joule)
    return "<td class=\"metric\" data-label=\"" + esc(ui_text("column.efficiency")) + "\">" +
           column_text(column, s.best_tokens_per_joule) + "<span class=\"sub\">" +
           esc(cell_name(s.best_tokens_per_joule_context.value_or(0), s.best_tokens_per_joule_concurrency.value_or(0))) +
           "</span></td>";
  if (s.gpu_telemetry == store::to_string(store::GpuTelemetryScope::ClientSideOnly))
    return "<td class=\"metric\" data-label=\"" + esc(ui_text("column.efficiency")) + "\">—<span class=\"sub\">" +
           esc(ui_text("efficiency.client_only")) + "</span></td>";
  return "<td class=\"metric\" data-label=\"" + esc(ui_text("column.efficiency")) + "\">—</td>";
}

// The worst throttle verdict of the run's valid cells, and how many were not ok.
std::string throttle_cell(const store::RunSummary& s) {
  const std::string label = " data-label=\"" + esc(ui_text("column.throttling")) + "\"";
  if (s.throttle_worst.empty()) return "<td class=\"l\"" + label + ">—</td>";
  if (s.throttle_worst == "ok") return "<td class=\"l\"" + label + " data-throttle=\"ok\">" + esc(throttle_label("ok")) + "</td>";
  const int64_t n = s.throttled_cells.value_or(0);
  return "<td class=\"l throttled\"" + label + " data-throttle=\"" + esc(s.throttle_worst) + "\">" +
         esc(throttle_label(s.throttle_worst)) + "<span class=\"sub\">" + esc(ui_count("throttle.cells", n)) +
         "</span></td>";
}

// A name cut to the column's width by CSS (ellipsis), whole in its title (shown on hover).
std::string name_cell(std::string_view label, const std::string& text_html, const std::string& full_name,
                      std::string_view extra_html = "") {
  return "<td class=\"l name\" data-label=\"" + esc(label) + "\"><span class=\"cut\" title=\"" + esc(full_name) + "\">" +
         text_html + "</span>" + std::string(extra_html) + "</td>";
}

// "~" before a figure that is a projection to the full window (a settled adaptive window), as
// every report marks it (docs/METRICS.md, "Adaptive windows").
std::string projected_mark(bool projected) {
  if (!projected) return "";
  return "<span class=\"projected\" title=\"" + esc(ui_text("column.projected.title")) + "\">~</span>";
}

std::string metric_cell(std::string_view label, const std::string& value_html, std::string_view sub_html = "") {
  std::string out = "<td class=\"metric\" data-label=\"" + esc(label) + "\">" + value_html;
  if (!sub_html.empty()) out += "<span class=\"sub\">" + std::string(sub_html) + "</span>";
  return out + "</td>";
}

// Users at the listing's floor and context: "8", "≈11" (read between two measured concurrencies),
// "≥64" (every measured one met it), "—" when the run has no figure there.
std::string users_at_cell(const store::RunSummary& s) {
  const std::string label = ui_text("column.users_at");
  if (!s.users_at) return metric_cell(label, "<span class=\"none\">—</span>");
  const std::string mark = s.users_at_basis == "interpolated" ? "≈" : s.users_at_basis == "at_least" ? "≥" : "";
  return metric_cell(label, esc(mark + ui_number(*s.users_at)));
}

// The table of runs shared by the leaderboard, the run list and the per-GPU / per-model views:
// the model, then the headline numbers, then what the run ran on. Long names are cut with an
// ellipsis (full name on hover); below 600 px each row is a card (page_layout.cc's style sheet).
// `ranks`: a # column counting from the page's offset; false for a list that ranks nothing (the
// leaderboard's Other runs), where a number would read as a place.
std::string runs_table(const std::vector<store::RunSummary>& runs, const ListingQuery& q, std::string_view action,
                       bool checkboxes, bool ranks = true) {
  std::string out = sort_bar(action, q) + "<div class=\"fit\">\n<table class=\"data board cards\" id=\"runs-table\">\n<thead><tr>";
  if (checkboxes) out += "<th class=\"l pick\">" + esc(ui_text("column.pick")) + "</th>";
  if (ranks) out += "<th class=\"rank\">#</th>";
  out += "<th class=\"l name\">" + esc(ui_text("column.model")) + "</th>";
  out += sort_header(action, q, store::RunOrder::SingleStream, esc(ui_text("column.single_stream")),
                     esc(ui_text("column.single_stream.sub")));
  out += sort_header(action, q, store::RunOrder::BestTotal, esc(ui_text("column.best_total")),
                     esc(ui_text("column.best_total.sub")));
  out += sort_header(action, q, store::RunOrder::Prefill32K, esc(ui_text("column.prefill_32k")),
                     esc(ui_text("column.prefill_32k.sub")));
  out += sort_header(action, q, store::RunOrder::TokensPerJoule, esc(ui_text("column.efficiency")),
                     esc(ui_text("column.efficiency.sub")));
  out += "<th id=\"users-at\">" + esc(ui_format("column.users_at.head", fmt::format("{:g}", q.filter.users_floor_tok_s))) +
         "<span class=\"sub\">" + esc(ui_format("column.users_at.sub", format_tokens(q.filter.users_context))) + "</span></th>";
  out += "<th class=\"l name\">" + esc(ui_text("column.hardware")) + "</th><th class=\"l name\">" +
         esc(ui_text("column.engine")) + "<span class=\"sub\">" + esc(ui_text("column.quantisation")) + "</span></th>";
  out += "<th class=\"l\">" + esc(ui_text("column.throttling")) + "<span class=\"sub\">" +
         esc(ui_text("column.throttling.sub")) + "</span></th>";
  out += sort_header(action, q, store::RunOrder::Newest, esc(ui_text("column.uploaded")), "UTC");
  out += "</tr></thead>\n<tbody>\n";
  // One style per figure column, picked from the page's rows (NumberColumn).
  using Run = store::RunSummary;
  const NumberColumn single = column_of(runs, [](const Run& s) { return s.single_stream_tok_s; });
  const NumberColumn best = column_of(runs, [](const Run& s) { return s.best_total_tok_s; });
  const NumberColumn prefill = column_of(runs, [](const Run& s) { return s.prefill_32k_tok_s; });
  const NumberColumn efficiency = column_of(runs, [](const Run& s) { return s.best_tokens_per_joule; });
  int64_t rank = q.page.offset;
  for (const auto& s : runs) {
    const std::string link = run_page_path(s.run_id);
    out += "<tr data-run-id=\"" + esc(s.run_id) + "\">";
    if (checkboxes)
      out += "<td class=\"l pick\"><input type=\"checkbox\" name=\"run\" value=\"" + esc(s.run_id) + "\" aria-label=\"" +
             esc(ui_format("column.pick.aria", s.model)) + "\"></td>";
    if (ranks) out += "<td class=\"rank\">" + esc(ui_number(++rank)) + "</td>";
    out += name_cell(ui_text("column.model"), "<a href=\"" + esc(link) + "\">" + esc(s.model) + "</a>", s.model,
                     run_badges(s));
    out += metric_cell(ui_text("column.single_stream"),
                       projected_mark(s.single_stream_projected) + column_text(single, s.single_stream_tok_s));
    out += metric_cell(ui_text("column.best_total"),
                       projected_mark(s.best_total_projected) + column_text(best, s.best_total_tok_s),
                       esc(best_cell_note(s)));
    out += metric_cell(ui_text("column.prefill_32k"), column_text(prefill, s.prefill_32k_tok_s));
    out += efficiency_cell(s, efficiency);
    out += users_at_cell(s);
    out += name_cell(ui_text("column.hardware"), esc(s.gpu), s.gpu);
    const std::string engine = s.engine + (s.engine_version.empty() ? "" : " " + s.engine_version);
    const std::string quant = s.quantization.empty() ? "—" : s.quantization;
    out += "<td class=\"l name\" data-label=\"" + esc(ui_text("column.engine")) + "\"><span class=\"cut\" title=\"" +
           esc(engine + " · " + quant) + "\">" + esc(engine) + "</span><span class=\"sub cut\">" + esc(quant) +
           "</span></td>";
    out += throttle_cell(s);
    out += "<td data-label=\"" + esc(ui_text("column.uploaded")) + "\">" + esc(ui_datetime(s.uploaded_at)) + "</td>";
    out += "</tr>\n";
  }
  out += "</tbody>\n</table>\n</div>\n";
  return out;
}

std::string pager(std::string_view action, const ListingQuery& q, int64_t shown, int64_t total) {
  std::string out = "<div class=\"pager\">";
  if (total == 0) return out + "</div>\n";
  out += "<span>" + esc(ui_format("pager.runs", ui_number(q.page.offset + 1), ui_number(q.page.offset + shown), ui_number(total))) +
         "</span>";
  // Keyset links (the cursor names the row next to the page): any depth costs what the first page does.
  auto link = [&](const std::string& cursor, std::string_view text) {
    Params params = listing_params(q);
    params.emplace_back("sort", std::string(order_name(q.order)));
    params.emplace_back("limit", std::to_string(q.page.limit));
    params.emplace_back("cursor", cursor);
    return fmt::format("<a href=\"{}{}\">{}</a>", action, esc(build_query(params)), text);
  };
  if (!q.previous_cursor.empty()) out += link(q.previous_cursor, esc(ui_text("pager.previous")));
  if (!q.next_cursor.empty()) out += link(q.next_cursor, esc(ui_text("pager.next")));
  out += "</div>\n";
  return out;
}

std::string empty_box(std::string_view text) { return fmt::format("<div class=\"empty\">{}</div>\n", text); }

// Runs of a server on another machine with no hardware declared: where they are, and why unranked.
std::string unknown_hardware_note(int64_t runs) {
  const std::string link = "/hardware" + build_query({{"gpu", std::string(store::kUnknownHardwareGroup)}});
  return "<section id=\"unknown-hardware\">\n<h2>" + esc(ui_text("unknown_hardware.title")) + "</h2>\n<p class=\"note\">" +
         ui_count("unknown_hardware.note.html", runs, esc(link)) + "</p>\n</section>\n";
}

std::string group_table(const std::vector<store::GroupSummary>& groups, std::string_view param, std::string_view action,
                        std::string_view name_title, std::string_view other_title, const std::string& kind_param) {
  std::string out = "<div class=\"fit\">\n<table class=\"data board cards\" id=\"groups-table\">\n<thead><tr>";
  out += "<th class=\"l name\">" + std::string(name_title) + "</th>";
  out += "<th>" + esc(ui_text("group.best_single_stream")) + "<span class=\"sub\">tok/s</span></th>";
  out += "<th>" + esc(ui_text("group.best_total")) + "<span class=\"sub\">" + esc(ui_text("column.best_total.sub")) + "</span></th>";
  out += "<th>" + esc(ui_text("group.best_prefill_32k")) + "<span class=\"sub\">" + esc(ui_text("column.prefill_32k.sub")) +
         "</span></th>";
  out += "<th>" + esc(ui_text("group.best_efficiency")) + "<span class=\"sub\">" + esc(ui_text("column.efficiency.sub")) +
         "</span></th>";
  out += "<th>" + esc(ui_text("group.runs")) + "</th><th>" + std::string(other_title) + "</th>";
  out += "<th>" + esc(ui_text("group.last_upload")) + "<span class=\"sub\">UTC</span></th></tr></thead>\n<tbody>\n";
  using Group = store::GroupSummary;
  const NumberColumn single = column_of(groups, [](const Group& g) { return g.best_single_stream_tok_s; });
  const NumberColumn best = column_of(groups, [](const Group& g) { return g.best_total_tok_s; });
  const NumberColumn prefill = column_of(groups, [](const Group& g) { return g.best_prefill_32k_tok_s; });
  const NumberColumn efficiency = column_of(groups, [](const Group& g) { return g.best_tokens_per_joule; });
  for (const auto& g : groups) {
    const std::string link = std::string(action) + build_query({{std::string(param), g.name}, {"kind", kind_param}});
    out += "<tr>" + name_cell(name_title, "<a href=\"" + esc(link) + "\">" + esc(g.name) + "</a>", g.name);
    out += metric_cell(ui_text("group.best_single_stream"), column_text(single, g.best_single_stream_tok_s));
    out += metric_cell(ui_text("group.best_total"), column_text(best, g.best_total_tok_s));
    out += metric_cell(ui_text("group.best_prefill_32k"), column_text(prefill, g.best_prefill_32k_tok_s));
    out += metric_cell(ui_text("group.best_efficiency"), column_text(efficiency, g.best_tokens_per_joule));
    out += "<td data-label=\"" + esc(ui_text("group.runs")) + "\">" + esc(ui_number(g.runs)) + "</td><td data-label=\"" +
           std::string(other_title) + "\">" + esc(ui_number(g.distinct_other)) + "</td>";
    out += "<td data-label=\"" + esc(ui_text("group.last_upload")) + "\">" + esc(ui_datetime(g.last_uploaded_at)) +
           "</td></tr>\n";
  }
  out += "</tbody>\n</table>\n</div>\n";
  return out;
}

std::string base_url(const SiteConfig& config, const SiteRequest& request) {
  if (!config.public_url.empty()) return config.public_url;
  if (!request.host.empty()) return "http://" + request.host;
  return "http://127.0.0.1:8080";
}

// One <select> of catalog entries; the entry `current` names (by id, name or alias) is selected.
template <class Entry, class Finder>
std::string catalog_select(std::string_view name, std::string_view label, const std::vector<Entry>& entries,
                           const std::string& current, Finder find) {
  std::string selected_id;
  if (auto found = find(current)) selected_id = found->id;
  std::string out = fmt::format("<label>{}<select name=\"{}\">", label, name);
  for (const Entry& e : entries) {
    out += "<option value=\"" + esc(e.id) + "\"" + (e.id == selected_id ? " selected" : "") + ">" + esc(e.name) +
           "</option>";
  }
  out += "</select></label>";
  return out;
}

// A prediction's notes and warnings are the calculator's sentences: in the page's language (the
// API's result keeps the English).
RunResult in_page_language(RunResult r, const calc::PredictionWording& wording) {
  if (r.notes == calc::english(wording.notes)) r.notes = ui_sentences(wording.notes);
  for (std::string& w : r.warnings)
    for (const auto& sentences : wording.warnings)
      if (w == calc::english(sentences)) {
        w = ui_sentences(sentences);
        break;
      }
  return r;
}

}  // namespace

SiteResponse Site::page_error(int status, const std::string& message) {
  const std::string key = fmt::format("http.{}", status);
  std::string reason = ui_text(key);
  if (reason == key) reason = reason_phrase(status);
  std::string body = fmt::format("<h1>{} {}</h1>\n<div class=\"error-box\">{}</div>\n<p><a href=\"/\">{}</a></p>\n",
                                 status, esc(reason), esc(message), esc(ui_text("error.back")));
  SiteResponse r = html_response(status, site_page(fmt::format("{} {}", status, reason), NavItem::None, body));
  r.log_reason = message;
  return r;
}

SiteResponse Site::page_leaderboard(const SiteRequest& request) {
  auto q = parse_leaderboard_query(canonical_filter_query(QueryParams(request.query), catalog_));
  if (!q) return page_error(400, ui_error_text(q.error()));
  const bool other = other_runs_view(*q);
  auto values = store_.filter_values();
  if (!values) return page_error(503, values.error().message);
  std::erase(values->gpus, std::string(store::kUnknownHardwareGroup));
  auto page = store_.list_runs(q->filter, q->order, q->page);
  if (!page) return page_error(page.error().code == ErrorCode::InvalidArgument ? 400 : 503, page.error().message);
  note_page(*q, *page);
  auto unknown = store::count_unknown_hardware_runs(store_);
  if (!unknown) return page_error(503, unknown.error().message);
  // Ranked by efficiency, runs without the figure are left out: say how many.
  int64_t unranked = 0;
  if (q->filter.with_tokens_per_joule_only) {
    store::RunFilter all = q->filter;
    all.with_tokens_per_joule_only = false;
    auto listed = store_.list_runs(all, store::RunOrder::Newest, {.limit = 1});
    if (!listed) return page_error(503, listed.error().message);
    unranked = listed->total - page->total;
  }
  // Flagged runs (implausible, synthetic model) are out of the ranking unless asked for: say how many.
  int64_t flagged = 0;
  if (q->filter.unflagged_only) {
    store::RunFilter all = q->filter;
    all.unflagged_only = false;
    auto listed = store_.list_runs(all, q->order, {.limit = 1});
    if (!listed) return page_error(503, listed.error().message);
    flagged = listed->total - page->total;
  }
  // Runs of another profile (or none) are never ranked: say how many, and where they are listed.
  int64_t others = 0;
  if (!other) {
    store::RunFilter rest = q->filter;
    rest.profile.clear();
    rest.other_than_profile = std::string(kCurrentStandardProfile);
    rest.with_tokens_per_joule_only = false;
    rest.unflagged_only = false;
    auto listed = store_.list_runs(rest, store::RunOrder::Newest, {.limit = 1});
    if (!listed) return page_error(503, listed.error().message);
    others = listed->total;
  }
  std::string body = "<div class=\"board-page\">\n<p class=\"eyebrow\">" + esc(ui_text("leaderboard.eyebrow")) + "</p>\n<h1>" +
                     esc(ui_text("nav.leaderboard")) + "</h1>\n<p class=\"lede\">" + ui_text("leaderboard.lede.html") +
                     "</p>\n";
  body += kind_tabs("/", *q);
  body += profile_tabs("/", *q);
  if (other)
    body += "<p class=\"note\" id=\"other-runs-lede\">" +
            ui_format("profile.other_lede.html", esc(kCurrentStandardProfile)) + "</p>\n";
  body += filter_form("/", *values, *q, true, false);
  if (page->runs.empty() && other) {
    body += empty_box(esc(ui_text("empty.no_other_runs")));
  } else if (page->runs.empty()) {
    const bool unfiltered = q->filter.gpu.empty() && q->filter.model.empty() && q->filter.engine.empty() &&
                            q->filter.quantization.empty();
    const std::string none_of_kind =
        q->filter.kind.empty() ? esc(ui_text("empty.no_runs"))
                               : esc(ui_format("empty.no_run_of_kind", ui_text("tabs." + q->filter.kind)));
    body += empty_box(unranked > 0 ? esc(ui_text("empty.no_efficiency"))
                      : page->total == 0 && unfiltered && flagged == 0
                          ? none_of_kind + " " + ui_text("empty.getting_started.html")
                          : esc(ui_text("empty.no_match")));
  } else {
    body += runs_table(page->runs, *q, "/", false, !other);
    body += pager("/", *q, static_cast<int64_t>(page->runs.size()), page->total);
  }
  body += other_runs_note("/", *q, others);
  if (unranked > 0)
    body += "<p class=\"note\" id=\"efficiency-unranked\">" + esc(ui_count("leaderboard.efficiency_unranked", unranked)) +
            "</p>\n";
  body += flagged_note("/", *q, flagged);
  if (*unknown > 0) body += unknown_hardware_note(*unknown);
  body += "</div>\n";
  return html_response(200, site_page(ui_text("nav.leaderboard"), NavItem::Leaderboard, body));
}

SiteResponse Site::page_runs(const SiteRequest& request) {
  auto q = parse_listing_query(canonical_filter_query(QueryParams(request.query), catalog_), store::RunOrder::Newest);
  if (!q) return page_error(400, ui_error_text(q.error()));
  auto values = store_.filter_values();
  if (!values) return page_error(503, values.error().message);
  auto page = store_.list_runs(q->filter, q->order, q->page);
  if (!page) return page_error(page.error().code == ErrorCode::InvalidArgument ? 400 : 503, page.error().message);
  note_page(*q, *page);
  std::string body = "<h1>" + esc(ui_text("nav.runs")) + "</h1>\n<p class=\"lede\">" + esc(ui_text("runs.lede")) + "</p>\n";
  body += filter_form("/runs", *values, *q, true);
  if (page->runs.empty()) {
    body += empty_box(esc(ui_text("empty.no_match")));
  } else {
    body += "<form method=\"get\" action=\"/compare\" id=\"compare-form\">\n";
    body += runs_table(page->runs, *q, "/runs", true);
    body += "<div class=\"pager\"><button type=\"submit\">" + esc(ui_text("compare.selected")) + "</button></div>\n</form>\n";
    body += pager("/runs", *q, static_cast<int64_t>(page->runs.size()), page->total);
  }
  return html_response(200, site_page(ui_text("nav.runs"), NavItem::Runs, body));
}

namespace {

// The `cells` page asked for (1-based), clamped to [1, pages]; an unreadable value is page 1.
int64_t cells_page(const QueryParams& params, int64_t pages) {
  const std::string text = params.get("cells");
  int64_t page = 1;
  auto r = std::from_chars(text.data(), text.data() + text.size(), page);
  if (text.empty() || r.ec != std::errc{} || r.ptr != text.data() + text.size()) page = 1;
  return std::clamp<int64_t>(page, 1, pages);
}

// Which profile the run followed, and so whether the leaderboard ranks it.
std::string profile_line(const std::string& profile) {
  const std::string key = is_ranked_profile(profile) ? "run.profile.ranked.html"
                          : profile_standing(profile) == ProfileStanding::Quick ? "run.profile.quick.html"
                          : profile.empty()                                    ? "run.profile.own.html"
                                                                               : "run.profile.other.html";
  return "<p class=\"note\" id=\"run-profile\">" +
         ui_format(key, esc(profile_text(profile)), esc(kCurrentStandardProfile)) + "</p>\n";
}

// What a run page says first about a flagged run.
std::string flag_boxes(const store::RunSummary& s) {
  std::string out;
  if (!s.implausible.empty())
    out += "<div class=\"warn-box\" id=\"implausible\">" + ui_format("run.implausible.html", esc(s.implausible)) + "</div>\n";
  if (s.synthetic_model)
    out += "<div class=\"warn-box\" id=\"synthetic-model\">" + ui_text("run.synthetic.html") + "</div>\n";
  if (s.retrieval == "failed")
    out += "<div class=\"warn-box\" id=\"retrieval-failed\">" +
           ui_format("run.retrieval_failed.html", esc(failed_contexts_text(s))) + "</div>\n";
  if (s.unverified_hardware)
    out += "<div class=\"warn-box\" id=\"unverified-hardware\">" +
           ui_format("run.unverified.html", esc(s.gpu_reported.empty() ? s.gpu : s.gpu_reported)) + "</div>\n";
  // The names the run reported, where the site's canonical ones differ (canonical_names.h).
  std::vector<std::string> reported;
  if (!s.gpu_reported.empty() && s.gpu_reported != s.gpu) reported.push_back("“" + esc(s.gpu_reported) + "”");
  if (!s.model_reported.empty() && s.model_reported != s.model) reported.push_back("“" + esc(s.model_reported) + "”");
  if (!reported.empty()) {
    std::string names = reported[0];
    if (reported.size() > 1) names += ", " + reported[1];
    out += "<p class=\"note\" id=\"reported-names\">" + ui_format("run.reported_names.html", names) + "</p>\n";
  }
  return out;
}

}  // namespace

SiteResponse Site::page_run(const std::string& run_id, const SiteRequest& request) {
  auto text = store_.get_run_json(run_id);
  if (!text) return page_error(503, text.error().message);
  if (!*text) return page_error(404, ui_format("error.no_run", run_id));
  auto summary = store_.get_run_summary(run_id);
  if (!summary) return page_error(503, summary.error().message);
  nlohmann::json j = nlohmann::json::parse(**text, nullptr, false);
  auto result = j.is_discarded() ? Result<RunResult>(fail(ErrorCode::Internal, "stored JSON is unreadable"))
                                 : result_from_json(j);
  if (!result) return page_error(500, result.error().message);
  // A reader's own prices (?power_price=0.2): the costs are worked out again, nothing is stored.
  const QueryParams query(request.query);
  if (has_query_prices(query))
    if (auto ok = apply_query_prices(query, *result); !ok) return page_error(400, ok.error().message);
  const std::string api = "/api/v1/runs/" + percent_encode(run_id);
  std::string top = "<p class=\"note\"><a href=\"/runs\">← " + esc(ui_text("nav.runs")) + "</a> · <a href=\"" + esc(api) +
                    "\">result.json</a> · <a href=\"/compare?run=" + esc(percent_encode(run_id)) + "\">" +
                    esc(ui_text("run.compare_with")) + "</a></p>\n";
  top += profile_line(result->settings.profile);
  if (*summary) top += flag_boxes(**summary);
  top += run_telemetry_panel(*result);
  top += price_form_html(*result, run_page_path(run_id));
  // A huge run is shown a page of cells at a time.
  const std::vector<const RunResult*> one = {&*result};
  const auto pages = decode_context_pages(one);
  const int64_t page_count = cell_page_count(one);
  const int64_t page = cells_page(QueryParams(request.query), page_count);
  // The pager's links keep a reader's prices (the base is "/runs/ID?power_price=0.2&").
  const std::string pager = cell_pager(run_page_path(run_id) + "?" + price_query_prefix(query), pages, page, page_count);
  top += pager;
  RenderOptions in_language;  // the report speaks the page's language
  in_language.translate = ui_report_translator();
  std::string doc = page_count > 1 ? render_report(cell_page_of(*result, pages, page), ReportFormat::Html, in_language)
                                   : render_report(*result, ReportFormat::Html, in_language);
  if (!pager.empty())
    if (size_t end = doc.rfind("</body>"); end != std::string::npos) doc.insert(end, "<div class=\"page\">" + pager + "</div>");
  return html_response(200, frame_report(std::move(doc), NavItem::Runs, top));
}

SiteResponse Site::page_hardware(const SiteRequest& request) {
  const QueryParams params = canonical_filter_query(QueryParams(request.query), catalog_);
  if (params.has("gpu") && !params.get("gpu").empty()) {
    auto q = parse_listing_query(params, store::RunOrder::BestTotal, 50, "measured");
    if (!q) return page_error(400, ui_error_text(q.error()));
    auto page = store_.list_runs(q->filter, q->order, q->page);
    if (!page) return page_error(page.error().code == ErrorCode::InvalidArgument ? 400 : 503, page.error().message);
  note_page(*q, *page);
    std::string body = "<p class=\"note\"><a href=\"/hardware\">← " + esc(ui_text("nav.hardware")) + "</a></p>\n<h1>" +
                       esc(q->filter.gpu) + "</h1>\n";
    body += kind_tabs("/hardware", *q);
    if (q->filter.gpu == store::kUnknownHardwareGroup)
      body += "<p class=\"lede\">" + ui_count("hardware.unknown_lede.html", page->total) + "</p>\n";
    else
      body += "<p class=\"lede\">" + esc(ui_count("hardware.runs_lede", page->total)) + "</p>\n";
    body += page->runs.empty() ? empty_box(esc(ui_text("empty.no_run_on_hardware")))
                               : runs_table(page->runs, *q, "/hardware", false);
    body += pager("/hardware", *q, static_cast<int64_t>(page->runs.size()), page->total);
    return html_response(200, site_page(q->filter.gpu, NavItem::Hardware, body));
  }
  auto gq = parse_listing_query(params, store::RunOrder::BestTotal, 50, "measured");
  if (!gq) return page_error(400, ui_error_text(gq.error()));
  auto groups = store_.hardware_summary(gq->filter.kind);
  if (!groups) return page_error(503, groups.error().message);
  auto unknown = store::count_unknown_hardware_runs(store_);
  if (!unknown) return page_error(503, unknown.error().message);
  std::string body = "<h1>" + esc(ui_text("nav.hardware")) + "</h1>\n<p class=\"lede\">" + esc(ui_text("hardware.lede")) + "</p>\n";
  body += kind_tabs("/hardware", *gq);
  body += groups->empty() ? empty_box(esc(ui_text(*unknown > 0 ? "empty.no_known_hardware" : "empty.no_runs")))
                          : group_table(*groups, "gpu", "/hardware", esc(ui_text("column.hardware")),
                                        esc(ui_text("group.models")), gq->kind_param);
  if (*unknown > 0) body += unknown_hardware_note(*unknown);
  return html_response(200, site_page(ui_text("nav.hardware"), NavItem::Hardware, body));
}

SiteResponse Site::page_models(const SiteRequest& request) {
  const QueryParams params = canonical_filter_query(QueryParams(request.query), catalog_);
  if (params.has("model") && !params.get("model").empty()) {
    auto q = parse_listing_query(params, store::RunOrder::BestTotal, 50, "measured");
    if (!q) return page_error(400, ui_error_text(q.error()));
    auto page = store_.list_runs(q->filter, q->order, q->page);
    if (!page) return page_error(page.error().code == ErrorCode::InvalidArgument ? 400 : 503, page.error().message);
  note_page(*q, *page);
    std::string body = "<p class=\"note\"><a href=\"/models\">← " + esc(ui_text("nav.models")) + "</a></p>\n<h1>" +
                       esc(q->filter.model) + "</h1>\n";
    body += kind_tabs("/models", *q);
    body += "<p class=\"lede\">" + esc(ui_count("models.runs_lede", page->total)) + "</p>\n";
    body += page->runs.empty() ? empty_box(esc(ui_text("empty.no_run_of_model"))) : runs_table(page->runs, *q, "/models", false);
    body += pager("/models", *q, static_cast<int64_t>(page->runs.size()), page->total);
    return html_response(200, site_page(q->filter.model, NavItem::Models, body));
  }
  auto gq = parse_listing_query(params, store::RunOrder::BestTotal, 50, "measured");
  if (!gq) return page_error(400, ui_error_text(gq.error()));
  auto groups = store_.model_summary(gq->filter.kind);
  if (!groups) return page_error(503, groups.error().message);
  std::string body = "<h1>" + esc(ui_text("nav.models")) + "</h1>\n<p class=\"lede\">" + esc(ui_text("models.lede")) + "</p>\n";
  body += kind_tabs("/models", *gq);
  body += groups->empty() ? empty_box(esc(ui_text("empty.no_runs")))
                          : group_table(*groups, "model", "/models", esc(ui_text("column.model")),
                                        esc(ui_text("group.hardware")), gq->kind_param);
  return html_response(200, site_page(ui_text("nav.models"), NavItem::Models, body));
}

SiteResponse Site::page_compare(const SiteRequest& request) {
  QueryParams params(request.query);
  std::vector<std::string> ids = params.all("run");
  ids.erase(std::remove(ids.begin(), ids.end(), std::string()), ids.end());
  if (static_cast<int64_t>(ids.size()) > kMaxCompareRuns)
    return page_error(400, ui_format("error.compare_max", kMaxCompareRuns));
  if (ids.size() >= 2) {
    std::vector<RunResult> runs;
    std::vector<store::RunSummary> summaries;
    CompareOptions options;
    options.render.translate = ui_report_translator();  // the comparison speaks the page's language
    for (const auto& id : ids) {
      auto text = store_.get_run_json(id);
      if (!text) return page_error(503, text.error().message);
      if (!*text) return page_error(404, ui_format("error.no_run", id));
      auto result = result_from_json(nlohmann::json::parse(**text, nullptr, false));
      if (!result) return page_error(500, result.error().message);
      auto stored = store_.get_run_summary(id);
      if (!stored) return page_error(503, stored.error().message);
      auto summary = *stored ? **stored : store::summarize_run(*result);
      options.labels.push_back(ui_format("compare.label", summary.model, summary.gpu));
      summaries.push_back(std::move(summary));
      runs.push_back(std::move(*result));
    }
    // Two runs of the same model and hardware would read alike: fall back to their ids.
    std::vector<std::string> sorted = options.labels;
    std::sort(sorted.begin(), sorted.end());
    if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) options.labels = ids;
    // The permalink: the runs in this order (and the page of cells shown), so the URL reproduces
    // the comparison for anyone it is sent to.
    Params permalink_params;
    for (const auto& id : ids) permalink_params.emplace_back("run", id);
    if (params.has("cells")) permalink_params.emplace_back("cells", params.get("cells"));
    const std::string permalink = base_url(config_, request) + "/compare" + build_query(permalink_params);
    std::string top = "<p class=\"note\"><a href=\"/compare\">← " + esc(ui_text("compare.pick_other")) + "</a></p>\n";
    top += "<p class=\"note permalink\" id=\"permalink\">" + esc(ui_text("compare.permalink")) + ": <a href=\"" +
           esc(permalink) + "\" rel=\"bookmark\">" + esc(permalink) + "</a></p>\n";
    top += mixed_kinds_warning(summaries);
    // Many cells: a page of context rows at a time, the same rows of every run.
    std::vector<const RunResult*> pointers;
    for (const auto& r : runs) pointers.push_back(&r);
    const auto pages = decode_context_pages(pointers);
    const int64_t page_count = cell_page_count(pointers);
    const int64_t page = cells_page(params, page_count);
    std::string base = "/compare?";
    for (const auto& id : ids) base += "run=" + percent_encode(id) + "&";
    const std::string pager = cell_pager(base, pages, page, page_count);
    top += pager;
    if (page_count > 1)
      for (auto& r : runs) r = cell_page_of(r, pages, page);
    std::string doc = render_compare(runs, ReportFormat::Html, options);
    if (!pager.empty())
      if (size_t end = doc.rfind("</body>"); end != std::string::npos) doc.insert(end, "<div class=\"page\">" + pager + "</div>");
    return html_response(200, frame_report(std::move(doc), NavItem::Compare, top));
  }
  auto q = parse_listing_query(params, store::RunOrder::Newest);
  if (!q) return page_error(400, ui_error_text(q.error()));
  auto page = store_.list_runs(q->filter, q->order, q->page);
  if (!page) return page_error(page.error().code == ErrorCode::InvalidArgument ? 400 : 503, page.error().message);
  note_page(*q, *page);
  std::string body = "<h1>" + esc(ui_text("nav.compare")) + "</h1>\n<p class=\"lede\">" + esc(ui_text("compare.lede")) + "</p>\n";
  if (ids.size() == 1) body += "<div class=\"error-box\">" + esc(ui_text("compare.one_more")) + "</div>\n";
  if (page->runs.empty()) {
    body += empty_box(esc(ui_text("empty.no_runs")));
  } else {
    body += "<form method=\"get\" action=\"/compare\" id=\"compare-form\">\n";
    std::string table = runs_table(page->runs, *q, "/compare", true);
    for (const auto& id : ids) {  // keep an already picked run ticked
      const std::string box = "name=\"run\" value=\"" + esc(id) + "\"";
      if (size_t at = table.find(box); at != std::string::npos) table.insert(at + box.size(), " checked");
    }
    body += table;
    body += "<div class=\"pager\"><button type=\"submit\">" + esc(ui_text("compare.selected")) + "</button></div>\n</form>\n";
    body += pager("/compare", *q, static_cast<int64_t>(page->runs.size()), page->total);
  }
  return html_response(200, site_page(ui_text("nav.compare"), NavItem::Compare, body));
}

SiteResponse Site::page_calc(const SiteRequest& request) {
  QueryParams params(request.query);
  auto input = calc_input_from_query(params);
  CalcInput shown = input ? *input : CalcInput{};
  std::string form = "<form class=\"panel\" method=\"get\" action=\"/calc\" id=\"calc-form\">";
  form += catalog_select("gpu", esc(ui_text("calc.gpu")), catalog_.gpus(), shown.gpu, [&](const std::string& n) {
    auto r = catalog_.find_gpu(n);
    return r ? std::optional<calc::GpuSpec>(*r) : std::nullopt;
  });
  form += "<label>" + esc(ui_text("calc.gpus")) + "<input type=\"number\" name=\"gpus\" min=\"1\" max=\"16\" value=\"" +
          esc(std::to_string(shown.gpus)) + "\"></label>";
  form += catalog_select("model", esc(ui_text("column.model")), catalog_.models(), shown.model, [&](const std::string& n) {
    auto r = catalog_.find_model(n);
    return r ? std::optional<calc::ModelShape>(*r) : std::nullopt;
  });
  form += catalog_select("quant", esc(ui_text("column.quantisation")), catalog_.quants(), shown.quant, [&](const std::string& n) {
    auto r = catalog_.find_quant(n);
    return r ? std::optional<calc::QuantSpec>(*r) : std::nullopt;
  });
  form += catalog_select("engine", esc(ui_text("column.engine")), catalog_.engines(), shown.engine, [&](const std::string& n) {
    auto r = catalog_.find_engine(n);
    return r ? std::optional<calc::EngineParams>(*r) : std::nullopt;
  });
  form += "<label>" + esc(ui_text("calc.contexts")) + "<input type=\"text\" name=\"contexts\" placeholder=\"0,16K,32K,64K,128K\" value=\"" +
          esc(shown.contexts) + "\"></label>";
  form += "<label>" + esc(ui_text("calc.concurrency")) + "<input type=\"text\" name=\"concurrency\" placeholder=\"1,2,4,…,128\" value=\"" +
          esc(shown.concurrency) + "\"></label>";
  form += "<label>" + esc(ui_text("calc.prefill")) + "<input type=\"text\" name=\"prefill\" placeholder=\"8K,16K,32K,64K,128K\" value=\"" +
          esc(shown.prefill_contexts) + "\"></label>";
  form += "<label>" + esc(ui_text("calc.max_output")) + "<input type=\"text\" name=\"max_output\" value=\"" + esc(shown.max_output) + "\"></label>";
  form += "<div class=\"actions\"><button type=\"submit\">" + esc(ui_text("calc.predict")) + "</button></div></form>\n";

  const std::string intro =
      "<h1>" + esc(ui_text("nav.calculator")) + "</h1>\n<p class=\"lede\">" + ui_text("calc.lede.html") + "</p>\n";
  if (!params.has("gpu")) return html_response(200, site_page(ui_text("nav.calculator"), NavItem::Calculator, intro + form));
  auto fail_page = [&](const std::string& message) {
    return html_response(400, site_page(ui_text("nav.calculator"), NavItem::Calculator,
                                        intro + form + "<div class=\"error-box\">" + esc(message) + "</div>\n"));
  };
  if (!input) return fail_page(ui_error_text(input.error()));
  int64_t retry_after_s = 0;
  if (!calc_limiter_.allow("calc:" + request.client, &retry_after_s)) {
    SiteResponse r = fail_page(ui_format("calc.too_many", retry_after_s));
    r.status = 429;
    r.headers.emplace_back("Retry-After", std::to_string(retry_after_s));
    return r;
  }
  calc::PredictionWording wording;
  auto result = run_calc(catalog_, *input, &wording);
  if (!result) return fail_page(ui_error_text(result.error()));
  auto evidence = find_evidence(store_, corpus_, catalog_, *input);
  if (!evidence) return page_error(503, evidence.error().message);
  // The prediction and, under it, what was measured of the same setup.
  RenderOptions in_language;  // the prediction's report speaks the page's language
  in_language.translate = ui_report_translator();
  std::string doc = render_report(in_page_language(*result, wording), ReportFormat::Html, in_language);
  const std::string section = "<div class=\"page\">" + evidence_html(*evidence, *result, corpus_sources_) + "</div>\n";
  if (size_t end = doc.rfind("</body>"); end != std::string::npos) doc.insert(end, section);
  else doc += section;
  return html_response(200, frame_report(std::move(doc), NavItem::Calculator,
                                         "<p class=\"eyebrow\">" + esc(ui_text("nav.calculator")) + "</p>\n" + form +
                                             "<p class=\"note\"><a href=\"#evidence\">" +
                                             esc(ui_text("calc.evidence_link")) + "</a></p>\n"));
}

SiteResponse Site::page_getting_started(const SiteRequest& request) {
  const std::string url = esc(base_url(config_, request));
  std::string body = "<h1>" + esc(ui_text("nav.getting_started")) + "</h1>\n<p class=\"lede\">" +
                     ui_format("getting_started.lede.html", fmt::arg("url", url)) + "</p>\n<ol class=\"steps\">\n";
  for (const char* step : {"getting_started.run_site.html", "getting_started.token.html", "getting_started.measure.html",
                           "getting_started.upload.html", "getting_started.see.html", "getting_started.api.html"})
    body += "<li>" + ui_format(step, fmt::arg("url", url)) + "</li>\n";
  body += "</ol>\n";
  return html_response(200, site_page(ui_text("nav.getting_started"), NavItem::GettingStarted, body));
}

SiteResponse Site::page_api_docs() {
  auto text = site_data_file("openapi.json");
  nlohmann::ordered_json doc = nlohmann::ordered_json::parse(text.value_or("{}"), nullptr, false);
  if (doc.is_discarded() || !doc.is_object()) return page_error(500, "the embedded OpenAPI document is unreadable");
  const std::string body = api_docs_body(doc);
  return html_response(200, site_page(ui_text("nav.api_docs"), NavItem::ApiDocs, body));
}

SiteResponse Site::page_benchmarks(const SiteRequest& request) {
  (void)request;
  auto latest = latest_runs_by_benchmark(store_);
  if (!latest) return page_error(503, latest.error().message);
  std::string body = "<h1>" + esc(ui_text("nav.benchmarks")) + "</h1>\n<p class=\"lede\">" +
                     esc(ui_count("benchmarks.lede", kBenchmarkScanRuns)) + "</p>\n";
  ListingQuery q;  // the tables' sort links go to the run list
  for (size_t i = 0; i < std::size(kBenchmarkKinds); ++i) {
    const std::string kind(kBenchmarkKinds[i]);
    body += "<section class=\"benchmark\" id=\"benchmark-" + kind + "\">\n<h2>" + esc(ui_text("benchmarks." + kind)) +
            "</h2>\n<div class=\"markdown\">" + ui_text("benchmarks." + kind + ".about.html") + "</div>\n<h3>" +
            esc(ui_text("benchmarks.latest")) + "</h3>\n";
    body += (*latest)[i].empty() ? empty_box(esc(ui_text("benchmarks.none"))) : runs_table((*latest)[i], q, "/runs", false);
    body += "</section>\n";
  }
  return html_response(200, site_page(ui_text("nav.benchmarks"), NavItem::Benchmarks, body));
}

}  // namespace sm::site
