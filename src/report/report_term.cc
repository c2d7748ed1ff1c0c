// The terminal view: the seed page's title, facts, prefill lines and decode matrices, in colour
// when asked, within the given width (matrices split their columns into blocks when needed).
#include <algorithm>
#include <fmt/format.h>

#include "core/units.h"
#include "report/cell_format.h"
#include "report/printers.h"
#include "report/term_text.h"
#include "report/translate.h"

namespace sm::report {

namespace {

constexpr size_t kMinWidth = 40;
constexpr size_t kContextColumn = 7;  // "Context", "248K"
constexpr size_t kTitleColumnMinWidth = 70;

// Items joined by " · ", broken between items; continuation lines start with `indent`. An item
// too long for a line of its own is broken between its words.
std::string wrap_items(const std::vector<std::string>& items, size_t width, std::string_view first,
                       std::string_view indent) {
  std::string out(first);
  size_t col = display_width(first);
  bool line_empty = true;
  auto new_line = [&]() {
    out += "\n" + std::string(indent);
    col = display_width(indent);
    line_empty = true;
  };
  for (const auto& item : items) {
    size_t w = display_width(item);
    if (!line_empty && col + 3 + w > width) new_line();
    if (!line_empty) {
      out += " · ";
      col += 3;
    }
    if (col + w <= width) {
      out += item;
      col += w;
    } else {
      // Word by word.
      size_t start = 0;
      bool first_word = true;
      while (start < item.size()) {
        size_t space = item.find(' ', start);
        std::string word = item.substr(start, space == std::string::npos ? std::string::npos : space - start);
        start = space == std::string::npos ? item.size() : space + 1;
        size_t room = width > display_width(indent) ? width - display_width(indent) : 1;
        for (const auto& piece : split_word(word, room)) {
          size_t ww = display_width(piece);
          if (!line_empty && col + 1 + ww > width) new_line();
          else if (!first_word) {
            out += ' ';
            ++col;
          }
          out += piece;
          col += ww;
          first_word = false;
          line_empty = false;
        }
      }
    }
    line_empty = false;
  }
  return out + "\n";
}

// A shell line broken to fit: comments continue with "#   ", commands end broken lines with " \"
// so the text stays a runnable command.
std::string wrap_shell_line(std::string_view line, size_t width, std::string_view indent) {
  bool comment = line.starts_with("#");
  size_t budget = width - display_width(indent) - (comment ? 0 : 2);
  std::string wrapped = wrap(line, budget, comment ? "#   " : "    ");
  std::string out;
  size_t start = 0;
  while (start < wrapped.size()) {
    size_t nl = wrapped.find('\n', start);
    std::string piece = wrapped.substr(start, nl - start);
    start = nl + 1;
    bool last = start >= wrapped.size();
    out += std::string(indent) + piece + (last || comment ? "" : " \\") + "\n";
  }
  return out;
}

std::string styled_cell(const Ansi& ansi, const MatrixCell& cell, std::string padded, bool detail) {
  if (!cell.present) return ansi.dim(padded);
  switch (cell.status) {
    case CellStatus::Valid:
      if (detail) return ansi.dim(padded);
      return cell.heat ? ansi.heat(*cell.heat, padded) : padded;
    case CellStatus::Interrupted: return detail ? ansi.dim(padded) : ansi.yellow(padded);
    case CellStatus::Error: return ansi.red(padded);
    default: return ansi.dim(padded);
  }
}

// A cell's value, or its status in short; a cell that ran without the figure is a dash.
std::string cell_text(const MatrixCell& cell) {
  if (cell.value_num) return cell.value;
  if (cell.value == kDash) return std::string(kDash);
  return status_short(cell.status);
}

// The total matrix's cold TTFT column: shown when some context has a prefill row.
bool has_cold_ttft(const Matrix& m) {
  return std::any_of(m.cold_ttft.begin(), m.cold_ttft.end(), [](const std::string& t) { return t != kDash; });
}

std::string matrix_text(const Matrix& m, const Ansi& ansi, size_t width) {
  const bool cold = has_cold_ttft(m);
  std::string caption = m.caption + ", " + m.detail_name + " below";
  // Beside the warm TTFTs, the cold one a reader of other tools expects: the prefill row's.
  if (cold) caption += "; cold TTFT: the prefill row of the same context";
  std::string out = ansi.bold(m.title) + "\n" + wrap_block(caption, width, "  ");
  if (m.contexts.empty() || m.concurrency.empty()) return out + "  (no cells)\n";
  size_t cell_w = 8;
  for (const auto& row : m.cells)
    for (const auto& cell : row) {
      std::string shown = cell.value_num ? cell.value : status_short(cell.status);
      cell_w = std::max({cell_w, display_width(shown) + 2, display_width(cell.detail) + 2});
    }
  for (size_t j = 0; j < m.column_labels.size(); ++j) cell_w = std::max(cell_w, display_width(m.column_labels[j]) + 2);
  const std::string cold_head = "cold TTFT";
  size_t cold_w = 0;
  if (cold) {
    cold_w = display_width(cold_head) + 2;
    for (const auto& t : m.cold_ttft) cold_w = std::max(cold_w, display_width(t) + 2);
  }
  size_t room = width > kContextColumn + cold_w ? width - kContextColumn - cold_w : cell_w;
  size_t per_block = std::max<size_t>(1, room / cell_w);
  for (size_t first = 0; first < m.concurrency.size(); first += per_block) {
    size_t last = std::min(m.concurrency.size(), first + per_block);
    std::string head = pad_right("Context", kContextColumn);
    if (cold) head += pad_left(cold_head, cold_w);
    for (size_t j = first; j < last; ++j) head += pad_left(column_heading(m, j), cell_w);
    out += ansi.bold(head) + "\n";
    for (size_t i = 0; i < m.contexts.size(); ++i) {
      std::string values = pad_left(format_tokens(m.contexts[i]), kContextColumn - 1) + " ";
      std::string details = std::string(kContextColumn, ' ');
      if (cold) {
        values += std::string(cold_w, ' ');
        details += ansi.dim(pad_left(m.cold_ttft[i], cold_w));
      }
      size_t detail_end = first;  // one past the last cell with a detail
      for (size_t j = first; j < last; ++j)
        if (!m.cells[i][j].detail.empty()) detail_end = j + 1;
      for (size_t j = first; j < last; ++j) {
        const MatrixCell& cell = m.cells[i][j];
        std::string shown = !cell.present ? std::string(kDash) : cell_text(cell);
        values += styled_cell(ansi, cell, pad_left(shown, cell_w), false);
        if (j < detail_end) details += styled_cell(ansi, cell, pad_left(cell.detail, cell_w), true);
      }
      while (!values.empty() && values.back() == ' ') values.pop_back();
      out += values + "\n";
      if (detail_end > first || (cold && m.cold_ttft[i] != kDash)) out += details + "\n";
    }
    if (last < m.concurrency.size()) out += "\n";
  }
  return out;
}

std::string prefill_text(const ReportModel& m, const Ansi& ansi, size_t width) {
  std::string out = wrap_items({ansi.bold("Prefill"), "prompt tok/s by context length"}, width, "", "  ");
  size_t ctx_w = 0, rate_w = 0, ttft_w = 0;
  for (const auto& p : m.prefill) {
    ctx_w = std::max(ctx_w, display_width(p.context_text));
    rate_w = std::max(rate_w, display_width(p.rate));
    ttft_w = std::max(ttft_w, display_width(p.ttft));
  }
  for (const auto& p : m.prefill) {
    std::string rate = pad_left(p.rate, rate_w);
    if (p.status == CellStatus::Error) rate = ansi.red(rate);
    else if (!has_numbers(p.status)) rate = ansi.dim(rate);
    out += "  " + pad_left(p.context_text, ctx_w) + "  " + rate;
    if (!p.ttft.empty()) out += "  " + ansi.dim(pad_left(p.ttft, ttft_w));
    out += "\n";
  }
  return out;
}

}  // namespace

std::string term_fact_groups(const std::vector<FactGroup>& groups, const Ansi& ansi, size_t width) {
  // Section titles in a column of their own, or on their own line when the screen is narrow.
  const bool title_column = width >= kTitleColumnMinWidth;
  std::string out;
  for (const auto& group : groups) {
    if (group.facts.empty()) continue;
    std::vector<std::string> items;
    for (const auto& f : group.facts) items.push_back(ansi.dim(f.label) + " " + f.value);
    if (title_column)
      out += wrap_items(items, width, ansi.bold(pad_right(group.title, 10)), std::string(10, ' '));
    else
      out += ansi.bold(group.title) + "\n" + wrap_items(items, width, "  ", "  ");
  }
  return out;
}

std::string render_term(const ReportModel& m, const RenderOptions& options) {
  Ansi ansi(options.color);
  size_t width = std::max<size_t>(kMinWidth, static_cast<size_t>(std::max(0, options.width_columns)));
  std::string out;
  out += ansi.dim("Speed test matrix") + "\n";
  out += ansi.bold(m.title) + "\n";
  if (!m.engine_line.empty()) out += m.engine_line + "\n";
  if (!m.matrix_line.empty()) out += wrap(m.matrix_line, width);
  std::vector<std::string> provenance;
  if (!m.by_line.empty()) provenance.push_back(m.by_line);
  provenance.push_back(m.tool_line);
  provenance.push_back(m.kind_label == "Measured" ? ansi.green(m.kind_label) : ansi.yellow(m.kind_label));
  out += wrap_items(provenance, width, "", "");
  out += "\n";

  out += term_fact_groups(m.facts, ansi, width);
  if (!m.launch_command.empty()) {
    out += "\n" + ansi.bold("Launch command") + "\n";
    size_t start = 0;
    while (start <= m.launch_command.size()) {
      size_t nl = m.launch_command.find('\n', start);
      std::string line = m.launch_command.substr(start, nl == std::string::npos ? std::string::npos : nl - start);
      if (!line.empty()) out += ansi.dim(wrap_shell_line(line, width, "  "));
      if (nl == std::string::npos) break;
      start = nl + 1;
    }
  }
  if (!m.prefill.empty()) out += "\n" + prefill_text(m, ansi, width);
  if (!m.decode_total.cells.empty()) {
    out += "\n" + matrix_text(m.decode_total, ansi, width);
    out += "\n" + matrix_text(m.decode_per_request, ansi, width);
    if (!m.decode_efficiency.cells.empty()) out += "\n" + matrix_text(m.decode_efficiency, ansi, width);
    if (!m.capacity.cells.empty()) out += "\n" + matrix_text(m.capacity, ansi, width);
    if (!m.energy.cells.empty()) out += "\n" + matrix_text(m.energy, ansi, width);
    if (!m.capacity_cost.cells.empty()) out += "\n" + matrix_text(m.capacity_cost, ansi, width);
  }
  if (!m.decode_notes.empty()) {
    out += "\n";
    for (const auto& note : m.decode_notes) out += wrap(note, width);
  }
  if (!m.retrieval.rows.empty()) {
    // Context, needle depth, verdict; the answer is in report.html and result.json.
    out += "\n" + ansi.bold(tr("Retrieval check")) + "\n";
    for (const auto& row : m.retrieval.rows) {
      const std::string line = trf("{} (needle at {}): {}", row.cells[0], row.cells[1], row.cells[2]);
      out += "  " + (row.status == CellStatus::Valid ? line : ansi.yellow(line)) + "\n";
    }
  }
  if (!m.mixed_prefill.rows.empty()) {
    // Prompt, streams, TTFT alone and among them, the streams' rate before and during; the rest in report.html.
    out += "\n" + ansi.bold(tr("Mixed prefill")) + "\n";
    for (const auto& row : m.mixed_prefill.rows) {
      std::string line = trf("{} among {}: TTFT {} alone, {} among them ({}); their tok/s {} before, {} during", row.cells[0],
                             row.cells[1], row.cells[2], row.cells[3], row.cells[4], row.cells[5], row.cells[6]);
      if (!row.cells[9].empty()) line += " — " + row.cells[9];
      out += "  " + wrap(row.status == CellStatus::Valid ? line : ansi.yellow(line), width - 2, "    ");
    }
  }
  if (!m.sessions_caption.empty()) {
    // Turn, context, cached share, TTFT, decode rate; the caption and the rest in report.html.
    out += "\n" + ansi.bold(tr("Sessions")) + "\n";
    for (const auto& row : m.sessions.rows) {
      std::string line = trf("turn {}: {} tokens, {} cached, TTFT {} (p90 {}), {} tok/s each", row.cells[0],
                             row.cells[2], row.cells[3], row.cells[4], row.cells[5], row.cells[6]);
      if (!row.cells[7].empty()) line += " — " + trf("{} failed", row.cells[7]);
      out += "  " + wrap(row.status == CellStatus::Valid ? line : ansi.yellow(line), width - 2, "    ");
    }
    if (m.sessions.rows.empty()) out += "  " + wrap(m.sessions_caption, width - 2, "    ");
  }
  if (!m.slo.rows.empty()) {
    // Context, requests at once, TTFT and TPOT at the percentile, goodput; the rest in report.html.
    out += "\n" + ansi.bold(tr("SLO search")) + "\n";
    for (const auto& row : m.slo.rows) {
      std::string line = trf("{}: {} at once, {} {}, {} {}, goodput {} req/s ({} tok/s)", row.cells[0], row.cells[1],
                             m.slo.header[2], row.cells[2], m.slo.header[3], row.cells[3], row.cells[5], row.cells[6]);
      if (!row.cells[8].empty()) line += " — " + row.cells[8];
      out += "  " + wrap(row.status == CellStatus::Valid ? line : ansi.yellow(line), width - 2, "    ");
    }
  }
  out += "\n";
  if (!m.findings.empty()) {
    out += ansi.bold("Warnings") + "\n";
    for (const auto& f : m.findings) {
      std::string mark = f.severity == Severity::Error ? ansi.red("✗") : f.severity == Severity::Warning
                                                                            ? ansi.yellow("!")
                                                                            : ansi.cyan("i");
      std::string text = wrap(f.text, width - 4, "    ");
      out += "  " + mark + " " + text;
    }
  } else if (!m.checks_passed.empty()) {
    out += ansi.green("No warnings.") + "\n";
  }
  if (!m.token_counts.empty()) out += wrap(m.token_counts, width);
  out += "\n" + ansi.dim(wrap(m.footer, width));
  if (!options.details_hint.empty())
    out += ansi.dim(wrap("Every measurement, the charts and the definitions: " + options.details_hint + ".", width));
  return out;
}

}  // namespace sm::report
