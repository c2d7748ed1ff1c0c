#include "report/mixed_prefill_chart.h"

#include <algorithm>

#include "core/units.h"
#include "report/cell_format.h"
#include "report/translate.h"

namespace sm::report {

namespace {

// A vertical reference line at x from 0 to `top`.
ChartSeries marker_line(double x, double top, std::string label, int color) {
  ChartSeries s;
  s.name = label;
  s.points = {{x, 0, label}, {x, top, label}};
  s.color = color;
  s.reference = true;
  s.end_label = std::move(label);
  return s;
}

}  // namespace

LineChart mixed_prefill_chart(const MixedPrefillRow& row) {
  LineChart chart;
  chart.title = trf("Mixed prefill: {} prompt among {} decoding requests", format_tokens(row.context),
                    row.background_streams);
  chart.x_label = tr("seconds into the window");
  chart.x_log2 = false;
  chart.y_label = tr("the streams' total tok/s");
  if (row.timeline_tok_s.empty()) return chart;
  ChartSeries rate;
  rate.name = tr("streams' total tok/s");
  double top = 0;
  for (size_t i = 0; i < row.timeline_tok_s.size(); ++i) {
    const double mid_s = (static_cast<double>(i) + 0.5) * row.timeline_bin_s;
    top = std::max(top, row.timeline_tok_s[i]);
    rate.points.push_back({mid_s, row.timeline_tok_s[i],
                           trf("{} s: {} tok/s", format_fixed(mid_s, 1), format_tok_s(row.timeline_tok_s[i]))});
  }
  chart.series.push_back(std::move(rate));
  const double span_s = static_cast<double>(row.timeline_tok_s.size()) * row.timeline_bin_s;
  const double step = nice_step(span_s, 5);
  for (double x = 0; x <= span_s + 1e-9; x += step) chart.x_ticks.push_back(x);
  chart.series.push_back(marker_line(row.sent_at_s, top, tr("long prompt sent"), 1));
  if (row.first_token_at_s) chart.series.push_back(marker_line(*row.first_token_at_s, top, tr("its first token"), 2));
  return chart;
}

}  // namespace sm::report
