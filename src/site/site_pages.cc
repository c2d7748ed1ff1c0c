// The server-rendered pages of the results site. Every value that came from a result, a query
// or a header is escaped with esc() on its way into the markup; no page carries a script.
#include <fmt/format.h>

#include <algorithm>
#include <charconv>

#include "calc/catalog.h"
#include "core/units.h"
#include "report/report.h"
#include "result/result_json.h"
#include "site/calc_evidence.h"
#include "site/calc_input.h"
#include "site/cell_pages.h"
#include "site/listing_query.h"
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
  if (keep_sort) out += "<input type=\"hidden\" name=\"sort\" value=\"" + esc(order_name(q.order)) + "\">";
  out += fmt::format("<div class=\"actions\"><button type=\"submit\">{}</button><a href=\"{}\">{}</a></div></form>\n",
                     esc(ui_text("filter.apply")), action, esc(ui_text("filter.reset")));
  return out;
}

std::string sort_header(std::string_view action, const ListingQuery& q, store::RunOrder order, std::string_view title,
                        std::string_view sub) {
  Params params = listing_params(q);
  params.emplace_back("sort", std::string(order_name(order)));
  return fmt::format("<th><a href=\"{}{}\"{}>{}</a><span class=\"sub\">{}</span></th>", action,
                     esc(build_query(params)), q.order == order ? " class=\"sorted\"" : "", title, sub);
}

std::string best_cell_note(const store::RunSummary& s) {
  if (!s.best_total_concurrency) return "";
  return fmt::format("{} × {}", format_tokens(s.best_total_context.value_or(0)), *s.best_total_concurrency);
}

// The run's best tokens per joule and its cell; why there is none when the GPUs read were the client's.
std::string efficiency_cell(const store::RunSummary& s) {
  if (s.best_tokens_per_joule)
    return "<td class=\"metric\">" + esc(format_tokens_per_joule(s.best_tokens_per_joule)) + "<span class=\"sub\">" +
           esc(cell_name(s.best_tokens_per_joule_context.value_or(0), s.best_tokens_per_joule_concurrency.value_or(0))) +
           "</span></td>";
  if (s.gpu_telemetry == store::to_string(store::GpuTelemetryScope::ClientSideOnly))
    return "<td class=\"metric\">—<span class=\"sub\">client GPU only</span></td>";
  return "<td class=\"metric\">—</td>";
}

// The worst throttle verdict of the run's valid cells, and how many were not ok.
std::string throttle_cell(const store::RunSummary& s) {
  if (s.throttle_worst.empty()) return "<td class=\"l\">—</td>";
  if (s.throttle_worst == "ok") return "<td class=\"l\" data-throttle=\"ok\">OK</td>";
  const int64_t n = s.throttled_cells.value_or(0);
  return "<td class=\"l throttled\" data-throttle=\"" + esc(s.throttle_worst) + "\">" + esc(throttle_label(s.throttle_worst)) +
         fmt::format("<span class=\"sub\">{} cell{}</span></td>", n, n == 1 ? "" : "s");
}

// The table of runs shared by the leaderboard, the run list and the per-GPU / per-model views.
std::string runs_table(const std::vector<store::RunSummary>& runs, const ListingQuery& q, std::string_view action,
                       bool checkboxes) {
  std::string out = "<div class=\"scroll\">\n<table class=\"data board\" id=\"runs-table\">\n<thead><tr>";
  if (checkboxes) out += "<th class=\"l\">" + esc(ui_text("column.pick")) + "</th>";
  out += "<th>#</th><th class=\"l\">" + esc(ui_text("column.model")) + "</th><th class=\"l\">" +
         esc(ui_text("column.hardware")) + "</th><th class=\"l\">" + esc(ui_text("column.engine")) +
         "</th><th class=\"l\">" + esc(ui_text("column.quantisation")) + "</th>";
  out += sort_header(action, q, store::RunOrder::SingleStream, esc(ui_text("column.single_stream")),
                     esc(ui_text("column.single_stream.sub")));
  out += sort_header(action, q, store::RunOrder::BestTotal, esc(ui_text("column.best_total")),
                     esc(ui_text("column.best_total.sub")));
  out += sort_header(action, q, store::RunOrder::Prefill32K, esc(ui_text("column.prefill_32k")),
                     esc(ui_text("column.prefill_32k.sub")));
  out += sort_header(action, q, store::RunOrder::TokensPerJoule, esc(ui_text("column.efficiency")),
                     esc(ui_text("column.efficiency.sub")));
  out += "<th class=\"l\">" + esc(ui_text("column.throttling")) + "<span class=\"sub\">" +
         esc(ui_text("column.throttling.sub")) + "</span></th>";
  out += sort_header(action, q, store::RunOrder::Newest, esc(ui_text("column.uploaded")), "UTC");
  out += "</tr></thead>\n<tbody>\n";
  int64_t rank = q.page.offset;
  for (const auto& s : runs) {
    const std::string link = run_page_path(s.run_id);
    out += "<tr data-run-id=\"" + esc(s.run_id) + "\">";
    if (checkboxes)
      out += "<td class=\"l\"><input type=\"checkbox\" name=\"run\" value=\"" + esc(s.run_id) + "\" aria-label=\"compare " +
             esc(s.model) + "\"></td>";
    out += fmt::format("<td class=\"rank\">{}</td>", ++rank);
    out += "<td class=\"l\"><a href=\"" + esc(link) + "\">" + esc(s.model) + "</a>" + run_badges(s) + "</td>";
    out += "<td class=\"l\">" + esc(s.gpu) + "</td>";
    out += "<td class=\"l\">" + esc(s.engine) + (s.engine_version.empty() ? "" : " " + esc(s.engine_version)) + "</td>";
    out += "<td class=\"l\">" + esc(s.quantization.empty() ? "—" : s.quantization) + "</td>";
    out += "<td class=\"metric\">" + rate_text(s.single_stream_tok_s) + "</td>";
    out += "<td class=\"metric\">" + rate_text(s.best_total_tok_s) + "<span class=\"sub\">" + esc(best_cell_note(s)) +
           "</span></td>";
    out += "<td class=\"metric\">" + rate_text(s.prefill_32k_tok_s) + "</td>";
    out += efficiency_cell(s);
    out += throttle_cell(s);
    out += "<td>" + esc(display_minutes(s.uploaded_at)) + "</td>";
    out += "</tr>\n";
  }
  out += "</tbody>\n</table>\n</div>\n";
  return out;
}

std::string pager(std::string_view action, const ListingQuery& q, int64_t shown, int64_t total) {
  std::string out = "<div class=\"pager\">";
  if (total == 0) return out + "</div>\n";
  out += "<span>" + esc(fmt::format(fmt::runtime(ui_text("pager.runs")), q.page.offset + 1, q.page.offset + shown, total)) +
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
  return fmt::format("<section id=\"unknown-hardware\">\n<h2>Unknown hardware</h2>\n<p class=\"note\"><a href=\"{}\">{} "
                     "run{}</a> measured a server on another machine without declaring its hardware, so {} credited to "
                     "no hardware and not ranked. <code>speedmatrix hardware --out FILE</code> on the server, then "
                     "<code>run --server-hardware FILE</code> (or <code>--gpu NAME --gpu-count N</code>), declares it.</p>\n"
                     "</section>\n",
                     esc(link), runs, runs == 1 ? "" : "s", runs == 1 ? "it is" : "they are");
}

std::string group_table(const std::vector<store::GroupSummary>& groups, std::string_view param, std::string_view action,
                        std::string_view name_title, std::string_view other_title, const std::string& kind_param) {
  std::string out = "<div class=\"scroll\">\n<table class=\"data board\" id=\"groups-table\">\n<thead><tr>";
  out += fmt::format(
      "<th class=\"l\">{}</th><th>Runs</th><th>{}</th><th>Best single-stream decode<span class=\"sub\">tok/s</span></th>"
      "<th>Best aggregate decode<span class=\"sub\">total tok/s</span></th><th>Best prefill at 32K<span "
      "class=\"sub\">prompt tok/s</span></th><th>Best efficiency<span class=\"sub\">tokens per joule</span></th>"
      "<th>Last upload<span class=\"sub\">UTC</span></th></tr></thead>\n<tbody>\n",
      name_title, other_title);
  for (const auto& g : groups) {
    const std::string link = std::string(action) + build_query({{std::string(param), g.name}, {"kind", kind_param}});
    out += "<tr><td class=\"l\"><a href=\"" + esc(link) + "\">" + esc(g.name) + "</a></td>";
    out += fmt::format("<td>{}</td><td>{}</td>", g.runs, g.distinct_other);
    out += "<td class=\"metric\">" + rate_text(g.best_single_stream_tok_s) + "</td>";
    out += "<td class=\"metric\">" + rate_text(g.best_total_tok_s) + "</td>";
    out += "<td class=\"metric\">" + rate_text(g.best_prefill_32k_tok_s) + "</td>";
    out += "<td class=\"metric\">" + esc(format_tokens_per_joule(g.best_tokens_per_joule)) + "</td>";
    out += "<td>" + esc(display_minutes(g.last_uploaded_at)) + "</td></tr>\n";
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

}  // namespace

SiteResponse Site::page_error(int status, const std::string& message) {
  std::string body = fmt::format("<h1>{} {}</h1>\n<div class=\"error-box\">{}</div>\n<p><a href=\"/\">Back to the leaderboard</a></p>\n",
                                 status, reason_phrase(status), esc(message));
  SiteResponse r = html_response(status, site_page(fmt::format("{} {}", status, reason_phrase(status)), NavItem::None, body));
  r.log_reason = message;
  return r;
}

SiteResponse Site::page_leaderboard(const SiteRequest& request) {
  auto q = parse_listing_query(QueryParams(request.query), store::RunOrder::SingleStream, 50, "measured");
  if (!q) return page_error(400, q.error().message);
  make_ranking(*q);
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
  std::string body =
      "<p class=\"eyebrow\">Every computer, one endpoint</p>\n<h1>" + esc(ui_text("nav.leaderboard")) + "</h1>\n"
      "<p class=\"lede\">Every uploaded speed-test matrix, ranked. <strong>Single-stream decode</strong>: total tok/s of "
      "one request at the run's smallest context. <strong>Best aggregate decode</strong>: the highest total tok/s of any "
      "cell, with its context × simultaneous requests. <strong>Prefill at 32K</strong>: prompt tok/s of one cold "
      "32K-token request. <strong>Efficiency</strong>: the most output tokens per joule of GPU energy of any valid "
      "decode cell, read on the server's own GPUs. <strong>Throttling</strong>: the worst clocks verdict of the run's cells. Click a "
      "column to rank by it. Measured runs are ranked by default; predictions and simulations have their own tabs.</p>\n";
  body += kind_tabs("/", *q);
  body += filter_form("/", *values, *q, true, false);
  if (page->runs.empty()) {
    const bool unfiltered = q->filter.gpu.empty() && q->filter.model.empty() && q->filter.engine.empty() &&
                            q->filter.quantization.empty();
    const std::string none_of_kind =
        q->filter.kind.empty() ? std::string("No runs yet.")
                               : "No " + esc(q->filter.kind) + " run yet (the other kinds have their own tabs).";
    body += empty_box(unranked > 0 ? "No run here has a tokens-per-joule figure of the server's GPUs yet."
                      : page->total == 0 && unfiltered && flagged == 0
                          ? none_of_kind + " <a href=\"/getting-started\">Getting started</a> shows how to upload one."
                          : std::string("No run matches these filters."));
  } else {
    body += runs_table(page->runs, *q, "/", false);
    body += pager("/", *q, static_cast<int64_t>(page->runs.size()), page->total);
  }
  if (unranked > 0)
    body += fmt::format("<p class=\"note\" id=\"efficiency-unranked\">{} run{} without a tokens-per-joule figure of the "
                        "server's GPUs (no GPU telemetry, or readings of the client's machine only) {} not ranked by "
                        "efficiency; the other orders list {}.</p>\n",
                        unranked, unranked == 1 ? "" : "s", unranked == 1 ? "is" : "are", unranked == 1 ? "it" : "them");
  body += flagged_note("/", *q, flagged);
  if (*unknown > 0) body += unknown_hardware_note(*unknown);
  return html_response(200, site_page("Leaderboard", NavItem::Leaderboard, body));
}

SiteResponse Site::page_runs(const SiteRequest& request) {
  auto q = parse_listing_query(QueryParams(request.query), store::RunOrder::Newest);
  if (!q) return page_error(400, q.error().message);
  auto values = store_.filter_values();
  if (!values) return page_error(503, values.error().message);
  auto page = store_.list_runs(q->filter, q->order, q->page);
  if (!page) return page_error(page.error().code == ErrorCode::InvalidArgument ? 400 : 503, page.error().message);
  note_page(*q, *page);
  std::string body =
      "<h1>" + esc(ui_text("nav.runs")) + "</h1>\n<p class=\"lede\">Every uploaded run, newest first. Open one for its full report, or pick "
      "two or more and compare them cell by cell.</p>\n";
  body += filter_form("/runs", *values, *q, true);
  if (page->runs.empty()) {
    body += empty_box("No run matches.");
  } else {
    body += "<form method=\"get\" action=\"/compare\" id=\"compare-form\">\n";
    body += runs_table(page->runs, *q, "/runs", true);
    body += "<div class=\"pager\"><button type=\"submit\">" + esc(ui_text("compare.selected")) + "</button></div>\n</form>\n";
    body += pager("/runs", *q, static_cast<int64_t>(page->runs.size()), page->total);
  }
  return html_response(200, site_page("Matrix runs", NavItem::Runs, body));
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

// What a run page says first about a flagged run.
std::string flag_boxes(const store::RunSummary& s) {
  std::string out;
  if (!s.implausible.empty())
    out += "<div class=\"warn-box\" id=\"implausible\"><strong>Implausible for its hardware:</strong> " + esc(s.implausible) +
           ". The site accepted it but keeps it out of the default rankings.</div>\n";
  if (s.synthetic_model)
    out += "<div class=\"warn-box\" id=\"synthetic-model\"><strong>Synthetic model.</strong> Measured on a model written by "
           "<code>speedmatrix synth-model</code>: its speed follows the model's shape, not a real model's answers. Kept "
           "out of the default rankings.</div>\n";
  return out;
}

}  // namespace

SiteResponse Site::page_run(const std::string& run_id, const SiteRequest& request) {
  auto text = store_.get_run_json(run_id);
  if (!text) return page_error(503, text.error().message);
  if (!*text) return page_error(404, fmt::format("No run with id '{}'.", run_id));
  auto summary = store_.get_run_summary(run_id);
  if (!summary) return page_error(503, summary.error().message);
  nlohmann::json j = nlohmann::json::parse(**text, nullptr, false);
  auto result = j.is_discarded() ? Result<RunResult>(fail(ErrorCode::Internal, "stored JSON is unreadable"))
                                 : result_from_json(j);
  if (!result) return page_error(500, result.error().message);
  const std::string api = "/api/v1/runs/" + percent_encode(run_id);
  std::string top = "<p class=\"note\"><a href=\"/runs\">← Matrix runs</a> · <a href=\"" + esc(api) +
                    "\">result.json</a> · <a href=\"/compare?run=" + esc(percent_encode(run_id)) +
                    "\">compare with…</a></p>\n";
  if (*summary) top += flag_boxes(**summary);
  top += run_telemetry_panel(*result);
  // A huge run is shown a page of cells at a time.
  const std::vector<const RunResult*> one = {&*result};
  const auto pages = decode_context_pages(one);
  const int64_t page_count = cell_page_count(one);
  const int64_t page = cells_page(QueryParams(request.query), page_count);
  const std::string pager = cell_pager(run_page_path(run_id) + "?", pages, page, page_count);
  top += pager;
  std::string doc = page_count > 1 ? render_report(cell_page_of(*result, pages, page), ReportFormat::Html, {})
                                   : render_report(*result, ReportFormat::Html, {});
  if (!pager.empty())
    if (size_t end = doc.rfind("</body>"); end != std::string::npos) doc.insert(end, "<div class=\"page\">" + pager + "</div>");
  return html_response(200, frame_report(std::move(doc), NavItem::Runs, top));
}

SiteResponse Site::page_hardware(const SiteRequest& request) {
  QueryParams params(request.query);
  if (params.has("gpu") && !params.get("gpu").empty()) {
    auto q = parse_listing_query(params, store::RunOrder::BestTotal, 50, "measured");
    if (!q) return page_error(400, q.error().message);
    auto page = store_.list_runs(q->filter, q->order, q->page);
    if (!page) return page_error(page.error().code == ErrorCode::InvalidArgument ? 400 : 503, page.error().message);
    note_page(*q, *page);
    std::string body = "<p class=\"note\"><a href=\"/hardware\">← Hardware</a></p>\n<h1>" + esc(q->filter.gpu) + "</h1>\n";
    body += kind_tabs("/hardware", *q);
    if (q->filter.gpu == store::kUnknownHardwareGroup)
      body += fmt::format("<p class=\"lede\">{} run{} of a server on another machine whose hardware was not declared "
                          "(<code>run --server-hardware</code> or <code>--gpu</code>). They are credited to no "
                          "hardware: kept out of the leaderboard and the hardware list.</p>\n",
                          page->total, page->total == 1 ? "" : "s");
    else
      body += fmt::format("<p class=\"lede\">{} run{} on this hardware, best aggregate decode first.</p>\n", page->total,
                          page->total == 1 ? "" : "s");
    body += page->runs.empty() ? empty_box("No run on this hardware.") : runs_table(page->runs, *q, "/hardware", false);
    body += pager("/hardware", *q, static_cast<int64_t>(page->runs.size()), page->total);
    return html_response(200, site_page(q->filter.gpu, NavItem::Hardware, body));
  }
  auto gq = parse_listing_query(params, store::RunOrder::BestTotal, 50, "measured");
  if (!gq) return page_error(400, gq.error().message);
  auto groups = store_.hardware_summary(gq->filter.kind);
  if (!groups) return page_error(503, groups.error().message);
  auto unknown = store::count_unknown_hardware_runs(store_);
  if (!unknown) return page_error(503, unknown.error().message);
  std::string body = "<h1>" + esc(ui_text("nav.hardware")) + "</h1>\n<p class=\"lede\">Per GPU (or CPU, for runs without one): how many runs, how "
                     "many models, and the best numbers any run reached (runs flagged implausible or on a synthetic "
                     "model give no best number).</p>\n";
  body += kind_tabs("/hardware", *gq);
  body += groups->empty() ? empty_box(*unknown > 0 ? "No run on known hardware yet." : "No runs yet.")
                          : group_table(*groups, "gpu", "/hardware", "Hardware", "Models", gq->kind_param);
  if (*unknown > 0) body += unknown_hardware_note(*unknown);
  return html_response(200, site_page("Hardware", NavItem::Hardware, body));
}

SiteResponse Site::page_models(const SiteRequest& request) {
  QueryParams params(request.query);
  if (params.has("model") && !params.get("model").empty()) {
    auto q = parse_listing_query(params, store::RunOrder::BestTotal, 50, "measured");
    if (!q) return page_error(400, q.error().message);
    auto page = store_.list_runs(q->filter, q->order, q->page);
    if (!page) return page_error(page.error().code == ErrorCode::InvalidArgument ? 400 : 503, page.error().message);
    note_page(*q, *page);
    std::string body = "<p class=\"note\"><a href=\"/models\">← Models</a></p>\n<h1>" + esc(q->filter.model) + "</h1>\n";
    body += kind_tabs("/models", *q);
    body += fmt::format("<p class=\"lede\">{} run{} of this model, best aggregate decode first.</p>\n", page->total,
                        page->total == 1 ? "" : "s");
    body += page->runs.empty() ? empty_box("No run of this model.") : runs_table(page->runs, *q, "/models", false);
    body += pager("/models", *q, static_cast<int64_t>(page->runs.size()), page->total);
    return html_response(200, site_page(q->filter.model, NavItem::Models, body));
  }
  auto gq = parse_listing_query(params, store::RunOrder::BestTotal, 50, "measured");
  if (!gq) return page_error(400, gq.error().message);
  auto groups = store_.model_summary(gq->filter.kind);
  if (!groups) return page_error(503, groups.error().message);
  std::string body = "<h1>" + esc(ui_text("nav.models")) + "</h1>\n<p class=\"lede\">Per model: how many runs, on how many kinds of hardware, and "
                     "the best numbers any run reached (runs flagged implausible or on a synthetic model give no best "
                     "number).</p>\n";
  body += kind_tabs("/models", *gq);
  body += groups->empty() ? empty_box("No runs yet.")
                          : group_table(*groups, "model", "/models", "Model", "Hardware", gq->kind_param);
  return html_response(200, site_page("Models", NavItem::Models, body));
}

SiteResponse Site::page_compare(const SiteRequest& request) {
  QueryParams params(request.query);
  std::vector<std::string> ids = params.all("run");
  ids.erase(std::remove(ids.begin(), ids.end(), std::string()), ids.end());
  if (static_cast<int64_t>(ids.size()) > kMaxCompareRuns)
    return page_error(400, fmt::format("Pick at most {} runs to compare.", kMaxCompareRuns));
  if (ids.size() >= 2) {
    std::vector<RunResult> runs;
    std::vector<store::RunSummary> summaries;
    CompareOptions options;
    for (const auto& id : ids) {
      auto text = store_.get_run_json(id);
      if (!text) return page_error(503, text.error().message);
      if (!*text) return page_error(404, fmt::format("No run with id '{}'.", id));
      auto result = result_from_json(nlohmann::json::parse(**text, nullptr, false));
      if (!result) return page_error(500, result.error().message);
      auto stored = store_.get_run_summary(id);
      if (!stored) return page_error(503, stored.error().message);
      auto summary = *stored ? **stored : store::summarize_run(*result);
      options.labels.push_back(summary.model + " on " + summary.gpu);
      summaries.push_back(std::move(summary));
      runs.push_back(std::move(*result));
    }
    // Two runs of the same model and hardware would read alike: fall back to their ids.
    std::vector<std::string> sorted = options.labels;
    std::sort(sorted.begin(), sorted.end());
    if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) options.labels = ids;
    std::string top = "<p class=\"note\"><a href=\"/compare\">← pick other runs</a></p>\n";
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
  if (!q) return page_error(400, q.error().message);
  auto page = store_.list_runs(q->filter, q->order, q->page);
  if (!page) return page_error(503, page.error().message);
  std::string body = "<h1>" + esc(ui_text("nav.compare")) + "</h1>\n<p class=\"lede\">Pick two or more runs (at most eight): every prefill row and "
                     "decode cell side by side, with the ratio of each run to the first.</p>\n";
  if (ids.size() == 1) body += "<div class=\"error-box\">Pick at least one more run.</div>\n";
  if (page->runs.empty()) {
    body += empty_box("No runs yet.");
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
  return html_response(200, site_page("Compare", NavItem::Compare, body));
}

SiteResponse Site::page_calc(const SiteRequest& request) {
  QueryParams params(request.query);
  auto input = calc_input_from_query(params);
  CalcInput shown = input ? *input : CalcInput{};
  std::string form = "<form class=\"panel\" method=\"get\" action=\"/calc\" id=\"calc-form\">";
  form += catalog_select("gpu", "GPU", catalog_.gpus(), shown.gpu, [&](const std::string& n) {
    auto r = catalog_.find_gpu(n);
    return r ? std::optional<calc::GpuSpec>(*r) : std::nullopt;
  });
  form += "<label>GPUs<input type=\"number\" name=\"gpus\" min=\"1\" max=\"16\" value=\"" +
          esc(std::to_string(shown.gpus)) + "\"></label>";
  form += catalog_select("model", "Model", catalog_.models(), shown.model, [&](const std::string& n) {
    auto r = catalog_.find_model(n);
    return r ? std::optional<calc::ModelShape>(*r) : std::nullopt;
  });
  form += catalog_select("quant", "Quantisation", catalog_.quants(), shown.quant, [&](const std::string& n) {
    auto r = catalog_.find_quant(n);
    return r ? std::optional<calc::QuantSpec>(*r) : std::nullopt;
  });
  form += catalog_select("engine", "Engine", catalog_.engines(), shown.engine, [&](const std::string& n) {
    auto r = catalog_.find_engine(n);
    return r ? std::optional<calc::EngineParams>(*r) : std::nullopt;
  });
  form += "<label>Contexts<input type=\"text\" name=\"contexts\" placeholder=\"0,16K,32K,64K,128K\" value=\"" +
          esc(shown.contexts) + "\"></label>";
  form += "<label>Concurrency<input type=\"text\" name=\"concurrency\" placeholder=\"1,2,4,…,128\" value=\"" +
          esc(shown.concurrency) + "\"></label>";
  form += "<label>Prefill<input type=\"text\" name=\"prefill\" placeholder=\"8K,16K,32K,64K,128K\" value=\"" +
          esc(shown.prefill_contexts) + "\"></label>";
  form += "<label>Max output<input type=\"text\" name=\"max_output\" value=\"" + esc(shown.max_output) + "\"></label>";
  form += "<div class=\"actions\"><button type=\"submit\">" + esc(ui_text("calc.predict")) + "</button></div></form>\n";

  const std::string intro =
      "<h1>" + esc(ui_text("nav.calculator")) + "</h1>\n<p class=\"lede\">Predicts the speed-test matrix of a GPU × model × quantisation × "
      "engine from the performance model of <code>speedmatrix calc</code>: prefill speed by context, and sustained "
      "decode for every context × simultaneous requests, with the cells that would not fit in the KV cache marked. A "
      "prediction, not a measurement.</p>\n";
  if (!params.has("gpu")) return html_response(200, site_page("Decode calculator", NavItem::Calculator, intro + form));
  auto fail_page = [&](const std::string& message) {
    return html_response(400, site_page("Decode calculator", NavItem::Calculator,
                                        intro + form + "<div class=\"error-box\">" + esc(message) + "</div>\n"));
  };
  if (!input) return fail_page(input.error().message);
  int64_t retry_after_s = 0;
  if (!calc_limiter_.allow("calc:" + request.client, &retry_after_s)) {
    SiteResponse r = fail_page(fmt::format("Too many calculations from this address; try again in {} s.", retry_after_s));
    r.status = 429;
    r.headers.emplace_back("Retry-After", std::to_string(retry_after_s));
    return r;
  }
  auto result = run_calc(catalog_, *input);
  if (!result) return fail_page(result.error().message);
  auto evidence = find_evidence(store_, corpus_, catalog_, *input);
  if (!evidence) return page_error(503, evidence.error().message);
  // The prediction and, under it, what was measured of the same setup.
  std::string doc = render_report(*result, ReportFormat::Html, {});
  const std::string section = "<div class=\"page\">" + evidence_html(*evidence, *result, corpus_sources_) + "</div>\n";
  if (size_t end = doc.rfind("</body>"); end != std::string::npos) doc.insert(end, section);
  else doc += section;
  return html_response(200, frame_report(std::move(doc), NavItem::Calculator,
                                         "<p class=\"eyebrow\">Decode calculator</p>\n" + form +
                                             "<p class=\"note\"><a href=\"#evidence\">Evidence: measured runs and "
                                             "published measurements of this setup ↓</a></p>\n"));
}

SiteResponse Site::page_getting_started(const SiteRequest& request) {
  const std::string url = esc(base_url(config_, request));
  std::string body = "<h1>" + esc(ui_text("nav.getting_started")) + "</h1>\n<p class=\"lede\">Measure a server with <code>speedmatrix run</code> and "
                     "send the result here. This site is at <code>" + url + "</code>.</p>\n<ol class=\"steps\">\n";
  body += "<li><strong>Run a results site</strong> (skip this if you upload to someone else's)."
          "<pre>speedmatrix serve --db sqlite:results.db --listen 0.0.0.0:8080</pre>"
          "<p>One SQLite file is enough for one machine. When many machines upload, use PostgreSQL: "
          "<code>--db postgresql://user@dbhost:5432/speedmatrix</code>.</p></li>\n";
  body += "<li><strong>Make an upload token</strong> on the machine that runs the site. It is shown once; the site "
          "keeps only its hash."
          "<pre>speedmatrix serve token create --db sqlite:results.db --name my-workstation</pre>"
          "<p><code>speedmatrix serve token list</code> and <code>token revoke NAME</code> manage them.</p></li>\n";
  body += "<li><strong>Measure and upload</strong> in one go (the token can also come from "
          "<code>$SPEEDMATRIX_UPLOAD_TOKEN</code>):"
          "<pre>speedmatrix run --url http://127.0.0.1:8000 --upload " + url +
          " --upload-token smt_…</pre>"
          "<p>A server on another machine? Save its hardware there with <code>speedmatrix hardware --out "
          "gpu-box.json</code> and add <code>--server-hardware gpu-box.json</code> (or <code>--gpu \"RTX 3090\" "
          "--gpu-count 2</code>); otherwise the run is listed under unknown hardware and not ranked.</p>"
          "<p>No GPU at hand? Measure the built-in simulated engine:</p>"
          "<pre>speedmatrix sim --listen 127.0.0.1:8000 &amp;\nspeedmatrix run --url http://127.0.0.1:8000 --contexts 0 "
          "--concurrency 1,2 --prefill-contexts none --duration 2 --max-output 256 --upload " + url +
          " --upload-token smt_…</pre></li>\n";
  body += "<li><strong>Or upload a run you already have</strong>:"
          "<pre>speedmatrix upload runs/20261202-143448-qwen/result.json --to " + url + " --token smt_…</pre>"
          "<p>Uploads retry with backoff. A run that could not be sent keeps an <code>upload-pending.json</code> "
          "beside its result; send every pending run later with:</p>"
          "<pre>speedmatrix upload --pending runs/ --token smt_…</pre></li>\n";
  body += "<li><strong>See it</strong> on the <a href=\"/\">leaderboard</a> (a run of the simulated engine on its "
          "<a href=\"/?kind=simulated\">Simulated</a> tab: measured runs are ranked apart) and under "
          "<a href=\"/runs\">Matrix runs</a>; its page is its full report.</li>\n";
  body += "<li><strong>Scripts</strong> use the <a href=\"/api\">JSON API</a>:"
          "<pre>curl -H \"Authorization: Bearer $SPEEDMATRIX_UPLOAD_TOKEN\" -H 'Content-Type: application/json' \\\n"
          "     --data-binary @result.json " + url + "/api/v1/runs\ncurl '" + url +
          "/api/v1/leaderboard?sort=best_total&amp;limit=10'</pre></li>\n</ol>\n";
  return html_response(200, site_page("Getting started", NavItem::GettingStarted, body));
}

SiteResponse Site::page_api_docs() {
  auto text = site_data_file("openapi.json");
  nlohmann::ordered_json doc = nlohmann::ordered_json::parse(text.value_or("{}"), nullptr, false);
  if (doc.is_discarded() || !doc.is_object()) return page_error(500, "the embedded OpenAPI document is unreadable");
  auto str = [](const nlohmann::ordered_json& j, const char* key) {
    auto it = j.find(key);
    return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  std::string body = "<h1>" + esc(ui_text("nav.api_docs")) + "</h1>\n<p class=\"lede\">" + esc(str(doc.value("info", nlohmann::ordered_json::object()), "description")) +
                     "</p>\n<p>Machine-readable: <a href=\"/api/v1/openapi.json\">/api/v1/openapi.json</a> (OpenAPI " +
                     esc(str(doc, "openapi")) + ") and the result schema "
                     "<a href=\"/api/v1/schema/result.json\">/api/v1/schema/result.json</a>.</p>\n";
  if (auto paths = doc.find("paths"); paths != doc.end() && paths->is_object()) {
    for (const auto& [path, ops] : paths->items()) {
      if (!ops.is_object()) continue;
      for (const auto& [method, op] : ops.items()) {
        if (!op.is_object()) continue;
        std::string upper = method;
        std::transform(upper.begin(), upper.end(), upper.begin(), [](unsigned char c) { return std::toupper(c); });
        body += "<section class=\"endpoint\">\n<h3><span class=\"method " + esc(method) + "\">" + esc(upper) +
                "</span>" + esc(path) + "</h3>\n";
        body += "<p><strong>" + esc(str(op, "summary")) + "</strong></p>\n";
        if (auto d = str(op, "description"); !d.empty()) body += "<p class=\"note\">" + esc(d) + "</p>\n";
        if (auto ps = op.find("parameters"); ps != op.end() && ps->is_array() && !ps->empty()) {
          body += "<table class=\"data\"><thead><tr><th class=\"l\">Parameter</th><th class=\"l\">In</th><th "
                  "class=\"l\">Meaning</th></tr></thead><tbody>\n";
          for (const auto& p : *ps)
            body += "<tr><td class=\"l\"><code>" + esc(str(p, "name")) + "</code></td><td class=\"l\">" +
                    esc(str(p, "in")) + "</td><td class=\"l\" style=\"white-space:normal\">" +
                    esc(str(p, "description")) + "</td></tr>\n";
          body += "</tbody></table>\n";
        }
        if (auto rb = op.find("requestBody"); rb != op.end() && rb->is_object())
          body += "<p><strong>Body:</strong> " + esc(str(*rb, "description")) + "</p>\n";
        if (auto rs = op.find("responses"); rs != op.end() && rs->is_object()) {
          body += "<dl class=\"kv\">";
          for (const auto& [code, response] : rs->items())
            body += "<dt><code>" + esc(code) + "</code></dt><dd>" + esc(str(response, "description")) + "</dd>";
          body += "</dl>\n";
        }
        body += "</section>\n";
      }
    }
  }
  return html_response(200, site_page("API docs", NavItem::ApiDocs, body));
}

}  // namespace sm::site
