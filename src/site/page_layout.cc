#include "site/page_layout.h"

#include "core/units.h"
#include "report/html_escape.h"
#include "report/html_page.h"
#include "site/ui_language.h"

namespace sm::site {

namespace {

// Added to the report's style sheet (report/html_page.cc), using its colour variables so the
// site follows the same light and dark themes.
constexpr std::string_view kSiteStyle = R"css(
header.site { display: flex; flex-wrap: wrap; align-items: baseline; gap: 6px 26px; border-bottom: 1px solid var(--line);
  padding: 0 0 12px; margin: 0 0 22px; }
header.site .brand { font-weight: 700; font-size: 1.08rem; color: var(--fg); text-decoration: none; letter-spacing: -.01em; }
header.site .brand span { color: var(--accent); font-weight: 600; }
nav.site-nav { display: flex; flex-wrap: wrap; gap: 2px 16px; font-size: .92rem; }
nav.site-nav a { color: var(--muted); text-decoration: none; padding: 2px 0; border-bottom: 2px solid transparent; }
nav.site-nav a:hover { color: var(--fg); }
nav.site-nav a.active { color: var(--fg); border-bottom-color: var(--accent); font-weight: 600; }
.lede { color: var(--muted); margin: 0 0 14px; max-width: 52em; }
form.panel { display: flex; flex-wrap: wrap; gap: 10px 14px; align-items: flex-end; background: var(--card);
  border: 1px solid var(--line); border-radius: 10px; padding: 12px 14px; margin: 14px 0 16px; }
form.panel label { display: flex; flex-direction: column; gap: 3px; font-size: .8rem; color: var(--muted); font-weight: 600; }
form.panel .actions { display: flex; gap: 10px; align-items: center; }
select, input[type=text], input[type=number] { font: inherit; font-size: .9rem; padding: 5px 8px; border: 1px solid var(--line);
  border-radius: 6px; background: var(--bg); color: var(--fg); min-width: 8em; max-width: 18em; }
input[type=number] { min-width: 4em; width: 5em; }
button { font: inherit; font-size: .9rem; font-weight: 600; padding: 6px 16px; border-radius: 6px; border: 1px solid var(--accent);
  background: var(--accent); color: var(--bg); cursor: pointer; }
table.board td.metric { font-weight: 650; }
table.board td.rank { color: var(--muted); }
table.board td.l a { text-decoration: none; }
table.board th a { color: inherit; text-decoration: none; }
table.board th a.sorted { color: var(--fg); }
table.board th a.sorted::after { content: " ↓"; color: var(--accent); }
nav.sort-bar { display: none; flex-wrap: wrap; gap: 4px 8px; align-items: baseline; font-size: .88rem; margin: 10px 0 4px; }
nav.sort-bar span { color: var(--muted); font-weight: 600; }
nav.sort-bar a { padding: 5px 10px; border: 1px solid var(--line); border-radius: 14px; text-decoration: none; color: var(--muted); }
nav.sort-bar a.sorted { color: var(--fg); border-color: var(--accent); font-weight: 600; }
table.board .sub, section.telemetry-panel .sub { display: block; font-size: .75rem; color: var(--muted); font-weight: 400; }
.pager { display: flex; flex-wrap: wrap; gap: 8px 18px; align-items: center; color: var(--muted); font-size: .88rem; margin: 10px 0; }
.empty { padding: 26px; text-align: center; color: var(--muted); background: var(--card); border: 1px dashed var(--line); border-radius: 10px; }
.error-box { border-left: 4px solid var(--err-line); background: var(--err-bg); padding: 10px 14px; border-radius: 0 8px 8px 0; margin: 12px 0; }
ol.steps { padding-left: 1.3em; max-width: 60em; }
ol.steps li { margin: 0 0 18px; }
ol.steps li p { margin: 4px 0; }
.endpoint { border: 1px solid var(--line); border-radius: 10px; padding: 4px 16px 10px; margin: 12px 0; background: var(--card); }
.endpoint h3 { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: .98rem; }
.method { display: inline-block; min-width: 4.2em; text-align: center; border-radius: 5px; padding: 0 6px; margin-right: 8px;
  font-size: .8rem; color: #fff; background: var(--c0); }
.method.post { background: var(--c2); }
.warn-box { border-left: 4px solid var(--warn-line); background: var(--warn-bg); padding: 10px 14px; border-radius: 0 8px 8px 0; margin: 10px 0; }
table.board td.throttled, table.data td.throttled { color: var(--warn-line); font-weight: 600; }
table.data tr.best td { font-weight: 650; }
section.telemetry-panel { border: 1px solid var(--line); border-radius: 10px; background: var(--card); padding: 4px 16px 10px; margin: 12px 0 6px; }
section.telemetry-panel h2 { font-size: 1.05rem; margin: 10px 0 6px; }
section.telemetry-panel details summary { cursor: pointer; color: var(--muted); font-size: .9rem; margin: 6px 0; }
.site-frame { margin-bottom: 8px; }
.badge.measured { border-color: var(--good); color: var(--good); }
.badge.predicted { border-color: var(--info-line); color: var(--info-line); }
.badge.simulated { border-color: var(--warn-line); color: var(--warn-line); }
.badge.implausible { border-color: var(--err-line); color: var(--err-line); }
.badge.synthetic { border-color: var(--muted); color: var(--muted); border-style: dashed; }
.badge.unverified { border-color: var(--muted); color: var(--muted); border-style: dotted; }
.badge.profile { border-color: var(--muted); color: var(--muted); }
.badge.retrieval-read { border-color: var(--good); color: var(--good); }
.badge.retrieval-failed { border-color: var(--err-line); color: var(--err-line); }
.badge.retrieval-error { border-color: var(--muted); color: var(--muted); }
nav.tabs.profiles { margin-top: 6px; }
nav.tabs { display: flex; flex-wrap: wrap; gap: 4px; margin: 10px 0 0; border-bottom: 1px solid var(--line); }
nav.tabs a { padding: 5px 14px; border: 1px solid transparent; border-bottom: none; border-radius: 8px 8px 0 0;
  text-decoration: none; color: var(--muted); font-size: .92rem; font-weight: 600; }
nav.tabs a.current { border-color: var(--line); background: var(--card); color: var(--fg); }
nav.tabs a.measured.current { box-shadow: inset 0 3px 0 var(--good); }
nav.tabs a.predicted.current { box-shadow: inset 0 3px 0 var(--info-line); }
nav.tabs a.simulated.current { box-shadow: inset 0 3px 0 var(--warn-line); }
nav.languages { display: flex; gap: 4px 10px; font-size: .85rem; margin-left: auto; align-items: baseline; }
nav.languages span { color: var(--muted); }
nav.languages a { color: var(--muted); text-decoration: none; }
nav.languages a.current { color: var(--fg); font-weight: 600; }
.site-frame form.panel { margin-top: 0; }
/* Tables that fit (issue 15 part 4): no sideways scrolling; long names cut with an ellipsis,
   whole in their title (hover); headers wrap. */
.fit { margin: 8px 0; }
table.board { table-layout: auto; width: 100%; }
table.board th { white-space: normal; min-width: 0; vertical-align: bottom; }
table.board td.name { max-width: 15em; }
table.board td.name .cut { display: block; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
table.board td.name .badge { margin: 2px 4px 0 0; }
table.board .rank, table.board .pick { width: 1%; }
table.fields td.wrap, td.wrap { white-space: normal; min-width: 14em; }
table.fields code { overflow-wrap: anywhere; white-space: normal; }
/* A long command or URL in running text breaks anywhere rather than widen the page (Getting
   started in English was 20 px too wide at 360 px: an inline command without a break). */
:not(pre) > code { overflow-wrap: anywhere; }
.markdown p { margin: 4px 0 8px; }
.markdown ul { margin: 4px 0 8px; padding-left: 1.3em; }
dl.responses { grid-template-columns: minmax(3.5em, auto) minmax(0, 1fr); }
dl.responses dd { min-width: 0; }
details.fields summary { cursor: pointer; color: var(--muted); font-size: .88rem; }
p.permalink a { overflow-wrap: anywhere; }
section.benchmark { margin: 18px 0 26px; }
pre { max-width: 100%; }
@media (max-width: 1180px) { table.board td.name { max-width: 11em; } }
/* Below 600 px each row of a board is a card: label on the left, value on the right. */
@media (max-width: 600px) {
  table.cards, table.cards tbody, table.cards tr, table.cards td { display: block; width: auto; }
  table.cards thead { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); }
  table.cards tr { border: 1px solid var(--line); border-radius: 10px; background: var(--card); margin: 0 0 10px;
    padding: 6px 10px; }
  table.cards td { border: none; padding: 3px 0; text-align: right; white-space: normal; max-width: none; overflow: hidden; }
  table.cards td::before { content: attr(data-label); float: left; margin-right: 12px; max-width: 45%; text-align: left;
    color: var(--muted); font-size: .8rem; font-weight: 600; }
  table.cards td.name { max-width: none; }
  table.cards td.name .cut { display: inline-block; max-width: 52vw; vertical-align: bottom; }
  table.cards td.name .badge { margin: 0 0 0 6px; }
  table.cards td.rank, table.cards td.pick { display: inline-block; padding-right: 8px; width: auto; overflow: visible; }
  table.cards td.rank::before, table.cards td.pick::before { content: none; }
  table.cards .sub { display: inline; margin-left: 6px; }
  nav.languages { margin-left: 0; }
  form.panel label { max-width: 100%; min-width: 0; }
  select, input[type=text] { max-width: min(18em, 100%); }
  /* Phones (issue 30 part 9): the site's menu on one line that scrolls sideways; the filters two
     to a row; the sort links, whose column headers are hidden, in a bar over the cards; the
     leaderboard's explanation under its ranking, so the first ranks are on the first screen. */
  header.site { gap: 4px 16px; margin-bottom: 14px; }
  nav.site-nav { flex-wrap: nowrap; overflow-x: auto; max-width: 100%; white-space: nowrap; padding-bottom: 2px; }
  form.panel { gap: 8px 10px; padding: 10px; }
  form.panel label { flex: 1 1 40%; }
  form.panel select { width: 100%; min-width: 0; max-width: 100%; }
  nav.sort-bar { display: flex; }
  .board-page { display: flex; flex-direction: column; }
  .board-page > .lede { order: 1; margin-top: 14px; }
  .board-page > * { min-width: 0; }
  td.wrap, table.fields td.wrap { min-width: 9em; }
}
)css";

std::string nav_label(NavItem item) {
  switch (item) {
    case NavItem::Leaderboard: return ui_text("nav.leaderboard");
    case NavItem::Runs: return ui_text("nav.runs");
    case NavItem::Hardware: return ui_text("nav.hardware");
    case NavItem::Models: return ui_text("nav.models");
    case NavItem::Compare: return ui_text("nav.compare");
    case NavItem::Calculator: return ui_text("nav.calculator");
    case NavItem::GettingStarted: return ui_text("nav.getting_started");
    case NavItem::ApiDocs: return ui_text("nav.api_docs");
    case NavItem::Benchmarks: return ui_text("nav.benchmarks");
    case NavItem::None: return "";
  }
  return "";
}

std::string_view nav_path(NavItem item) {
  switch (item) {
    case NavItem::Leaderboard: return "/";
    case NavItem::Runs: return "/runs";
    case NavItem::Hardware: return "/hardware";
    case NavItem::Models: return "/models";
    case NavItem::Compare: return "/compare";
    case NavItem::Calculator: return "/calc";
    case NavItem::GettingStarted: return "/getting-started";
    case NavItem::ApiDocs: return "/api";
    case NavItem::Benchmarks: return "/benchmarks";
    case NavItem::None: return "/";
  }
  return "/";
}

std::string site_header(NavItem active) {
  std::string out = "<header class=\"site\">\n<a class=\"brand\" href=\"/\">speedmatrix <span>" +
                    esc(ui_text("brand.results")) + "</span></a>\n<nav class=\"site-nav\" aria-label=\"" +
                    esc(ui_text("nav.label")) + "\">";
  // The seed's order: getting started, the leaderboard, models, hardware, benchmarks, API docs.
  for (NavItem item : {NavItem::GettingStarted, NavItem::Leaderboard, NavItem::Runs, NavItem::Models, NavItem::Hardware,
                       NavItem::Benchmarks, NavItem::Compare, NavItem::Calculator, NavItem::ApiDocs}) {
    out += "<a href=\"";
    out += nav_path(item);
    out += item == active ? "\" class=\"active\" aria-current=\"page\">" : "\">";
    out += esc(nav_label(item));
    out += "</a>";
  }
  out += "</nav>\n" + language_menu_html() + "\n</header>\n";
  return out;
}

// The report's document says lang="en"; the site's pages say the language they are in.
void set_document_language(std::string& doc) {
  const std::string_view english = "<html lang=\"en\">";
  if (size_t at = doc.find(english); at != std::string::npos)
    doc.replace(at, english.size(), "<html lang=\"" + esc(ui_language()) + "\">");
}

}  // namespace

std::string esc(std::string_view text) { return report::html_escape(text); }

std::string site_page(std::string_view title, NavItem active, std::string_view body_html) {
  std::string body = site_header(active);
  body += body_html;
  body += "<footer>" + esc(ui_text("footer.tagline")) + " · <a href=\"/api/v1/openapi.json\">OpenAPI</a></footer>\n";
  std::string doc = report::html_document(std::string(title) + " · speedmatrix", body, kSiteStyle);
  set_document_language(doc);
  return doc;
}

std::string frame_report(std::string doc, NavItem active, std::string_view top_html) {
  if (size_t style_end = doc.find("</style>"); style_end != std::string::npos) doc.insert(style_end, kSiteStyle);
  const std::string_view kPageOpen = "<div class=\"page\">\n";
  std::string top = "<div class=\"site-frame\">\n" + site_header(active) + std::string(top_html) + "</div>\n";
  if (size_t page = doc.find(kPageOpen); page != std::string::npos) doc.insert(page + kPageOpen.size(), top);
  set_document_language(doc);
  return doc;
}

std::string column_text(const NumberColumn& column, const std::optional<double>& value) {
  return ui_localize_number(column.format(value));
}

}  // namespace sm::site
