#include "report/telemetry_chart.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <fmt/format.h>
#include <limits>

#include "core/units.h"
#include "report/cell_format.h"
#include "report/translate.h"
#include "report/html_escape.h"
#include "report/report_model.h"
#include "report/svg_chart.h"

namespace sm::report {

namespace {

constexpr double kNsPerS = 1e9;

// One GPU sample reduced to the chart's two lines.
struct Reduced {
  double t_s = 0;
  std::optional<double> power_w;
  std::optional<double> sm_clock_mhz;
};

Reduced reduce(const GpuSample& s, int64_t t0) {
  Reduced r{static_cast<double>(s.t_ns - t0) / kNsPerS, {}, {}};
  double power = 0, clock = 0;
  int powers = 0, clocks = 0;
  for (const auto& g : s.gpus) {
    if (g.power_w) {
      power += *g.power_w;
      ++powers;
    }
    if (g.sm_clock_mhz) {
      clock += *g.sm_clock_mhz;
      ++clocks;
    }
  }
  if (powers) r.power_w = power;
  if (clocks) r.sm_clock_mhz = clock / clocks;
  return r;
}

// Every sample a point, or the mean of each bucket of `bucket_s` seconds (empty buckets skipped;
// the last bucket also takes the sample at its very end).
std::vector<TimelinePoint> line(const std::vector<Reduced>& samples, std::optional<double> Reduced::*field,
                                double bucket_s, int64_t last_bucket) {
  std::vector<TimelinePoint> out;
  if (bucket_s <= 0) {
    for (const auto& s : samples)
      if (s.*field) out.push_back({s.t_s, *(s.*field)});
    return out;
  }
  int64_t bucket = std::numeric_limits<int64_t>::min();
  double sum_t = 0, sum_v = 0;
  int n = 0;
  auto flush = [&]() {
    if (n) out.push_back({sum_t / n, sum_v / n});
    sum_t = sum_v = 0;
    n = 0;
  };
  for (const auto& s : samples) {
    if (!(s.*field)) continue;
    const auto b = std::min(last_bucket, static_cast<int64_t>(std::floor(s.t_s / bucket_s)));
    if (b != bucket) {
      flush();
      bucket = b;
    }
    sum_t += s.t_s;
    sum_v += *(s.*field);
    ++n;
  }
  flush();
  return out;
}

const DecodeCell* find_cell(const RunResult& r, int64_t context, int64_t concurrency) {
  for (const auto& c : r.decode)
    if (c.context == context && c.concurrency == concurrency) return &c;
  return nullptr;
}

const PrefillRow* find_row(const RunResult& r, int64_t context) {
  for (const auto& p : r.prefill)
    if (p.context == context) return &p;
  return nullptr;
}

std::string window_tooltip(const TimelineWindow& w, const WindowMark& mark, const CellTelemetry* t) {
  std::string out = mark.phase == "prefill" ? trf("Prefill {}", format_tokens(mark.context))
                                            : trf("Decode {}", cell_name(mark.context, mark.concurrency));
  out += fmt::format(" · {:.1f} s", w.end_s - w.begin_s);
  if (w.tok_s) out += " · " + format_tok_s(w.tok_s) + (mark.phase == "prefill" ? tr(" prompt tok/s") : std::string(" tok/s"));
  if (t) {
    if (t->gpu_power_w) out += " · " + format_power_w(t->gpu_power_w);
    if (t->gpu_sm_clock_mhz) out += " · " + format_clock_mhz(t->gpu_sm_clock_mhz);
    if (t->tokens_per_joule) out += " · " + format_tokens_per_joule(t->tokens_per_joule) + " tokens/J";
    if (!t->throttle.empty()) out += " · " + throttle_label(t->throttle);
  }
  return out;
}

std::optional<double> power_limit(const TelemetrySeries& series, const RunResult& r) {
  if (r.telemetry && !r.telemetry->gpus.empty()) {
    double sum = 0;
    for (const auto& g : r.telemetry->gpus) {
      if (!g.power_limit_w) return std::nullopt;
      sum += *g.power_limit_w;
    }
    return sum;
  }
  // Older or partial files: the limit the first reading saw.
  if (series.gpu.empty() || series.gpu.front().gpus.empty()) return std::nullopt;
  double sum = 0;
  for (const auto& g : series.gpu.front().gpus) {
    if (!g.power_limit_w) return std::nullopt;
    sum += *g.power_limit_w;
  }
  return sum;
}

std::optional<double> sm_clock_max(const RunResult& r) {
  if (!r.telemetry || r.telemetry->gpus.empty()) return std::nullopt;
  double sum = 0;
  for (const auto& g : r.telemetry->gpus) {
    if (!g.sm_clock_max_mhz) return std::nullopt;
    sum += *g.sm_clock_max_mhz;
  }
  return sum / static_cast<double>(r.telemetry->gpus.size());
}

}  // namespace

Timeline build_timeline(const TelemetrySeries& series, const RunResult& result, size_t max_points) {
  Timeline tl;
  // The time origin: the start line, or the earliest stamp when the file has none.
  int64_t t0 = std::numeric_limits<int64_t>::max();
  int64_t last = std::numeric_limits<int64_t>::min();
  auto see = [&](int64_t t) {
    t0 = std::min(t0, t);
    last = std::max(last, t);
  };
  if (series.start_t_ns != 0) see(series.start_t_ns);
  for (const auto& s : series.gpu) see(s.t_ns);
  for (const auto& w : series.windows) {
    see(w.begin_ns);
    see(std::max(w.begin_ns, w.end_ns));
  }
  if (last < t0) return tl;
  tl.duration_s = static_cast<double>(last - t0) / kNsPerS;

  std::vector<Reduced> samples;
  samples.reserve(series.gpu.size());
  for (const auto& s : series.gpu) {
    samples.push_back(reduce(s, t0));
    tl.gpu_count = std::max(tl.gpu_count, s.gpus.size());
  }
  std::stable_sort(samples.begin(), samples.end(), [](const auto& a, const auto& b) { return a.t_s < b.t_s; });
  const double interval = series.interval_s > 0 ? series.interval_s : 0.5;
  if (max_points > 0 && samples.size() > max_points)
    tl.bucket_s = tl.duration_s / static_cast<double>(max_points);
  tl.gap_s = 3 * std::max(interval, tl.bucket_s);
  const auto last_bucket = static_cast<int64_t>(max_points) - 1;
  if (result.telemetry && result.telemetry->client_side_only) {
    if (!samples.empty())
      tl.notes.push_back(tr("The GPU readings are of the client's machine (the server ran elsewhere), so they are left "
                            "out."));
  } else {
    tl.power_w = line(samples, &Reduced::power_w, tl.bucket_s, last_bucket);
    tl.sm_clock_mhz = line(samples, &Reduced::sm_clock_mhz, tl.bucket_s, last_bucket);
    tl.power_limit_w = power_limit(series, result);
    tl.sm_clock_max_mhz = sm_clock_max(result);
  }
  if (result.resumes > 0)
    tl.notes.push_back(trf(
        "The run was resumed: this is the series of one session ({}); each resumed session wrote its own "
        "telemetry-resume<N>.jsonl.",
        result.telemetry && !result.telemetry->series_file.empty() ? result.telemetry->series_file
                                                                   : "telemetry.jsonl"));

  for (const auto& mark : series.windows) {
    TimelineWindow w;
    w.begin_s = static_cast<double>(mark.begin_ns - t0) / kNsPerS;
    w.end_s = static_cast<double>(std::max(mark.begin_ns, mark.end_ns) - t0) / kNsPerS;
    w.phase = mark.phase;
    const bool prefill = mark.phase == "prefill";
    w.label = prefill ? format_tokens(mark.context) + " prefill" : cell_name(mark.context, mark.concurrency);
    if (mark.tokens && w.end_s > w.begin_s) w.tok_s = static_cast<double>(*mark.tokens) / (w.end_s - w.begin_s);
    const CellTelemetry* t = nullptr;
    if (prefill) {
      if (const PrefillRow* p = find_row(result, mark.context)) t = &p->telemetry;
    } else if (const DecodeCell* c = find_cell(result, mark.context, mark.concurrency)) {
      t = &c->telemetry;
    }
    w.tooltip = window_tooltip(w, mark, t);
    tl.windows.push_back(std::move(w));
  }
  std::stable_sort(tl.windows.begin(), tl.windows.end(),
                   [](const auto& a, const auto& b) { return a.begin_s < b.begin_s; });
  return tl;
}

namespace {

// The drawing box (SVG user units), drawn about 1:1 on a desktop page.
constexpr double kTimelineWidth = 1000;
constexpr double kTimelineLeft = 64;
constexpr double kTimelineRight = 18;
constexpr double kLabelBottom = 82;   // window labels stand on this line
constexpr double kFirstPanelTop = 104;
constexpr double kPanelHeight = 88;
constexpr double kPanelGap = 30;      // room for the next panel's title
constexpr double kLabelMinGap = 12;   // labels closer than this to the previous one are left out
constexpr int kPanelTicks = 4;        // about this many gridlines above zero

double plot_bottom(int panels) { return kFirstPanelTop + panels * kPanelHeight + (panels - 1) * kPanelGap; }
double height(int panels) { return plot_bottom(panels) + 44; }

// Seconds as the axis writes them: "45 s" on short runs, "1:30" or "1:02:30" on longer ones.
std::string time_text(double s, bool clock) {
  auto total = static_cast<int64_t>(std::llround(s));
  if (!clock) return fmt::format("{} s", total);
  if (total >= 3600) return fmt::format("{}:{:02}:{:02}", total / 3600, total / 60 % 60, total % 60);
  return fmt::format("{}:{:02}", total / 60, total % 60);
}

double time_step(double duration) {
  constexpr std::array<double, 16> kSteps = {1,   2,   5,    10,   15,   30,   60,    120,
                                             300, 600, 900, 1800, 3600, 7200, 14400, 28800};
  for (double s : kSteps)
    if (duration / s <= 10) return s;
  return kSteps.back();
}

struct Panel {
  std::string title;
  double top = 0;
  double max = 1;   // the axis top
  double step = 1;  // between gridlines
  double value_y(double v) const { return top + kPanelHeight - std::clamp(v / max, 0.0, 1.0) * kPanelHeight; }
};

Panel make_panel(std::string title, int index, double data_max) {
  Panel p{std::move(title), kFirstPanelTop + index * (kPanelHeight + kPanelGap), 1, 1};
  p.step = nice_step(data_max > 0 ? data_max : 1, kPanelTicks);
  p.max = std::max(p.step, std::ceil(data_max / p.step - 1e-9) * p.step);
  return p;
}

double max_of(const std::vector<TimelinePoint>& points, std::optional<double> reference) {
  double m = reference.value_or(0);
  for (const auto& p : points) m = std::max(m, p.value);
  return m;
}

std::string panel_frame(const Panel& p) {
  std::string out = fmt::format("<text class=\"panel-title\" x=\"{}\" y=\"{}\">{}</text>\n", svg_number(kTimelineLeft),
                                svg_number(p.top - 9), html_escape(p.title));
  const auto lines = static_cast<int>(std::lround(p.max / p.step));
  for (int i = 0; i <= lines; ++i) {
    double y = p.value_y(p.step * i);
    out += fmt::format("<line class=\"{}\" x1=\"{}\" x2=\"{}\" y1=\"{}\" y2=\"{}\"/>\n", i == 0 ? "axis" : "grid",
                       svg_number(kTimelineLeft), svg_number(kTimelineWidth - kTimelineRight), svg_number(y), svg_number(y));
    out += fmt::format("<text class=\"tick\" x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>\n", svg_number(kTimelineLeft - 6),
                       svg_number(y + 4), html_escape(compact_number(p.step * i)));
  }
  return out;
}

std::string reference_line(const Panel& p, double value, const std::string& text, double right) {
  double y = p.value_y(value);
  return fmt::format(
      "<line class=\"ref\" x1=\"{}\" x2=\"{}\" y1=\"{}\" y2=\"{}\"/>\n"
      "<text class=\"ref-label\" x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>\n",
      svg_number(kTimelineLeft), svg_number(right), svg_number(y), svg_number(y), svg_number(right - 2), svg_number(y - 4), html_escape(text));
}

// A polyline broken wherever two points are further apart than `gap_s`.
std::string line_path(const std::vector<TimelinePoint>& points, const Panel& p, double gap_s,
                      const auto& x_of) {
  std::string d;
  double prev = 0;
  for (size_t i = 0; i < points.size(); ++i) {
    bool move = i == 0 || points[i].t_s - prev > gap_s;
    d += fmt::format("{}{} {}", d.empty() ? "M" : move ? " M" : " L", svg_number(x_of(points[i].t_s)),
                     svg_number(p.value_y(points[i].value)));
    prev = points[i].t_s;
  }
  return d;
}

std::string caption_text(const Timeline& t) {
  std::string out =
      tr("Shaded: each measured window, labelled by its cell (context × simultaneous requests) or prefill request; "
         "hover a window for its numbers. Output tok/s is each decode window's output tokens ÷ its length.");
  if (t.gpu_count > 1 && !t.power_w.empty())
    out += trf(" GPU power is the sum over {} GPUs, SM clock their mean.", t.gpu_count);
  if (t.bucket_s > 0) out += fmt::format(" Each point is the mean of {:.1f} s of samples.", t.bucket_s);
  for (const auto& note : t.notes) out += " " + note;
  return out;
}

}  // namespace

std::string render_timeline_html(const Timeline& t) {
  if (t.empty()) return "";
  const double right = kTimelineWidth - kTimelineRight;
  const double span = t.duration_s > 0 ? t.duration_s : 1;
  auto x_of = [&](double s) { return kTimelineLeft + std::clamp(s / span, 0.0, 1.0) * (right - kTimelineLeft); };

  double rate_max = 0;
  for (const auto& w : t.windows)
    if (w.phase != "prefill" && w.tok_s) rate_max = std::max(rate_max, *w.tok_s);
  // A panel for each line there is: no GPU readings, no GPU panels.
  int panels = 0;
  std::optional<Panel> power, clock, rate;
  if (!t.power_w.empty()) power = make_panel(tr("GPU power (W)"), panels++, max_of(t.power_w, t.power_limit_w));
  if (!t.sm_clock_mhz.empty())
    clock = make_panel(tr("SM clock (MHz)"), panels++, max_of(t.sm_clock_mhz, t.sm_clock_max_mhz));
  if (!t.windows.empty()) rate = make_panel(tr("Output tok/s (decode windows)"), panels++, rate_max);
  const double bottom = plot_bottom(panels);
  const bool gpu = power || clock;

  std::string svg = fmt::format(
      "<svg class=\"timeline\" viewBox=\"0 0 {} {}\" role=\"img\" aria-label=\"{}\" xmlns=\"http://www.w3.org/2000/svg\">\n",
      svg_number(kTimelineWidth), svg_number(height(panels)),
      html_escape(gpu ? tr("GPU power, SM clock and output tok/s over the run, with the measured windows marked")
                      : tr("Output tok/s over the run, with the measured windows marked")));

  // Windows: a band across every panel, its two boundaries, and its label above.
  svg += "<g class=\"windows\">\n";
  double last_label = -1e9;
  for (const auto& w : t.windows) {
    const double x1 = x_of(w.begin_s), x2 = x_of(w.end_s);
    const std::string cls = w.phase == "prefill" ? "prefill" : "decode";
    svg += fmt::format(
        "<g class=\"window {}\"><title>{}</title>\n<rect class=\"band\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"/>\n"
        "<line class=\"edge\" x1=\"{}\" x2=\"{}\" y1=\"{}\" y2=\"{}\"/>\n"
        "<line class=\"edge\" x1=\"{}\" x2=\"{}\" y1=\"{}\" y2=\"{}\"/>\n",
        cls, html_escape(w.tooltip), svg_number(x1), svg_number(kLabelBottom), svg_number(std::max(x2 - x1, 0.8)),
        svg_number(bottom - kLabelBottom), svg_number(x1), svg_number(x1), svg_number(kLabelBottom), svg_number(bottom), svg_number(x2), svg_number(x2),
        svg_number(kLabelBottom), svg_number(bottom));
    const double mid = (x1 + x2) / 2;
    if (mid - last_label >= kLabelMinGap) {
      svg += fmt::format(
          "<text class=\"window-label\" x=\"{0}\" y=\"{1}\" transform=\"rotate(-90 {0} {1})\">{2}</text>\n",
          svg_number(mid + 3.5), svg_number(kLabelBottom - 4), html_escape(w.label));
      last_label = mid;
    }
    svg += "</g>\n";
  }
  svg += "</g>\n";

  if (power) {
    svg += panel_frame(*power);
    if (t.power_limit_w)
      svg += reference_line(*power, *t.power_limit_w, trf("power limit {}", format_power_w(t.power_limit_w)), right);
    svg += fmt::format("<g class=\"series c1\"><path d=\"{}\"/></g>\n", line_path(t.power_w, *power, t.gap_s, x_of));
  }
  if (clock) {
    svg += panel_frame(*clock);
    if (t.sm_clock_max_mhz)
      svg += reference_line(*clock, *t.sm_clock_max_mhz, trf("max {}", format_clock_mhz(t.sm_clock_max_mhz)), right);
    svg += fmt::format("<g class=\"series c0\"><path d=\"{}\"/></g>\n",
                       line_path(t.sm_clock_mhz, *clock, t.gap_s, x_of));
  }
  if (rate) {
    svg += panel_frame(*rate) + "<g class=\"series rate c2\">\n";
    for (const auto& w : t.windows) {
      if (w.phase == "prefill" || !w.tok_s) continue;
      svg += fmt::format("<path d=\"M{} {} H{}\"><title>{}</title></path>\n", svg_number(x_of(w.begin_s)),
                         svg_number(rate->value_y(*w.tok_s)), svg_number(x_of(w.end_s)), html_escape(w.tooltip));
    }
    svg += "</g>\n";
  }

  // The time axis under the last panel.
  const double step = time_step(span);
  const bool clock_format = span >= 120;
  for (double s = 0; s <= span + 1e-9; s += step) {
    const double x = x_of(s);
    svg += fmt::format("<line class=\"grid\" x1=\"{0}\" x2=\"{0}\" y1=\"{1}\" y2=\"{2}\"/>\n", svg_number(x),
                       svg_number(bottom), svg_number(bottom + 5));
    svg += fmt::format("<text class=\"tick\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n", svg_number(x),
                       svg_number(bottom + 19), html_escape(time_text(s, clock_format)));
  }
  svg += fmt::format("<text class=\"label\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n",
                     svg_number((kTimelineLeft + right) / 2), svg_number(height(panels) - 6),
                     html_escape(clock_format ? tr("time since the run started (min:s)") : tr("time since the run started")));
  svg += "</svg>\n";

  std::string legend = "<ul class=\"legend\">";
  if (power) legend += "<li><span class=\"swatch c1\"></span>" + html_escape(tr("GPU power")) + "</li>";
  if (clock) legend += "<li><span class=\"swatch c0\"></span>" + html_escape(tr("SM clock")) + "</li>";
  if (rate)
    legend += "<li><span class=\"swatch c2\"></span>" + html_escape(tr("output tok/s of each decode window")) +
              "</li><li><span class=\"swatch window-swatch decode\"></span>" + html_escape(tr("decode window")) +
              "</li><li><span class=\"swatch window-swatch prefill\"></span>" + html_escape(tr("prefill request")) + "</li>";
  if ((power && t.power_limit_w) || (clock && t.sm_clock_max_mhz))
    legend += "<li><span class=\"swatch ref-swatch\"></span>" + html_escape(tr("limit")) + "</li>";
  legend += "</ul>\n";

  return "<figure id=\"telemetry-chart\" class=\"timeline\">\n<figcaption>" +
         html_escape(gpu ? tr("GPU power, SM clock and output tok/s over the run") : tr("Output tok/s over the run")) +
         "</figcaption>\n<p class=\"caption\">" +
         html_escape(caption_text(t)) + "</p>\n<div class=\"scroll\">\n" + svg + "</div>\n" + legend + "</figure>\n";
}

std::string_view timeline_style() {
  return R"css(
figure.timeline { margin: 14px 0; }
figure.timeline .caption { font-size: .85rem; margin: 0 4px 6px; }
svg.timeline { width: 100%; min-width: 760px; height: auto; display: block; font-size: 12px; }
svg.timeline .grid { stroke: var(--line); stroke-width: 1; }
svg.timeline .axis { stroke: var(--muted); stroke-width: 1; }
svg.timeline .tick { fill: var(--muted); }
svg.timeline .label { fill: var(--muted); font-weight: 600; }
svg.timeline .panel-title { fill: var(--fg); font-weight: 600; }
svg.timeline .band { fill: var(--c0); opacity: .07; }
svg.timeline .prefill .band { fill: var(--c4); opacity: .16; }
svg.timeline .edge { stroke: var(--muted); stroke-width: .8; stroke-dasharray: 2 3; opacity: .8; }
svg.timeline .window:hover .band { opacity: .22; }
svg.timeline .window-label { fill: var(--muted); font-size: 10.5px; }
svg.timeline .ref { stroke: var(--muted); stroke-width: 1; stroke-dasharray: 6 4; }
svg.timeline .ref-label { fill: var(--muted); font-size: 10.5px; }
svg.timeline .series path { fill: none; stroke-width: 1.6; stroke-linejoin: round; }
svg.timeline .series.rate path { stroke-width: 3.2; stroke-linecap: butt; }
.swatch.window-swatch { height: 10px; border-radius: 2px; background: var(--c0); opacity: .25; }
.swatch.window-swatch.prefill { background: var(--c4); opacity: .4; }
.swatch.ref-swatch { background: repeating-linear-gradient(90deg, var(--muted) 0 5px, transparent 5px 8px); }
)css";
}

}  // namespace sm::report
