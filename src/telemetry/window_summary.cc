#include "telemetry/window_summary.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <vector>

#include "core/clock.h"

namespace sm {

namespace {

struct Point {
  int64_t t_ns;
  double v;
};

// The series as a piecewise-linear function of time, held at its first and last values beyond
// its ends.
double value_at(const std::vector<Point>& pts, int64_t t_ns) {
  if (t_ns <= pts.front().t_ns) return pts.front().v;
  if (t_ns >= pts.back().t_ns) return pts.back().v;
  auto it = std::lower_bound(pts.begin(), pts.end(), t_ns, [](const Point& p, int64_t t) { return p.t_ns < t; });
  const Point& hi = *it;
  const Point& lo = *(it - 1);
  if (hi.t_ns == lo.t_ns) return hi.v;
  const double f = static_cast<double>(t_ns - lo.t_ns) / static_cast<double>(hi.t_ns - lo.t_ns);
  return lo.v + f * (hi.v - lo.v);
}

// ∫ v dt over [b, e], in value × seconds.
double integral(const std::vector<Point>& pts, int64_t b, int64_t e) {
  std::vector<int64_t> ts{b};
  for (const auto& p : pts)
    if (p.t_ns > b && p.t_ns < e) ts.push_back(p.t_ns);
  ts.push_back(e);
  double sum = 0;
  for (size_t i = 1; i < ts.size(); ++i)
    sum += 0.5 * (value_at(pts, ts[i - 1]) + value_at(pts, ts[i])) * static_cast<double>(ts[i] - ts[i - 1]) / kNsPerSD;
  return sum;
}

template <class Sample>
std::vector<Point> points(std::span<const Sample> samples, const std::function<std::optional<double>(const Sample&)>& f) {
  std::vector<Point> pts;
  for (const auto& s : samples)
    if (auto v = f(s)) pts.push_back({s.t_ns, *v});
  return pts;
}

// The samples a window reads: those inside it, or, for a window that falls between two samples,
// the two around it. Only samples close to the window count at all.
template <class Sample>
std::span<const Sample> near_window(std::span<const Sample> all, int64_t b, int64_t e, int64_t slack_ns) {
  auto first = std::lower_bound(all.begin(), all.end(), b - slack_ns,
                                [](const Sample& s, int64_t t) { return s.t_ns < t; });
  auto last = std::upper_bound(all.begin(), all.end(), e + slack_ns,
                               [](int64_t t, const Sample& s) { return t < s.t_ns; });
  return {first, last};
}

template <class Sample>
std::span<const Sample> inside_or_around(std::span<const Sample> near, int64_t b, int64_t e) {
  auto first = std::lower_bound(near.begin(), near.end(), b, [](const Sample& s, int64_t t) { return s.t_ns < t; });
  auto last = std::upper_bound(near.begin(), near.end(), e, [](int64_t t, const Sample& s) { return t < s.t_ns; });
  if (first != last) return {first, last};
  // None inside: the one before and the one after.
  auto lo = first == near.begin() ? first : first - 1;
  auto hi = last == near.end() ? last : last + 1;
  return {lo, hi};
}

std::optional<double> time_mean(const std::vector<Point>& pts, int64_t b, int64_t e) {
  if (pts.empty() || e <= b) return std::nullopt;
  return integral(pts, b, e) / (static_cast<double>(e - b) / kNsPerSD);
}

std::optional<double> max_of(const std::vector<Point>& pts) {
  if (pts.empty()) return std::nullopt;
  double m = pts.front().v;
  for (const auto& p : pts) m = std::max(m, p.v);
  return m;
}

// A counter's increase over [b, e] (nullopt when it went backwards: a restart).
std::optional<double> counter_delta(const std::vector<Point>& pts, int64_t b, int64_t e) {
  if (pts.empty()) return std::nullopt;
  const double d = value_at(pts, e) - value_at(pts, b);
  if (d < 0) return std::nullopt;
  return d;
}

std::optional<double> sum_over_gpus(const GpuSample& s, std::optional<double> GpuReading::*field) {
  double sum = 0;
  bool any = false;
  for (const auto& g : s.gpus)
    if (g.*field) {
      sum += *(g.*field);
      any = true;
    }
  return any ? std::optional<double>(sum) : std::nullopt;
}

std::optional<double> mean_over_gpus(const GpuSample& s, std::optional<double> GpuReading::*field) {
  double sum = 0;
  int n = 0;
  for (const auto& g : s.gpus)
    if (g.*field) {
      sum += *(g.*field);
      ++n;
    }
  return n > 0 ? std::optional<double>(sum / n) : std::nullopt;
}

// GPU energy over the window: each GPU's counter where every GPU has one, else ∫ power dt.
std::optional<double> gpu_energy_j(std::span<const GpuSample> near, int64_t b, int64_t e) {
  std::map<int, std::vector<Point>> counters;
  bool every_reading_has_counter = !near.empty();
  for (const auto& s : near)
    for (const auto& g : s.gpus) {
      if (!g.energy_j) every_reading_has_counter = false;
      else counters[g.index].push_back({s.t_ns, *g.energy_j});
    }
  if (every_reading_has_counter && !counters.empty()) {
    double sum = 0;
    for (const auto& [index, pts] : counters) {
      auto d = counter_delta(pts, b, e);
      if (!d) return std::nullopt;
      sum += *d;
    }
    return sum;
  }
  auto power = points<GpuSample>(near, [](const GpuSample& s) { return sum_over_gpus(s, &GpuReading::power_w); });
  if (power.empty() || e <= b) return std::nullopt;
  return integral(power, b, e);
}

}  // namespace

namespace {

struct ThrottleCounts {
  int64_t readings = 0, thermal = 0, hw = 0, power = 0;
  double clock_sum = 0, util_sum = 0, max_sum = 0;
  int64_t clock_n = 0, util_n = 0, max_n = 0;
};

std::string verdict_of(const ThrottleCounts& c) {
  if (c.readings == 0 && c.clock_n == 0) return "";
  auto applies = [&](int64_t n) {
    return c.readings > 0 && static_cast<double>(n) >= kThrottleReasonShare * static_cast<double>(c.readings);
  };
  if (applies(c.thermal)) return std::string(kThrottleThermal);
  if (applies(c.hw)) return std::string(kThrottleHwSlowdown);
  if (applies(c.power)) return std::string(kThrottlePowerCapped);
  const bool busy = c.util_n > 0 && c.util_sum / static_cast<double>(c.util_n) >= kBusyUtilPct;
  if (busy && c.clock_n > 0 && c.max_n == c.clock_n && c.clock_sum < kClocksBelowMaxShare * c.max_sum)
    return std::string(kThrottleClocksBelowMax);
  return c.readings > 0 ? std::string(kThrottleOk) : "";
}

// Most serious first; "" (nothing known) last.
int severity(std::string_view verdict) {
  for (int i = 0; std::string_view v : {kThrottleThermal, kThrottleHwSlowdown, kThrottlePowerCapped,
                                        kThrottleClocksBelowMax, kThrottleOk}) {
    if (verdict == v) return i;
    ++i;
  }
  return 100;
}

}  // namespace

std::string throttle_verdict(std::span<const GpuSample> samples, std::span<const GpuStaticInfo> gpus) {
  std::map<int, ThrottleCounts> per_gpu;
  for (const auto& s : samples)
    for (const auto& g : s.gpus) {
      ThrottleCounts& c = per_gpu[g.index];
      if (g.sm_clock_mhz) {
        c.clock_sum += *g.sm_clock_mhz;
        ++c.clock_n;
        for (const auto& info : gpus)
          if (info.index == g.index && info.sm_clock_max_mhz) {
            c.max_sum += *info.sm_clock_max_mhz;
            ++c.max_n;
          }
      }
      if (g.util_pct) {
        c.util_sum += *g.util_pct;
        ++c.util_n;
      }
      if (!g.clocks_event_reasons) continue;
      ++c.readings;
      const uint64_t bits = *g.clocks_event_reasons;
      if (bits & (clocks_event::kSwThermalSlowdown | clocks_event::kHwThermalSlowdown)) ++c.thermal;
      if (bits & (clocks_event::kHwSlowdown | clocks_event::kHwPowerBrakeSlowdown)) ++c.hw;
      if (bits & clocks_event::kSwPowerCap) ++c.power;
    }
  std::string worst;
  for (const auto& [index, counts] : per_gpu) {
    std::string v = verdict_of(counts);
    if (severity(v) < severity(worst)) worst = std::move(v);
  }
  return worst;
}

namespace {

// The GPU figures of a window from its samples (already narrowed to the GPUs that count).
GpuWindowFigures gpu_figures(std::span<const GpuSample> near, int64_t b, int64_t e, std::span<const GpuStaticInfo> gpus) {
  GpuWindowFigures f;
  auto power = points<GpuSample>(near, [](const GpuSample& s) { return sum_over_gpus(s, &GpuReading::power_w); });
  f.power_w = time_mean(power, b, e);
  f.energy_j = gpu_energy_j(near, b, e);
  auto clock = points<GpuSample>(near, [](const GpuSample& s) { return mean_over_gpus(s, &GpuReading::sm_clock_mhz); });
  f.sm_clock_mhz = time_mean(clock, b, e);
  // Utilisation only from samples inside the window, and at least two: NVML's figure is the
  // busy share of its own last sample period, so readings from around a short window would
  // describe what ran before or after it.
  double util_sum = 0;
  int64_t util_n = 0;
  for (const auto& s : near)
    if (s.t_ns >= b && s.t_ns <= e)
      if (auto u = mean_over_gpus(s, &GpuReading::util_pct)) {
        util_sum += *u;
        ++util_n;
      }
  if (util_n >= 2) f.util_pct = util_sum / static_cast<double>(util_n);
  auto around = inside_or_around(near, b, e);
  auto temp = points<GpuSample>(around, [](const GpuSample& s) -> std::optional<double> {
    std::optional<double> m;
    for (const auto& g : s.gpus)
      if (g.temp_c) m = std::max(m.value_or(*g.temp_c), *g.temp_c);
    return m;
  });
  f.temp_max_c = max_of(temp);
  f.throttle = throttle_verdict(around, gpus);
  return f;
}

// The samples with only the readings of `keep` (a GPU index set).
std::vector<GpuSample> only_gpus(std::span<const GpuSample> samples, std::span<const int> keep) {
  std::vector<GpuSample> out;
  out.reserve(samples.size());
  for (const auto& s : samples) {
    GpuSample kept{s.t_ns, {}};
    for (const auto& g : s.gpus)
      if (std::find(keep.begin(), keep.end(), g.index) != keep.end()) kept.gpus.push_back(g);
    out.push_back(std::move(kept));
  }
  return out;
}

// Speculative decoding over [b, e]: the counters' differences, and the mean accepted length
// (1 + accepted ÷ drafts where drafts are counted, else SGLang's gauge averaged over the window).
// Nothing where no draft token was proposed in it (a server that does not speculate).
void add_speculation(std::span<const ServerSample> server_near, int64_t b, int64_t e, CellTelemetry& t) {
  auto delta = [&](auto field) -> std::optional<int64_t> {
    auto values = points<ServerSample>(server_near, field);
    if (auto d = counter_delta(values, b, e)) return static_cast<int64_t>(std::llround(*d));
    return std::nullopt;
  };
  const auto drafted = delta([](const ServerSample& s) { return s.server.spec_draft_tokens_total; });
  if (drafted && *drafted > 0) {
    t.spec_draft_tokens = drafted;
    t.spec_accepted_tokens = delta([](const ServerSample& s) { return s.server.spec_accepted_tokens_total; });
    t.spec_drafts = delta([](const ServerSample& s) { return s.server.spec_drafts_total; });
    if (t.spec_drafts && *t.spec_drafts > 0 && t.spec_accepted_tokens)
      t.spec_accept_length = 1.0 + static_cast<double>(*t.spec_accepted_tokens) / static_cast<double>(*t.spec_drafts);
  }
  if (!t.spec_accept_length) {
    auto gauge = points<ServerSample>(inside_or_around(server_near, b, e),
                                      [](const ServerSample& s) { return s.server.spec_accept_length; });
    t.spec_accept_length = time_mean(gauge, b, e);
  }
}

}  // namespace

CellTelemetry summarize_window(const TelemetrySeries& series, int64_t b, int64_t e, std::optional<int64_t> tokens,
                               const WindowSummaryOptions& options) {
  CellTelemetry t;
  if (e <= b) return t;
  // Samples further than this from the window say nothing about it (the sampler was stopped).
  const int64_t slack_ns = std::max<int64_t>(2 * 1'000'000'000LL, static_cast<int64_t>(4 * series.interval_s * kNsPerSD));

  if (options.gpu) {
    auto near_all = near_window(std::span<const GpuSample>(series.gpu), b, e, slack_ns);
    std::vector<GpuSample> narrowed;
    if (!options.server_gpus.empty()) narrowed = only_gpus(near_all, options.server_gpus);
    std::span<const GpuSample> near = options.server_gpus.empty() ? near_all : std::span<const GpuSample>(narrowed);
    if (!near.empty()) {
      const GpuWindowFigures f = gpu_figures(near, b, e, options.gpus);
      t.gpu_util_pct = f.util_pct;
      t.gpu_sm_clock_mhz = f.sm_clock_mhz;
      t.gpu_temp_max_c = f.temp_max_c;
      t.throttle = f.throttle;
      // An idle GPU's draw is not the server's cost (a CPU-served run on a GPU machine).
      if (!(f.util_pct && *f.util_pct < kIdleUtilPct)) {
        t.gpu_power_w = f.power_w;
        t.gpu_energy_j = f.energy_j;
        if (t.gpu_energy_j && *t.gpu_energy_j > 0 && tokens)
          t.tokens_per_joule = static_cast<double>(*tokens) / *t.gpu_energy_j;
      }
      // Each GPU's own figures, where more than one counts.
      std::vector<int> indices;
      for (const auto& s : near)
        for (const auto& g : s.gpus)
          if (std::find(indices.begin(), indices.end(), g.index) == indices.end()) indices.push_back(g.index);
      std::sort(indices.begin(), indices.end());
      if (indices.size() > 1)
        for (int index : indices) {
          const int one[] = {index};
          const auto mine = only_gpus(near, one);
          GpuWindowFigures g = gpu_figures(mine, b, e, options.gpus);
          g.index = index;
          t.per_gpu.push_back(std::move(g));
        }
    }
  }

  auto host_near = near_window(std::span<const HostSample>(series.host), b, e, slack_ns);
  auto util = points<HostSample>(host_near, [](const HostSample& s) { return s.host.cpu_util_pct; });
  t.host_cpu_util_pct = time_mean(util, b, e);
  auto other = points<HostSample>(host_near, [](const HostSample& s) { return s.host.other_cpu_util_pct; });
  t.host_cpu_other_pct = time_mean(other, b, e);
  auto package = points<HostSample>(host_near, [](const HostSample& s) { return s.host.package_energy_j; });
  // Only where the counter was read on both sides of the window: no extrapolation past its ends.
  if (!package.empty() && package.front().t_ns <= b && package.back().t_ns >= e)
    t.host_energy_j = counter_delta(package, b, e);

  auto server_near = near_window(std::span<const ServerSample>(series.server), b, e, slack_ns);
  if (!server_near.empty()) {
    auto around = inside_or_around(server_near, b, e);
    auto waiting = points<ServerSample>(around, [](const ServerSample& s) -> std::optional<double> {
      return s.server.waiting ? std::optional<double>(static_cast<double>(*s.server.waiting)) : std::nullopt;
    });
    if (auto m = max_of(waiting)) t.server_waiting_max = static_cast<int64_t>(std::llround(*m));
    auto kv = points<ServerSample>(around, [](const ServerSample& s) { return s.server.kv_usage; });
    t.server_kv_usage_max = max_of(kv);
    auto preemptions = points<ServerSample>(server_near, [](const ServerSample& s) { return s.server.preemptions_total; });
    if (auto d = counter_delta(preemptions, b, e)) t.server_preemptions = static_cast<int64_t>(std::llround(*d));
    add_speculation(server_near, b, e, t);
  }
  return t;
}

IdlePower idle_power(const TelemetrySeries& series, std::span<const int> server_gpus) {
  IdlePower out;
  auto outside_windows = [&](int64_t t_ns) {
    for (const auto& w : series.windows)
      if (t_ns >= w.begin_ns && t_ns <= w.end_ns) return false;
    return true;
  };
  auto counts = [&](int index) {
    return server_gpus.empty() || std::find(server_gpus.begin(), server_gpus.end(), index) != server_gpus.end();
  };
  std::vector<double> gpu;
  for (const auto& s : series.gpu) {
    if (!outside_windows(s.t_ns)) continue;
    double power = 0;
    bool whole = false, idle = true;
    for (const auto& g : s.gpus) {
      if (!counts(g.index)) continue;
      if (!g.power_w || !g.util_pct) {
        whole = false;
        break;
      }
      whole = true;
      power += *g.power_w;
      if (*g.util_pct >= kIdleUtilPct) idle = false;
    }
    if (whole && idle) gpu.push_back(power);
  }
  std::vector<double> host;
  for (size_t i = 1; i < series.host.size(); ++i) {
    const HostSample& a = series.host[i - 1];
    const HostSample& b = series.host[i];
    if (!a.host.package_energy_j || !b.host.package_energy_j || b.t_ns <= a.t_ns) continue;
    if (!outside_windows(a.t_ns) || !outside_windows(b.t_ns)) continue;
    if (!b.host.cpu_util_pct || *b.host.cpu_util_pct >= kHostIdleCpuPct) continue;
    const double d = *b.host.package_energy_j - *a.host.package_energy_j;
    if (d < 0) continue;
    host.push_back(d / (static_cast<double>(b.t_ns - a.t_ns) / kNsPerSD));
  }
  auto median = [](std::vector<double>& v) -> std::optional<double> {
    if (v.empty()) return std::nullopt;
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
  };
  out.gpu_samples = static_cast<int64_t>(gpu.size());
  out.gpu_w = median(gpu);
  out.host_samples = static_cast<int64_t>(host.size());
  out.host_w = median(host);
  return out;
}

}  // namespace sm
