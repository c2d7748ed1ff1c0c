// The decode matrices (total, per request, tokens per joule), the prefill lines and the table of
// every measurement.
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

std::string cell_note(const DecodeCell& c) {
  std::vector<std::string> parts;
  if (!c.error.empty()) parts.push_back(c.error);
  for (const auto& w : c.warnings) parts.push_back(w);
  return join(parts, "; ");
}

// Fills `heat` with each value's log position between the smallest and largest of the matrix.
void set_heat(Matrix& m) {
  double lo = 0, hi = 0;
  bool any = false;
  for (const auto& row : m.cells)
    for (const auto& cell : row)
      if (cell.value_num && *cell.value_num > 0) {
        lo = any ? std::min(lo, *cell.value_num) : *cell.value_num;
        hi = any ? std::max(hi, *cell.value_num) : *cell.value_num;
        any = true;
      }
  if (!any) return;
  for (auto& row : m.cells)
    for (auto& cell : row)
      if (cell.value_num && *cell.value_num > 0)
        cell.heat = hi > lo ? std::log(*cell.value_num / lo) / std::log(hi / lo) : 1.0;
}


// The tokens-per-joule matrix's cell: valid cells only; GPU power under the value.
void set_efficiency(MatrixCell& cell, const DecodeCell& c) {
  if (c.status != CellStatus::Valid) {
    cell.value = status_label(c.status);
    return;
  }
  const CellTelemetry& t = c.telemetry;
  if (!t.tokens_per_joule) return;  // stays a dash
  cell.value_num = t.tokens_per_joule;
  cell.value = format_tokens_per_joule(t.tokens_per_joule);
  if (t.gpu_power_w) cell.detail = format_power_w(t.gpu_power_w);
  if (!t.throttle.empty() && t.throttle != "ok")
    cell.note = join({cell.note, trf("GPU throttled: {}", throttle_label(t.throttle))}, "; ");
}

Matrix build_matrix(const RunResult& r, MatrixKind kind) {
  Matrix m;
  if (kind == MatrixKind::Total) {
    m.title = tr("Sustained decode");
    m.caption = tr("output tok/s (all requests) · rows are context length, columns are simultaneous requests");
    m.detail_label = tr("TTFT");
    m.detail_name = tr("TTFT (warm prefix)");
  } else if (kind == MatrixKind::PerRequest) {
    m.title = tr("Per request");
    m.caption = tr("tok/s each request sees · rows are context length, columns are simultaneous requests");
    m.detail_label = tr("/token");
    m.detail_name = tr("time between tokens");
  } else {
    m.title = tr("Tokens per joule");
    m.caption = tr("output tokens per joule of GPU energy · rows are context length, columns are simultaneous requests");
    m.detail_name = tr("GPU power");
  }
  m.contexts = matrix_contexts(r);
  m.concurrency = matrix_concurrency(r);
  m.cells.assign(m.contexts.size(), std::vector<MatrixCell>(m.concurrency.size()));
  for (auto& row : m.cells)
    for (auto& cell : row) cell.value = std::string(kDash);
  bool any_projected = false;
  for (const auto& c : r.decode) {
    size_t i = std::lower_bound(m.contexts.begin(), m.contexts.end(), c.context) - m.contexts.begin();
    size_t j = std::lower_bound(m.concurrency.begin(), m.concurrency.end(), c.concurrency) - m.concurrency.begin();
    MatrixCell& cell = m.cells[i][j];
    cell.present = true;
    cell.status = c.status;
    cell.note = cell_note(c);
    if (kind == MatrixKind::Efficiency) {
      set_efficiency(cell, c);
      continue;
    }
    std::optional<double> value = kind == MatrixKind::Total ? c.total_tok_s : c.per_request_tok_s;
    if (has_numbers(c.status) && value) {
      // Per-request tok/s has the total's relative noise (docs/METRICS.md).
      const CellNoise noise = decode_noise(c);
      cell.value_num = value;
      cell.value = format_tok_s_noise(value, noise);
      cell.noisy = noise.shown();
      cell.detail = kind == MatrixKind::Total ? format_latency_ms(c.ttft_ms) : format_gap_ms(c.tbt_ms);
      // An adaptive window that settled early: its total (and per-request rate, scaled with it) is
      // a projection to the full --duration, marked "~" in every printer, with the window's own
      // figure in its note (issue 31 point 4).
      if (total_is_projected(r, c)) {
        cell.value = "~" + cell.value;
        cell.note = join({cell.note, trf("projected to {} from a {} window that measured {} tok/s",
                                         format_duration_s(r.settings.duration_s), format_duration_s(c.measured_s.value_or(0)),
                                         format_tok_s(c.window_tok_s))},
                         "; ");
        any_projected = true;
      }
    } else {
      cell.value = status_label(c.status);
    }
  }
  set_heat(m);
  if (any_projected) m.caption += " · " + tr("~ projected to the full window (adaptive windows, --precision)");
  if (kind == MatrixKind::Total) {
    for (int64_t context : m.contexts) {
      auto p = std::find_if(r.prefill.begin(), r.prefill.end(), [&](const PrefillRow& row) {
        return row.context == context && has_numbers(row.status) && row.ttft_ms;
      });
      m.cold_ttft.push_back(p == r.prefill.end() ? std::string(kDash) : format_latency_ms(p->ttft_ms));
    }
  }
  if (kind == MatrixKind::Efficiency) {
    bool any = std::any_of(m.cells.begin(), m.cells.end(), [](const auto& row) {
      return std::any_of(row.begin(), row.end(), [](const MatrixCell& cell) { return cell.value_num.has_value(); });
    });
    if (!any) m.cells.clear();
  }
  return m;
}

std::vector<PrefillLine> prefill_lines(const RunResult& r) {
  std::vector<PrefillLine> out;
  for (const auto& p : r.prefill) {
    PrefillLine line;
    line.context = p.context;
    line.status = p.status;
    line.context_text = context_label(p.context);
    line.note = p.error;
    if (has_numbers(p.status) && p.prompt_tok_s) {
      line.rate = format_prompt_rate(p.prompt_tok_s);
      // --repeat: the passes' spread, when wide enough to matter (report/cell_noise.h).
      if (const CellNoise noise = prefill_noise(p); noise.shown())
        line.rate += " ± " + format_prompt_rate(*noise.relative() * *p.prompt_tok_s);
      line.rate_tok_s = p.prompt_tok_s;
      line.ttft_ms = p.ttft_ms;
      line.ttft = trf("{} TTFT", format_latency_ms(p.ttft_ms));
    } else {
      line.rate = status_label(p.status);
    }
    out.push_back(std::move(line));
  }
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.context < b.context; });
  return out;
}

std::string dash() { return std::string(kDash); }

Table measurements_table(const RunResult& r) {
  Table t;
  t.header = {tr("Phase"),
              tr("Context"),
              tr("Requests at once"),
              tr("Status"),
              tr("Output tok/s (all requests)"),
              tr("Per request tok/s"),
              tr("TTFT (decode: warm prefix)"),
              tr("Time between tokens"),
              tr("Average active requests"),
              tr("Completed requests"),
              tr("Output tokens"),
              tr("Measured for")};
  t.align = {Align::Left,  Align::Right, Align::Right, Align::Left,  Align::Right, Align::Right,
             Align::Right, Align::Right, Align::Right, Align::Right, Align::Right, Align::Right};
  // Burst cells (--requests) also have latency distributions over their requests.
  const bool burst = r.settings.requests_per_cell > 0;
  if (burst) {
    t.header.push_back(tr("End to end (p50 · p90 · p99)"));
    t.header.push_back(tr("Time per output token (p50 · p90 · p99)"));
    t.align.push_back(Align::Right);
    t.align.push_back(Align::Right);
  }
  auto three = [](std::optional<double> p50, std::optional<double> p90, std::optional<double> p99, auto format) {
    if (!p50) return dash();
    return format(p50) + " · " + format(p90) + " · " + format(p99);
  };
  std::vector<const PrefillRow*> prefill;
  for (const auto& p : r.prefill) prefill.push_back(&p);
  std::stable_sort(prefill.begin(), prefill.end(), [](auto* a, auto* b) { return a->context < b->context; });
  std::vector<MeasurementSource> sources;
  for (const PrefillRow* p : prefill) {
    bool numbers = has_numbers(p->status);
    sources.push_back({&p->telemetry, nullptr, numbers});
    t.rows.push_back({{tr("Prefill"), format_tokens(p->context), "1", status_label(p->status),
                       numbers ? format_tok_s(p->prompt_tok_s) : dash(), dash(),
                       numbers ? format_latency_ms(p->ttft_ms) : dash(), dash(), dash(),
                       p->status == CellStatus::Valid ? "1" : dash(), dash(), dash()},
                      p->status});
    t.rows.back().cells.resize(t.header.size(), dash());
  }
  std::vector<const DecodeCell*> decode;
  for (const auto& c : r.decode) decode.push_back(&c);
  std::stable_sort(decode.begin(), decode.end(), [](auto* a, auto* b) {
    return a->context != b->context ? a->context < b->context : a->concurrency < b->concurrency;
  });
  for (const DecodeCell* c : decode) {
    sources.push_back({&c->telemetry, c, has_numbers(c->status)});
    if (!has_numbers(c->status)) {
      TableRow row{{burst ? tr("Burst decode") : tr("Sustained decode"), format_tokens(c->context), fmt::format("{}", c->concurrency),
                    status_label(c->status)},
                   c->status};
      row.cells.resize(t.header.size(), dash());
      t.rows.push_back(std::move(row));
      continue;
    }
    t.rows.push_back({{burst ? tr("Burst decode") : tr("Sustained decode"), format_tokens(c->context), fmt::format("{}", c->concurrency),
                       status_label(c->status), format_tok_s_noise_always(c->total_tok_s, decode_noise(*c)),
                       format_tok_s_noise_always(c->per_request_tok_s, decode_noise(*c)),
                       format_latency_ms(c->ttft_ms), format_gap_ms(c->tbt_ms), format_active(c->avg_active),
                       format_count(c->completed), format_count(c->output_tokens),
                       format_window_s(c->measured_s) + (!c->settled ? "" : *c->settled ? tr(" (settled)") : tr(" (cap)"))},
                      c->status});
    if (burst) {
      t.rows.back().cells.push_back(three(c->e2e_ms, c->e2e_p90_ms, c->e2e_p99_ms, format_latency_ms));
      t.rows.back().cells.push_back(three(c->tpot_ms, c->tpot_p90_ms, c->tpot_p99_ms, format_gap_ms));
    }
  }
  append_telemetry_columns(t, sources);
  return t;
}

}  // namespace sm::report::section
