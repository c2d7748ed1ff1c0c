#include "report/telemetry_model.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <fmt/format.h>
#include <map>

#include "core/units.h"
#include "report/cell_format.h"
#include "report/report_sections.h"
#include "report/translate.h"
#include "telemetry/window_summary.h"

namespace sm::report {

namespace {

bool any_figure(const CellTelemetry& t) {
  return t.gpu_power_w || t.gpu_energy_j || t.tokens_per_joule || t.gpu_sm_clock_mhz || t.gpu_temp_max_c ||
         !t.throttle.empty() || t.host_cpu_util_pct || t.server_waiting_max || t.server_kv_usage_max ||
         t.server_preemptions;
}

// A column of the All-measurements table: its title and a row's value (nullopt: not measured).
struct TelemetryColumn {
  std::string_view title;
  std::optional<std::string> (*value)(const MeasurementSource&);
};

template <class T>
std::optional<std::string> shown(const std::optional<T>& v, std::string (*format)(std::optional<T>)) {
  if (!v) return std::nullopt;
  return format(v);
}

std::string count_text(std::optional<int64_t> v) { return format_count(v); }
std::string one_decimal(std::optional<double> v) { return v ? fmt::format("{:.1f}", *v) : std::string(kDash); }
std::string share_text(std::optional<double> v) {
  return v ? format_percent(*v * 100) : std::string(kDash);
}

constexpr std::array<TelemetryColumn, 10> kColumns = {{
    {tr_noop("GPU power"), [](const MeasurementSource& s) { return shown(s.telemetry->gpu_power_w, format_power_w); }},
    {tr_noop("SM clock"), [](const MeasurementSource& s) { return shown(s.telemetry->gpu_sm_clock_mhz, format_clock_mhz); }},
    {tr_noop("GPU temperature"), [](const MeasurementSource& s) { return shown(s.telemetry->gpu_temp_max_c, format_temp_c); }},
    {tr_noop("Throttle"),
     [](const MeasurementSource& s) -> std::optional<std::string> {
       if (s.telemetry->throttle.empty()) return std::nullopt;
       return throttle_label(s.telemetry->throttle);
     }},
    {tr_noop("Tokens per joule"),
     [](const MeasurementSource& s) { return shown(s.telemetry->tokens_per_joule, format_tokens_per_joule); }},
    {tr_noop("Host CPU"), [](const MeasurementSource& s) { return shown(s.telemetry->host_cpu_util_pct, format_percent); }},
    {tr_noop("Server running"),
     [](const MeasurementSource& s) -> std::optional<std::string> {
       if (!s.cell) return std::nullopt;
       return shown(s.cell->server_running_mean, one_decimal);
     }},
    {tr_noop("Server waiting (max)"),
     [](const MeasurementSource& s) { return shown(s.telemetry->server_waiting_max, count_text); }},
    {tr_noop("KV cache (max)"), [](const MeasurementSource& s) { return shown(s.telemetry->server_kv_usage_max, share_text); }},
    {tr_noop("Preemptions"), [](const MeasurementSource& s) { return shown(s.telemetry->server_preemptions, count_text); }},
}};

// Verdicts in the order findings name them, most serious first as docs/METRICS.md ranks them;
// others follow, sorted.
constexpr std::array<std::string_view, 4> kThrottleOrder = {"thermal", "hw_slowdown", "power_capped",
                                                            "clocks_below_max"};

std::string verdict_words(std::string_view verdict) {
  if (verdict == "hw_slowdown") return tr("hardware slowdown");
  if (verdict == "thermal") return tr("thermal");
  if (verdict == "power_capped") return tr("power capped");
  if (verdict == "clocks_below_max") return tr("clocks below max");
  std::string label = throttle_label(verdict);
  if (!label.empty()) label[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(label[0])));
  return label;
}

// Every prefill row and decode cell with its telemetry, named as findings name them, in report
// order (rows by context, then cells by context and concurrency).
struct NamedMeasurement {
  std::string name;
  const CellTelemetry* telemetry;
  bool has_numbers;
};

std::vector<NamedMeasurement> named_measurements(const RunResult& r) {
  std::vector<const PrefillRow*> prefill;
  for (const auto& p : r.prefill) prefill.push_back(&p);
  std::stable_sort(prefill.begin(), prefill.end(), [](auto* a, auto* b) { return a->context < b->context; });
  std::vector<const DecodeCell*> decode;
  for (const auto& c : r.decode) decode.push_back(&c);
  std::stable_sort(decode.begin(), decode.end(), [](auto* a, auto* b) {
    return a->context != b->context ? a->context < b->context : a->concurrency < b->concurrency;
  });
  std::vector<NamedMeasurement> out;
  for (const PrefillRow* p : prefill)
    out.push_back({trf("Prefill {}", format_tokens(p->context)), &p->telemetry, has_numbers(p->status)});
  for (const DecodeCell* c : decode)
    out.push_back({trf("Decode {}", cell_name(c->context, c->concurrency)), &c->telemetry, has_numbers(c->status)});
  return out;
}

// The rows and cells that have a throttle verdict, as findings name them, in report order.
std::vector<std::pair<std::string, std::string>> verdicts(const RunResult& r) {
  std::vector<std::pair<std::string, std::string>> out;  // name, verdict
  for (auto& m : named_measurements(r))
    if (!m.telemetry->throttle.empty()) out.push_back({std::move(m.name), m.telemetry->throttle});
  return out;
}

// One value for all GPUs when they agree ("350 W", "350 W each"), else each GPU's.
std::string per_gpu(const std::vector<TelemetryGpu>& gpus, const auto& text_of) {
  std::vector<std::string> values;
  for (const auto& g : gpus) values.push_back(text_of(g));
  if (std::all_of(values.begin(), values.end(), [](const std::string& v) { return v.empty(); })) return "";
  if (std::all_of(values.begin(), values.end(), [&](const std::string& v) { return v == values.front(); }))
    return gpus.size() > 1 ? trf("{} each", values.front()) : values.front();
  std::vector<std::string> labelled;
  for (size_t i = 0; i < gpus.size(); ++i)
    labelled.push_back(trf("GPU {}: {}", gpus[i].index, values[i].empty() ? std::string(kDash) : values[i]));
  return section::join(labelled, ", ");
}

// Sets `label` to `value` in `group`: in place when the fact is there, else before the first of
// `before` that is, else at the end.
void set_fact(FactGroup& group, const std::string& label, const std::string& value,
              const std::vector<std::string>& before) {
  if (value.empty()) return;
  for (auto& f : group.facts)
    if (f.label == label) {
      f.value = value;
      return;
    }
  auto at = std::find_if(group.facts.begin(), group.facts.end(), [&](const Fact& f) {
    return std::find(before.begin(), before.end(), f.label) != before.end();
  });
  group.facts.insert(at, Fact{label, value});
}

FactGroup& group_named(std::vector<FactGroup>& groups, std::string_view id, std::string_view title) {
  for (auto& g : groups)
    if (g.id == id) return g;
  groups.push_back(FactGroup{std::string(id), std::string(title), {}});
  return groups.back();
}

// The GPUs the cells' figures are of: the server's, where they were found.
std::vector<TelemetryGpu> server_telemetry_gpus(const TelemetryInfo& t) {
  if (t.server_gpus_source.empty()) return t.gpus;
  std::vector<TelemetryGpu> out;
  for (const auto& g : t.gpus)
    if (std::find(t.server_gpus.begin(), t.server_gpus.end(), g.index) != t.server_gpus.end()) out.push_back(g);
  return out;
}

// "GPU 3 of 8 (the driver lists the server's process 4242 on GPU 3)".
std::string server_gpus_text(const TelemetryInfo& t) {
  std::vector<std::string> indices;
  for (int i : t.server_gpus) indices.push_back(std::to_string(i));
  const std::string listed = section::join(indices, ", ");
  const std::string which = t.server_gpus.empty()              ? tr("none")
                            : t.server_gpus_source == "all"    ? tr("all")
                            : t.server_gpus.size() > 1         ? trf("GPUs {}", listed)
                                                               : trf("GPU {}", listed);
  return trf("{} of {} ({})", which, t.gpus.size(), t.server_gpus_detail);
}

// Each GPU's mean power and hottest reading over the valid decode cells, with its worst verdict,
// where the cells have per-GPU figures (the server uses several GPUs): one hot or idle GPU shows.
std::string per_gpu_decode_text(const RunResult& r) {
  struct Sum {
    double power_sum = 0;
    int power_n = 0;
    std::optional<double> temp_max;
    std::string worst;
  };
  std::map<int, Sum> by_gpu;
  for (const auto& c : r.decode) {
    if (c.status != CellStatus::Valid) continue;
    for (const auto& g : c.telemetry.per_gpu) {
      Sum& s = by_gpu[g.index];
      if (g.power_w) {
        s.power_sum += *g.power_w;
        ++s.power_n;
      }
      if (g.temp_max_c) s.temp_max = std::max(s.temp_max.value_or(*g.temp_max_c), *g.temp_max_c);
      if (!g.throttle.empty() && g.throttle != "ok") {
        auto rank = [](const std::string& v) {
          auto it = std::find(kThrottleOrder.begin(), kThrottleOrder.end(), v);
          return it - kThrottleOrder.begin();
        };
        if (s.worst.empty() || rank(g.throttle) < rank(s.worst)) s.worst = g.throttle;
      }
    }
  }
  std::vector<std::string> parts;
  for (const auto& [index, s] : by_gpu) {
    std::vector<std::string> figures;
    if (s.power_n > 0) figures.push_back(format_power_w(s.power_sum / s.power_n));
    if (s.temp_max) figures.push_back(trf("{} max", format_temp_c(s.temp_max)));
    if (!s.worst.empty()) figures.push_back(throttle_label(s.worst));
    parts.push_back(trf("GPU {}: {}", index, figures.empty() ? std::string(kDash) : section::join(figures, ", ")));
  }
  return section::join(parts, "; ");
}

std::string sampled_text(const TelemetryInfo& t) {
  std::vector<std::string> periodic;
  if (!t.gpu_source.empty()) periodic.push_back(t.gpu_source == "nvml" ? "GPU (NVML)" : "GPU (" + t.gpu_source + ")");
  if (t.host) periodic.push_back(tr("host CPU"));
  std::vector<std::string> parts;
  if (!periodic.empty())
    parts.push_back(trf("{} every {}", section::join(periodic, tr(" and ")), format_duration_s(t.interval_s)));
  if (t.server) parts.push_back(tr("server metrics"));
  if (parts.empty()) parts.push_back(tr("nothing"));
  if (!t.series_file.empty()) parts.push_back(trf("series in {}", t.series_file));
  return section::join(parts, "; ");
}

}  // namespace

bool has_cell_telemetry(const RunResult& r) {
  for (const auto& p : r.prefill)
    if (any_figure(p.telemetry)) return true;
  for (const auto& c : r.decode)
    if (any_figure(c.telemetry) || c.server_running_mean || c.server_waiting_mean) return true;
  return false;
}

void append_telemetry_columns(Table& table, const std::vector<MeasurementSource>& sources) {
  for (const TelemetryColumn& column : kColumns) {
    std::vector<std::optional<std::string>> values;
    bool any = false;
    for (const auto& s : sources) {
      values.push_back(s.telemetry && s.ran ? column.value(s) : std::nullopt);
      any = any || values.back().has_value();
    }
    if (!any) continue;
    table.header.push_back(tr(column.title));
    table.align.push_back(column.title == "Throttle" ? Align::Left : Align::Right);
    for (size_t i = 0; i < table.rows.size() && i < values.size(); ++i)
      table.rows[i].cells.push_back(values[i].value_or(std::string(kDash)));
  }
}

std::vector<Finding> telemetry_notes(const RunResult& r) {
  std::vector<Finding> out;
  if (!r.telemetry) return out;
  const TelemetryInfo& t = *r.telemetry;
  if (t.gpu_source.empty()) {
    std::string why = t.gpu_unavailable.empty() ? tr("no reason was recorded") : t.gpu_unavailable;
    while (!why.empty() && (why.back() == '.' || why.back() == ' ')) why.pop_back();
    out.push_back({Severity::Info, trf("No GPU telemetry (power, clocks, tokens per joule): {}.", why)});
  }
  if (t.client_side_only)
    out.push_back({Severity::Info, tr("GPU and host telemetry is of the client's machine; the server ran elsewhere.")});
  return out;
}

std::vector<Finding> gpu_idle_findings(const RunResult& r) {
  std::vector<Finding> out;
  if (!r.telemetry || r.telemetry->gpu_source.empty() || r.telemetry->client_side_only) return out;
  // Below kIdleUtilPct a window's GPU did essentially nothing: seen on an H200 as 0–2% while
  // llama.cpp compiled its Vulkan pipelines in the first prefill row, against 50–77% in every
  // decode window of the same run (docs/performance.md, "On a GPU machine"). Such a window has no
  // power, energy or tokens per joule (telemetry/window_summary.h).
  std::vector<NamedMeasurement> sampled;
  for (auto& m : named_measurements(r))
    if (m.has_numbers && m.telemetry->gpu_util_pct) sampled.push_back(std::move(m));
  std::vector<const NamedMeasurement*> idle;
  for (const auto& m : sampled)
    if (*m.telemetry->gpu_util_pct < kIdleUtilPct) idle.push_back(&m);
  if (idle.empty()) return out;
  if (idle.size() == sampled.size() && sampled.size() > 1) {
    out.push_back({Severity::Warning,
                   trf("The GPU was idle in all {} measurements it was sampled in (utilisation below {:.0f}%): the server "
                       "did not run on it, so these numbers are not this GPU's, and they have no power or tokens per "
                       "joule. Check how the server was started (layers offloaded to the GPU, the device it uses, "
                       "--server-gpus).",
                       sampled.size(), kIdleUtilPct)});
    return out;
  }
  for (const NamedMeasurement* m : idle) {
    const CellTelemetry& t = *m->telemetry;
    out.push_back({Severity::Warning,
                   trf("{}: the GPU was idle during this measurement (utilisation {:.0f}%{}): its time went elsewhere "
                       "(work the engine does once, such as compiling kernels, or its CPU side); measure it again.",
                       m->name, *t.gpu_util_pct,
                       t.gpu_sm_clock_mhz ? trf(", SM clock {}", format_clock_mhz(t.gpu_sm_clock_mhz)) : std::string())});
  }
  return out;
}

std::optional<Finding> throttle_finding(const RunResult& r) {
  std::map<std::string, std::vector<std::string>> by_verdict;
  size_t count = 0;
  for (const auto& [name, verdict] : verdicts(r)) {
    if (verdict == "ok") continue;
    by_verdict[verdict].push_back(name);
    ++count;
  }
  if (by_verdict.empty()) return std::nullopt;
  std::vector<std::string> order(kThrottleOrder.begin(), kThrottleOrder.end());
  for (const auto& [verdict, names] : by_verdict)
    if (std::find(order.begin(), order.end(), verdict) == order.end()) order.push_back(verdict);
  std::vector<std::string> groups;
  for (const auto& verdict : order)
    if (auto it = by_verdict.find(verdict); it != by_verdict.end())
      groups.push_back(fmt::format("{} ({})", verdict_words(verdict), section::join(it->second, ", ")));
  return Finding{Severity::Warning,
                 count == 1 ? trf("GPU throttled in {} measurement, which ran below the GPU's full speed: {}.", count,
                                  section::join(groups, "; "))
                            : trf("GPU throttled in {} measurements, which ran below the GPU's full speed: {}.", count,
                                  section::join(groups, "; "))};
}

std::optional<std::string> throttle_check(const RunResult& r) {
  auto all = verdicts(r);
  if (all.empty()) return std::nullopt;
  if (!std::all_of(all.begin(), all.end(), [](const auto& v) { return v.second == "ok"; })) return std::nullopt;
  return tr("The GPU was not throttled in any measurement (power cap, temperature, hardware slowdown or clocks below "
            "their maximum).");
}

void add_telemetry_facts(std::vector<FactGroup>& groups, const RunResult& r) {
  if (!r.telemetry) return;
  const TelemetryInfo& t = *r.telemetry;
  set_fact(group_named(groups, "run", tr("Run")), tr("Telemetry"), sampled_text(t),
           {tr("Target"), tr("Started"), tr("Finished"), tr("Run id")});
  const std::vector<TelemetryGpu> gpus = server_telemetry_gpus(t);
  if (gpus.empty()) return;
  FactGroup& g =
      t.client_side_only ? group_named(groups, "client", tr("Client")) : group_named(groups, "hardware", tr("Hardware"));
  const std::vector<std::string> tail = {tr("Kernel"), tr("Source")};
  if (!t.server_gpus_source.empty() && t.gpus.size() > 1)
    set_fact(g, tr("Server's GPUs"), server_gpus_text(t), tail);
  set_fact(g, tr("Per-GPU decode"), per_gpu_decode_text(r), tail);
  set_fact(g, tr("Power limit"), per_gpu(gpus, [](const TelemetryGpu& x) {
             return x.power_limit_w ? format_power_w(x.power_limit_w) : std::string();
           }), tail);
  set_fact(g, tr("Max SM clock"), per_gpu(gpus, [](const TelemetryGpu& x) {
             return x.sm_clock_max_mhz ? format_clock_mhz(x.sm_clock_max_mhz) : std::string();
           }), tail);
  set_fact(g, tr("Max memory clock"), per_gpu(gpus, [](const TelemetryGpu& x) {
             return x.mem_clock_max_mhz ? format_clock_mhz(x.mem_clock_max_mhz) : std::string();
           }), tail);
  set_fact(g, tr("PCIe"), per_gpu(gpus, [](const TelemetryGpu& x) { return x.pcie; }), tail);
}

std::vector<Definition> telemetry_definitions(const RunResult& r) {
  if (!r.telemetry && !has_cell_telemetry(r)) return {};
  return {
      {tr("GPU power"), tr("Mean board power over the window (a prefill row: over its request), summed over the server's "
                           "GPUs; none where they were idle (utilisation under 5%).")},
      {tr("SM clock"), tr("Mean streaming-multiprocessor clock over the window and the GPUs.")},
      {tr("GPU temperature"), tr("The hottest GPU reading in the window.")},
      {tr("Throttle"),
       tr("Why the GPU held its clocks down during the window, from the share of samples with each NVML clocks-event "
       "reason, most serious first: thermal (too hot), hardware slowdown (the board protecting itself: power brake, "
       "power supply, temperature sensor), power capped (running at its power limit: common under full load), "
       "clocks below max (busy, yet well below their maximum clock for none of those reasons), else OK. "
       "Thresholds: docs/METRICS.md, Telemetry.")},
      {tr("Tokens per joule"), tr("Output tokens in the window ÷ GPU energy in the window (the GPUs' energy counter; "
                                  "power × time where it is missing); a prefill row: prompt tokens ÷ the energy of its "
                                  "request. Higher is more efficient.")},
      {tr("Host CPU"), tr("Mean CPU use of the machine speedmatrix ran on, over the window.")},
      {tr("Server running, waiting, KV cache, preemptions"),
       tr("The server's own metrics over the window: mean requests running, most requests queued at once, highest "
          "KV-cache use, requests preempted.")},
  };
}

}  // namespace sm::report
