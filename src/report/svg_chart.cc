#include "report/svg_chart.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include "report/html_escape.h"

namespace sm::report {

namespace {

// The drawing box (SVG user units). Text is sized for this box shown 480–1000 px wide.
constexpr double kWidth = 560;
constexpr double kHeight = 290;
constexpr double kLeft = 60;
constexpr double kRightWithAxis = 58;
constexpr double kRightPlain = 18;
constexpr double kTop = 30;
constexpr double kBottom = 46;
constexpr int kYTicks = 5;

struct Scale {
  double lo = 0;
  double hi = 1;
  double px_lo = 0;
  double px_hi = 1;
  double operator()(double v) const { return hi > lo ? px_lo + (v - lo) / (hi - lo) * (px_hi - px_lo) : (px_lo + px_hi) / 2; }
};

double y_max(const LineChart& c, bool right) {
  double m = 0;
  for (const auto& s : c.series)
    if (s.right_axis == right)
      for (const auto& p : s.points) m = std::max(m, p.y);
  return m;
}

// One point's marker, centred on (x, y), its tooltip inside.
std::string marker_svg(Marker marker, double x, double y, bool hollow, const std::string& tooltip) {
  const std::string cls = hollow ? " class=\"hollow\"" : "";
  const std::string title = "<title>" + html_escape(tooltip) + "</title>";
  switch (marker) {
    case Marker::Circle: break;
    case Marker::Square:
      return fmt::format("<rect{} x=\"{}\" y=\"{}\" width=\"7.0\" height=\"7.0\">{}</rect>\n", cls, svg_number(x - 3.5),
                         svg_number(y - 3.5), title);
    case Marker::Diamond:
      return fmt::format("<polygon{} points=\"{},{} {},{} {},{} {},{}\">{}</polygon>\n", cls, svg_number(x), svg_number(y - 4.5),
                         svg_number(x + 4.5), svg_number(y), svg_number(x), svg_number(y + 4.5), svg_number(x - 4.5), svg_number(y),
                         title);
    case Marker::Triangle:
      return fmt::format("<polygon{} points=\"{},{} {},{} {},{}\">{}</polygon>\n", cls, svg_number(x), svg_number(y - 4.5),
                         svg_number(x + 4.2), svg_number(y + 3.5), svg_number(x - 4.2), svg_number(y + 3.5), title);
  }
  return fmt::format("<circle{} cx=\"{}\" cy=\"{}\" r=\"3.5\">{}</circle>\n", cls, svg_number(x), svg_number(y), title);
}

}  // namespace

std::string compact_number(double v) {
  double a = std::abs(v);
  if (a >= 1e6) return fmt::format("{:g}M", std::round(v / 1e5) / 10);
  if (a >= 1e3) return fmt::format("{:g}K", std::round(v / 1e2) / 10);
  if (a >= 10 || v == std::round(v)) return fmt::format("{:g}", std::round(v));
  return fmt::format("{:g}", std::round(v * 10) / 10);
}

double nice_step(double max, int count) {
  if (!(max > 0) || count < 1) return 1;
  double raw = max / count;
  double mag = std::pow(10.0, std::floor(std::log10(raw)));
  for (double f : {1.0, 2.0, 2.5, 5.0, 10.0})
    if (f * mag >= raw) return f * mag;
  return 10 * mag;
}

std::string render_svg(const LineChart& c) {
  auto x_format = c.x_format ? c.x_format : [](double v) { return fmt::format("{:g}", v); };
  auto y_format = c.y_format ? c.y_format : compact_number;
  bool right = !c.y2_label.empty() && !c.y_log10;
  const bool scaled_right = right && c.y2_scale > 0;
  double plot_right = kWidth - (right ? kRightWithAxis : kRightPlain);
  double plot_bottom = kHeight - kBottom;

  auto tx = [&](double v) { return c.x_log2 ? std::log2(std::max(v, 1e-9)) : v; };
  std::vector<double> xs = c.x_ticks;
  for (const auto& s : c.series)
    for (const auto& p : s.points) xs.push_back(p.x);
  if (c.x_log2) xs.erase(std::remove_if(xs.begin(), xs.end(), [](double v) { return v <= 0; }), xs.end());
  Scale sx{0, 1, kLeft + 12, plot_right - 12};
  if (!xs.empty()) {
    sx.lo = tx(*std::min_element(xs.begin(), xs.end()));
    sx.hi = tx(*std::max_element(xs.begin(), xs.end()));
  }
  // Y scales and their ticks: linear from zero (both axes with the same number of ticks, so one
  // set of gridlines serves both), or log10 over the decades the points span (one axis).
  auto ty = [&](double v) { return c.y_log10 ? std::log10(v) : v; };
  auto drawn = [&](const ChartPoint& p) { return (!c.x_log2 || p.x > 0) && (!c.y_log10 || p.y > 0); };
  Scale sy{0, 1, plot_bottom, kTop}, sy2 = sy;
  std::vector<double> ticks_l, ticks_r;
  if (c.y_log10) {
    double lo = 0, hi = 0;
    bool any = false;
    for (const auto& s : c.series)
      for (const auto& p : s.points)
        if (drawn(p)) {
          lo = any ? std::min(lo, p.y) : p.y;
          hi = any ? std::max(hi, p.y) : p.y;
          any = true;
        }
    const int lo_decade = any ? static_cast<int>(std::floor(std::log10(lo) + 1e-9)) : 0;
    const int hi_decade = std::max(lo_decade + 1, any ? static_cast<int>(std::ceil(std::log10(hi) - 1e-9)) : 1);
    sy.lo = lo_decade;
    sy.hi = hi_decade;
    for (int k = lo_decade; k <= hi_decade; ++k) ticks_l.push_back(std::pow(10.0, k));
  } else {
    const double step_l = nice_step(y_max(c, false), kYTicks);
    const double step_r = scaled_right ? step_l * c.y2_scale : nice_step(y_max(c, true), kYTicks);
    auto ticks_top = [&](double max, double step) { return std::max(step, std::ceil(max / step - 1e-9) * step); };
    const int lines_l = static_cast<int>(std::lround(ticks_top(y_max(c, false), step_l) / step_l));
    const int lines_r = static_cast<int>(std::lround(ticks_top(y_max(c, true), step_r) / step_r));
    const int lines = right && !scaled_right ? std::max(lines_l, lines_r) : lines_l;
    sy.hi = step_l * lines;
    sy2.hi = step_r * lines;
    for (int i = 0; i <= lines; ++i) {
      ticks_l.push_back(step_l * i);
      ticks_r.push_back(step_r * i);
    }
  }

  std::string out = fmt::format(
      "<svg class=\"chart\" viewBox=\"0 0 {} {}\" role=\"img\" aria-label=\"{}\" "
      "xmlns=\"http://www.w3.org/2000/svg\">\n",
      kWidth, kHeight, html_escape(c.title));
  // Gridlines and y ticks.
  for (size_t i = 0; i < ticks_l.size(); ++i) {
    double y = sy(ty(ticks_l[i]));
    out += fmt::format("<line class=\"grid{}\" x1=\"{}\" x2=\"{}\" y1=\"{}\" y2=\"{}\"/>\n", c.y_log10 ? " decade" : "",
                       svg_number(kLeft), svg_number(plot_right), svg_number(y), svg_number(y));
    out += fmt::format("<text class=\"tick\" x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>\n", svg_number(kLeft - 6),
                       svg_number(y + 4), html_escape(y_format(ticks_l[i])));
    if (right)
      out += fmt::format("<text class=\"tick\" x=\"{}\" y=\"{}\" text-anchor=\"start\">{}</text>\n",
                         svg_number(plot_right + 6), svg_number(y + 4), html_escape(y_format(ticks_r[i])));
  }
  // X ticks.
  for (double t : c.x_ticks) {
    if (c.x_log2 && t <= 0) continue;
    double x = sx(tx(t));
    out += fmt::format("<line class=\"grid\" x1=\"{}\" x2=\"{}\" y1=\"{}\" y2=\"{}\"/>\n", svg_number(x), svg_number(x), svg_number(kTop),
                       svg_number(plot_bottom));
    out += fmt::format("<text class=\"tick\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n", svg_number(x),
                       svg_number(plot_bottom + 17), html_escape(x_format(t)));
  }
  out += fmt::format("<line class=\"axis\" x1=\"{}\" x2=\"{}\" y1=\"{}\" y2=\"{}\"/>\n", svg_number(kLeft), svg_number(plot_right),
                     svg_number(plot_bottom), svg_number(plot_bottom));
  // Axis labels.
  out += fmt::format("<text class=\"label\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n",
                     svg_number((kLeft + plot_right) / 2), svg_number(kHeight - 8), html_escape(c.x_label));
  // Y axis names sit above their axes, level, so they never collide with the tick labels.
  out += fmt::format("<text class=\"label\" x=\"{}\" y=\"{}\" text-anchor=\"start\">{}</text>\n", svg_number(4),
                     svg_number(kTop - 14), html_escape(c.y_label));
  if (right)
    out += fmt::format("<text class=\"label\" x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>\n",
                       svg_number(kWidth - 4), svg_number(kTop - 14), html_escape(c.y2_label));
  // Series.
  for (const auto& s : c.series) {
    const Scale& y_scale = s.right_axis && !c.y_log10 ? sy2 : sy;
    std::string path;
    const ChartPoint* last = nullptr;
    for (const auto& p : s.points) {
      if (!drawn(p)) continue;
      path += fmt::format("{}{} {}", path.empty() ? "M" : " L", svg_number(sx(tx(p.x))), svg_number(y_scale(ty(p.y))));
      last = &p;
    }
    std::string cls = fmt::format("series c{}{}{}", s.color % 8, s.dashed ? " dashed" : "", s.reference ? " reference" : "");
    out += fmt::format("<g class=\"{}\">\n", cls);
    if (!path.empty()) out += fmt::format("<path d=\"{}\"/>\n", path);
    for (const auto& p : s.points) {
      if (!drawn(p) || s.reference) continue;
      out += marker_svg(s.marker, sx(tx(p.x)), y_scale(ty(p.y)), p.hollow, p.tooltip);
    }
    if (last && !s.end_label.empty())  // above the last point, ending at it
      out += fmt::format("<text class=\"series-label\" x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>\n",
                         svg_number(sx(tx(last->x))), svg_number(y_scale(ty(last->y)) - 5), html_escape(s.end_label));
    out += "</g>\n";
  }
  return out + "</svg>\n";
}

std::string render_legend(const LineChart& c) {
  std::string out = "<ul class=\"legend\">";
  for (size_t i = 0; i < c.series.size(); ++i) {
    const ChartSeries& s = c.series[i];
    if (std::any_of(c.series.begin(), c.series.begin() + static_cast<std::ptrdiff_t>(i),
                    [&](const ChartSeries& o) { return o.name == s.name && o.color == s.color; }))
      continue;
    out += fmt::format("<li><span class=\"swatch c{}{}{}\"></span>{}</li>", s.color % 8, s.dashed ? " dashed" : "",
                       s.reference ? " reference" : "", html_escape(s.name));
  }
  return out + "</ul>\n";
}

std::string svg_number(double v) { return fmt::format("{:.1f}", v); }

}  // namespace sm::report
