#include "report/html_page.h"

#include "report/html_escape.h"

namespace sm::report {

namespace {

// One style sheet for reports and comparisons. Colours are variables so the dark theme, the
// heatmap and the SVG charts follow prefers-color-scheme; print forces the light theme.
constexpr std::string_view kStyle = R"css(
:root {
  color-scheme: light dark;
  --bg: #ffffff; --fg: #17202a; --muted: #5b6675; --line: #e2e6eb; --card: #f6f8fa; --accent: #0f766e;
  --heat-lo: #eef8f5; --heat-hi: #0b6b5c; --hot-fg: #ffffff; --hatch: rgba(91, 102, 117, 0.16); --noise-dot: rgba(30, 36, 48, 0.38);
  --warn-bg: #fff7e6; --warn-line: #f0b429; --err-bg: #fdecec; --err-line: #d64545; --info-bg: #eaf2fd; --info-line: #4a86e8;
  --good: #11875d; --bad: #c53030;
  --c0: #1f77b4; --c1: #e8590c; --c2: #2f9e44; --c3: #c2255c; --c4: #7048e8; --c5: #8d6e00; --c6: #0c8599; --c7: #5c677d;
}
@media (prefers-color-scheme: dark) {
  :root {
    --bg: #0f1318; --fg: #e4e8ee; --muted: #98a2b3; --line: #2a313b; --card: #161c23; --accent: #4fd1b5;
    --heat-lo: #16221f; --heat-hi: #1ba487; --hot-fg: #ffffff; --hatch: rgba(152, 162, 179, 0.14); --noise-dot: rgba(235, 240, 248, 0.42);
    --warn-bg: #2b2414; --warn-line: #d69e2e; --err-bg: #2d1618; --err-line: #f56565; --info-bg: #14213a; --info-line: #63a4ff;
    --good: #48bb78; --bad: #fc8181;
    --c0: #5aa9e6; --c1: #ff8c42; --c2: #69db7c; --c3: #f783ac; --c4: #b197fc; --c5: #ffd43b; --c6: #3bc9db; --c7: #adb5bd;
  }
}
* { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; text-size-adjust: 100%; }
body {
  margin: 0; background: var(--bg); color: var(--fg);
  font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
}
.page { max-width: 1120px; margin: 0 auto; padding: 28px 20px 40px; }
a { color: var(--accent); }
header.top { border-bottom: 1px solid var(--line); padding-bottom: 18px; margin-bottom: 8px; }
.eyebrow { text-transform: uppercase; letter-spacing: .08em; font-size: .78rem; font-weight: 600; color: var(--accent); margin: 0 0 4px; }
h1 { font-size: 2rem; line-height: 1.2; margin: 0 0 10px; overflow-wrap: anywhere; }
h1 .on { color: var(--muted); font-weight: 400; }
h2 { font-size: 1.3rem; margin: 34px 0 10px; padding-top: 6px; }
h3 { font-size: 1.02rem; margin: 22px 0 8px; }
.subtitle { margin: 2px 0; color: var(--muted); overflow-wrap: anywhere; }
.headline { display: grid; grid-template-columns: repeat(auto-fit, minmax(180px, 1fr)); gap: 12px; margin: 18px 0 4px; }
.headline div { background: var(--card); border: 1px solid var(--line); border-radius: 10px; padding: 10px 14px; }
.headline .label, .headline .detail { display: block; color: var(--muted); font-size: .85rem; }
.headline strong { display: block; font-size: 1.45rem; font-variant-numeric: tabular-nums; margin: 2px 0; }
.subtitle strong { color: var(--fg); font-weight: 600; }
.badge { display: inline-block; padding: 1px 9px; border-radius: 999px; font-size: .8rem; font-weight: 600;
  border: 1px solid var(--accent); color: var(--accent); margin-left: 6px; }
.badge.simulated, .badge.predicted { border-color: var(--warn-line); color: var(--warn-line); }
nav.toc { display: flex; flex-wrap: wrap; gap: 4px 16px; font-size: .9rem; margin: 12px 0 0; }
nav.toc a { text-decoration: none; }
.caption, .note { color: var(--muted); margin: 6px 0; }
.note { font-size: .92rem; }
.facts { display: grid; grid-template-columns: repeat(auto-fit, minmax(320px, 1fr)); gap: 16px; margin-top: 18px; }
.facts section { background: var(--card); border: 1px solid var(--line); border-radius: 10px; padding: 4px 16px 12px; }
.facts h2 { margin-top: 10px; font-size: 1.1rem; }
dl.kv { display: grid; grid-template-columns: minmax(6.5em, 38%) 1fr; gap: 4px 14px; margin: 0; }
dl.kv dt { color: var(--muted); }
dl.kv dd { margin: 0; overflow-wrap: anywhere; }
pre { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 12px 14px;
  overflow-x: auto; font-size: .85rem; line-height: 1.45; white-space: pre-wrap; overflow-wrap: anywhere; }
code, pre { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace; }
.scroll { overflow-x: auto; -webkit-overflow-scrolling: touch; margin: 8px 0; }
table { border-collapse: collapse; font-variant-numeric: tabular-nums; }
th, td { padding: 6px 10px; border-bottom: 1px solid var(--line); text-align: right; white-space: nowrap; }
th { font-weight: 600; font-size: .85rem; color: var(--muted); vertical-align: bottom; }
td.l, th.l { text-align: left; }
table.data { width: 100%; font-size: .85rem; }
table.data th, table.data td { padding: 5px 7px; }
table.data tbody tr:hover { background: var(--card); }
table.data tr.notrun td { color: var(--muted); }
table.data tr.error td { color: var(--bad); }
table.data th { white-space: normal; min-width: 4.5em; }
table.prefill { width: 100%; }
table.prefill td.rate { font-weight: 600; font-size: 1.05rem; }
table.heatmap { border-collapse: separate; border-spacing: 3px; }
table.heatmap th, table.heatmap td { border: 0; }
table.heatmap thead th { text-align: center; }
table.heatmap tbody th { text-align: right; color: var(--fg); padding-right: 12px; vertical-align: middle; }
table.heatmap td {
  text-align: center; min-width: 92px; padding: 8px 6px; border-radius: 6px;
  background: color-mix(in srgb, var(--heat-hi) calc(var(--heat, 0) * 100%), var(--heat-lo));
  -webkit-print-color-adjust: exact; print-color-adjust: exact;
}
table.heatmap td.hot { color: var(--hot-fg); }
table.heatmap td .v { display: block; font-weight: 650; font-size: 1.02rem; }
table.heatmap td .d { display: block; font-size: .78rem; opacity: .8; }
table.heatmap td.notrun {
  background: repeating-linear-gradient(135deg, transparent 0 6px, var(--hatch) 6px 8px);
  color: var(--muted); font-size: .82rem;
}
table.heatmap td.error { background: var(--err-bg); color: var(--bad); font-weight: 600; }
table.heatmap td.partial { outline: 2px dashed var(--warn-line); outline-offset: -2px; }
/* A cell whose noise is wider than 2% (report/cell_noise.h): dots over its heat colour. */
table.heatmap td.noisy, .legend-bar .noisy {
  background-image: radial-gradient(circle, var(--noise-dot) 1.2px, transparent 1.6px); background-size: 6px 6px;
}
.legend-bar { display: flex; align-items: center; gap: 8px; font-size: .82rem; color: var(--muted); margin: 4px 0 10px; }
.legend-bar .ramp { width: 140px; height: 10px; border-radius: 5px;
  background: linear-gradient(90deg, var(--heat-lo), var(--heat-hi)); border: 1px solid var(--line);
  -webkit-print-color-adjust: exact; print-color-adjust: exact; }
.legend-bar .noisy { width: 22px; height: 12px; border-radius: 3px; border: 1px solid var(--line); background-color: var(--heat-lo); }
.legend-bar .hatch { width: 22px; height: 12px; border-radius: 3px; border: 1px solid var(--line);
  background: repeating-linear-gradient(135deg, transparent 0 4px, var(--hatch) 4px 6px); }
.prefill-grid { display: grid; grid-template-columns: minmax(320px, 400px) minmax(0, 1fr); gap: 24px; align-items: start; }
.charts { display: grid; grid-template-columns: repeat(auto-fit, minmax(420px, 1fr)); gap: 18px; margin: 16px 0; }
figure { margin: 0; background: var(--card); border: 1px solid var(--line); border-radius: 10px; padding: 12px 12px 8px; break-inside: avoid; }
figcaption { font-weight: 600; font-size: .92rem; margin: 0 4px 6px; }
svg.chart { width: 100%; height: auto; display: block; font-size: 12.5px; }
svg.chart .grid { stroke: var(--line); stroke-width: 1; }
svg.chart .axis { stroke: var(--muted); stroke-width: 1; }
svg.chart .tick { fill: var(--muted); }
svg.chart .label { fill: var(--muted); font-weight: 600; }
svg.chart .series path { fill: none; stroke-width: 2.2; stroke-linejoin: round; stroke-linecap: round; }
svg.chart .series circle, svg.chart .series rect, svg.chart .series polygon { stroke: var(--card); stroke-width: 1.5; }
svg.chart .series .hollow { fill: var(--card); stroke: var(--c); }
svg.chart .series.dashed path { stroke-dasharray: 6 4; }
svg.chart .series.reference path { stroke-width: 1.4; stroke-dasharray: 2 3; }
svg.chart .series-label { fill: var(--c); font-size: 11px; font-weight: 600; }
ul.legend { list-style: none; display: flex; flex-wrap: wrap; gap: 4px 14px; padding: 0; margin: 6px 4px 0; font-size: .82rem; color: var(--muted); }
.swatch { display: inline-block; width: 16px; height: 3px; border-radius: 2px; vertical-align: middle; margin-right: 6px; }
.swatch.dashed { background-image: linear-gradient(90deg, transparent 60%, var(--card) 60%); background-size: 8px 3px; }
.swatch.reference { height: 2px; background-image: linear-gradient(90deg, transparent 50%, var(--card) 50%); background-size: 4px 2px; }
.c0 { --c: var(--c0); } .c1 { --c: var(--c1); } .c2 { --c: var(--c2); } .c3 { --c: var(--c3); }
.c4 { --c: var(--c4); } .c5 { --c: var(--c5); } .c6 { --c: var(--c6); } .c7 { --c: var(--c7); }
.series path { stroke: var(--c); } .series circle, .series rect, .series polygon { fill: var(--c); } .swatch { background-color: var(--c); }
ul.findings { list-style: none; padding: 0; margin: 8px 0; }
ul.findings li { border-left: 4px solid var(--warn-line); background: var(--warn-bg); padding: 8px 12px; margin: 6px 0; border-radius: 0 6px 6px 0; }
ul.findings li.error { border-color: var(--err-line); background: var(--err-bg); }
ul.findings li.info { border-color: var(--info-line); background: var(--info-bg); }
ul.findings li.ok { border-color: var(--good); background: var(--card); }
ul.findings .tag { font-weight: 650; margin-right: 6px; }
dl.defs dt { font-weight: 600; margin-top: 10px; }
dl.defs dd { margin: 2px 0 0; color: var(--muted); }
.ratio.up { color: var(--good); font-weight: 600; }
.ratio.down { color: var(--bad); font-weight: 600; }
.ratio.same { color: var(--muted); }
footer { overflow-wrap: anywhere; margin-top: 40px; padding-top: 14px; border-top: 1px solid var(--line); color: var(--muted); font-size: .85rem; }
@media (max-width: 640px) {
  body { font-size: 14px; }
  .page { padding: 18px 12px 28px; }
  h1 { font-size: 1.5rem; }
  .charts, .prefill-grid { grid-template-columns: 1fr; }
  svg.chart { font-size: 18px; }
  table.heatmap td { min-width: 74px; padding: 6px 4px; }
  table.heatmap tbody th, table.data tbody td:first-child, table.data thead th:first-child {
    position: sticky; left: 0; background: var(--bg); z-index: 1; }
  th, td { padding: 5px 7px; }
}
@media print {
  :root {
    color-scheme: light;
    --bg: #ffffff; --fg: #000000; --muted: #444c56; --line: #d0d7de; --card: #ffffff;
    --heat-lo: #eef8f5; --heat-hi: #0b6b5c; --hatch: rgba(0, 0, 0, 0.12);
  }
  body { font-size: 10pt; }
  .page { max-width: none; padding: 0; }
  nav.toc { display: none; }
  .scroll { overflow: visible; }
  h2 { break-after: avoid; }
  table, figure, pre, .facts section { break-inside: avoid; }
  table.data { font-size: 8pt; }
  table.data tr { break-inside: avoid; }
  a { color: inherit; text-decoration: none; }
}
)css";

}  // namespace

std::string html_document(std::string_view title, std::string_view body, std::string_view extra_style) {
  std::string out;
  out.reserve(body.size() + kStyle.size() + 512);
  out += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  out += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  out += "<meta name=\"color-scheme\" content=\"light dark\">\n";
  out += "<meta name=\"generator\" content=\"speedmatrix\">\n";
  out += "<title>" + html_escape(title) + "</title>\n<style>";
  out += kStyle;
  out += extra_style;
  out += "</style>\n</head>\n<body>\n<div class=\"page\">\n";
  out += body;
  out += "</div>\n</body>\n</html>\n";
  return out;
}

std::string html_scroll(std::string_view table_html) {
  return "<div class=\"scroll\">\n" + std::string(table_html) + "</div>\n";
}

}  // namespace sm::report
