#include "telemetry/telemetry_series.h"

#include <fmt/format.h>

#include <fstream>
#include <nlohmann/json.hpp>

namespace sm {

namespace {

using nlohmann::json;

template <class T>
void put(json& j, const char* key, const std::optional<T>& v) {
  if (v) j[key] = *v;
}

template <class T>
void get(const json& j, const char* key, std::optional<T>& v) {
  if (auto it = j.find(key); it != j.end() && !it->is_null()) v = it->get<T>();
}

json gpu_json(const GpuReading& g) {
  json j = {{"index", g.index}};
  put(j, "power_w", g.power_w);
  put(j, "energy_j", g.energy_j);
  put(j, "sm_clock_mhz", g.sm_clock_mhz);
  put(j, "mem_clock_mhz", g.mem_clock_mhz);
  put(j, "temp_c", g.temp_c);
  put(j, "util_pct", g.util_pct);
  put(j, "mem_util_pct", g.mem_util_pct);
  put(j, "mem_used_bytes", g.mem_used_bytes);
  put(j, "pstate", g.pstate);
  put(j, "clocks_event_reasons", g.clocks_event_reasons);
  put(j, "pcie_gen", g.pcie_gen);
  put(j, "pcie_width", g.pcie_width);
  put(j, "power_limit_w", g.power_limit_w);
  return j;
}

GpuReading gpu_from(const json& j) {
  GpuReading g;
  g.index = j.value("index", 0);
  get(j, "power_w", g.power_w);
  get(j, "energy_j", g.energy_j);
  get(j, "sm_clock_mhz", g.sm_clock_mhz);
  get(j, "mem_clock_mhz", g.mem_clock_mhz);
  get(j, "temp_c", g.temp_c);
  get(j, "util_pct", g.util_pct);
  get(j, "mem_util_pct", g.mem_util_pct);
  get(j, "mem_used_bytes", g.mem_used_bytes);
  get(j, "pstate", g.pstate);
  get(j, "clocks_event_reasons", g.clocks_event_reasons);
  get(j, "pcie_gen", g.pcie_gen);
  get(j, "pcie_width", g.pcie_width);
  get(j, "power_limit_w", g.power_limit_w);
  return g;
}

}  // namespace

std::string start_line(int64_t t_ns, int64_t unix_ms, double interval_s) {
  return json{{"kind", "start"}, {"t_ns", t_ns}, {"unix_ms", unix_ms}, {"interval_s", interval_s}}.dump();
}

std::string to_jsonl(const GpuSample& s) {
  json gpus = json::array();
  for (const auto& g : s.gpus) gpus.push_back(gpu_json(g));
  return json{{"kind", "gpu"}, {"t_ns", s.t_ns}, {"gpus", gpus}}.dump();
}

std::string to_jsonl(const HostSample& s) {
  json j = {{"kind", "host"}, {"t_ns", s.t_ns}};
  put(j, "cpu_util_pct", s.host.cpu_util_pct);
  put(j, "other_cpu_util_pct", s.host.other_cpu_util_pct);
  put(j, "cpu_freq_mhz", s.host.cpu_freq_mhz);
  put(j, "cpu_temp_c", s.host.cpu_temp_c);
  put(j, "package_energy_j", s.host.package_energy_j);
  return j.dump();
}

std::string to_jsonl(const ServerSample& s) {
  const ServerReading& r = s.server;
  json j = {{"kind", "server"}, {"t_ns", s.t_ns}};
  put(j, "running", r.running);
  put(j, "waiting", r.waiting);
  put(j, "kv_usage", r.kv_usage);
  put(j, "preemptions_total", r.preemptions_total);
  put(j, "prefix_cache_queries_total", r.prefix_cache_queries_total);
  put(j, "prefix_cache_hits_total", r.prefix_cache_hits_total);
  put(j, "prefix_cache_hit_rate", r.prefix_cache_hit_rate);
  put(j, "spec_draft_tokens_total", r.spec_draft_tokens_total);
  put(j, "spec_accepted_tokens_total", r.spec_accepted_tokens_total);
  put(j, "spec_drafts_total", r.spec_drafts_total);
  put(j, "spec_accept_length", r.spec_accept_length);
  return j.dump();
}

std::string to_jsonl(const WindowMark& w) {
  json j = {{"kind", "window"}, {"t_ns", w.begin_ns}, {"end_ns", w.end_ns},
            {"phase", w.phase}, {"context", w.context}, {"concurrency", w.concurrency}};
  if (w.tokens) j[w.phase == "prefill" ? "prompt_tokens" : "output_tokens"] = *w.tokens;
  return j.dump();
}

Result<void> parse_jsonl_line(std::string_view line, TelemetrySeries& series) {
  while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.remove_suffix(1);
  if (line.empty()) return {};
  json j = json::parse(line, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return fail(ErrorCode::Protocol, "telemetry line is not a JSON object");
  try {
    const std::string kind = j.value("kind", "");
    const int64_t t_ns = j.value("t_ns", int64_t{0});
    if (kind == "start") {
      series.start_t_ns = t_ns;
      series.start_unix_ms = j.value("unix_ms", int64_t{0});
      series.interval_s = j.value("interval_s", 0.5);
    } else if (kind == "gpu") {
      GpuSample s{t_ns, {}};
      if (auto it = j.find("gpus"); it != j.end() && it->is_array())
        for (const auto& g : *it) s.gpus.push_back(gpu_from(g));
      series.gpu.push_back(std::move(s));
    } else if (kind == "host") {
      HostSample s{t_ns, {}};
      get(j, "cpu_util_pct", s.host.cpu_util_pct);
      get(j, "other_cpu_util_pct", s.host.other_cpu_util_pct);
      get(j, "cpu_freq_mhz", s.host.cpu_freq_mhz);
      get(j, "cpu_temp_c", s.host.cpu_temp_c);
      get(j, "package_energy_j", s.host.package_energy_j);
      series.host.push_back(s);
    } else if (kind == "server") {
      ServerSample s{t_ns, {}};
      ServerReading& r = s.server;
      get(j, "running", r.running);
      get(j, "waiting", r.waiting);
      get(j, "kv_usage", r.kv_usage);
      get(j, "preemptions_total", r.preemptions_total);
      get(j, "prefix_cache_queries_total", r.prefix_cache_queries_total);
      get(j, "prefix_cache_hits_total", r.prefix_cache_hits_total);
      get(j, "prefix_cache_hit_rate", r.prefix_cache_hit_rate);
      get(j, "spec_draft_tokens_total", r.spec_draft_tokens_total);
      get(j, "spec_accepted_tokens_total", r.spec_accepted_tokens_total);
      get(j, "spec_drafts_total", r.spec_drafts_total);
      get(j, "spec_accept_length", r.spec_accept_length);
      series.server.push_back(s);
    } else if (kind == "window") {
      WindowMark w;
      w.begin_ns = t_ns;
      w.end_ns = j.value("end_ns", t_ns);
      w.phase = j.value("phase", "");
      w.context = j.value("context", int64_t{0});
      w.concurrency = j.value("concurrency", int64_t{0});
      get(j, w.phase == "prefill" ? "prompt_tokens" : "output_tokens", w.tokens);
      series.windows.push_back(std::move(w));
    }
  } catch (const json::exception& e) {
    return fail(ErrorCode::Protocol, fmt::format("telemetry line has a field of the wrong type: {}", e.what()));
  }
  return {};
}

Result<TelemetrySeries> read_telemetry_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) return fail(ErrorCode::Io, fmt::format("cannot read {}", path));
  TelemetrySeries series;
  std::string line;
  int64_t line_no = 0;
  std::string pending_error;
  while (std::getline(in, line)) {
    ++line_no;
    // An error is only fatal when more lines follow: the last line may be torn by a kill.
    if (!pending_error.empty()) return fail(ErrorCode::Protocol, pending_error);
    if (auto ok = parse_jsonl_line(line, series); !ok)
      pending_error = fmt::format("{} line {}: {}", path, line_no, ok.error().message);
  }
  return series;
}

}  // namespace sm
