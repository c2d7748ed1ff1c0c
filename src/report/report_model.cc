#include "report/report_model.h"

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
#include "report/connection_model.h"
#include "report/telemetry_model.h"

namespace sm::report {

namespace {

// A client is "near its ceiling" when a cell's total reaches this share of the rate the client
// was measured to ingest on its own: above it, a faster server might read as the same number.
constexpr double kClientCeilingShare = 0.5;
// Cached prompt tokens a cold prefill may still report (BOS and template tokens before the nonce).
constexpr int64_t kColdPrefillCachedTokens = 16;

std::string strip_prefix(std::string s, std::string_view prefix) {
  if (s.starts_with(prefix)) s.erase(0, prefix.size());
  return s;
}

void erase_all(std::string& s, std::string_view what) {
  for (size_t at = s.find(what); at != std::string::npos; at = s.find(what)) s.erase(at, what.size());
}

std::string trim(std::string s) {
  while (!s.empty() && s.back() == ' ') s.pop_back();
  while (!s.empty() && s.front() == ' ') s.erase(0, 1);
  return s;
}

// "NVIDIA GeForce RTX 3090" -> "RTX 3090"; "NVIDIA H100 SXM 80 GB" -> "H100 SXM 80GB", so catalog
// names (calc, sim) and the "24GB" the report appends read alike on the site.
std::string short_gpu_name(const std::string& name) {
  std::string s = strip_prefix(strip_prefix(name, "NVIDIA "), "GeForce ");
  for (size_t at = s.find(" GB"); at != std::string::npos; at = s.find(" GB", at)) {
    const bool after_digit = at > 0 && std::isdigit(static_cast<unsigned char>(s[at - 1]));
    const bool word_ends = at + 3 == s.size() || !std::isalnum(static_cast<unsigned char>(s[at + 3]));
    if (after_digit && word_ends)
      s.erase(at, 1);
    else
      ++at;
  }
  return s;
}

// "AMD Ryzen 9 7900X 12-Core Processor" -> "AMD Ryzen 9 7900X";
// "Intel(R) Core(TM) i9-13900K CPU @ 3.00GHz" -> "Intel Core i9-13900K".
std::string short_cpu_name(std::string name) {
  for (std::string_view mark : {"(R)", "(TM)", "(tm)", "(r)"}) erase_all(name, mark);
  if (size_t at = name.find(" @ "); at != std::string::npos) name.resize(at);
  name = trim(name);
  for (std::string_view tail : {" Processor", " CPU"})
    if (name.ends_with(tail)) name.resize(name.size() - tail.size());
  // "... 12-Core" -> "..."
  if (name.ends_with("-Core")) {
    size_t space = name.rfind(' ');
    if (space != std::string::npos) name.resize(space);
  }
  return trim(name);
}

// "cyankiwi/Qwen3.5-4B-AWQ-4bit" -> "Qwen3.5-4B-AWQ-4bit"; "/m/x-Q4_K_M.gguf" -> "x-Q4_K_M".
std::string model_display_name(const EngineInfo& engine) {
  std::string path = engine.model_path;
  while (!path.empty() && path.back() == '/') path.pop_back();
  if (!path.empty()) {
    size_t slash = path.rfind('/');
    std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
    if (base.ends_with(".gguf")) base.resize(base.size() - 5);
    if (!base.empty()) return base;
  }
  if (!engine.model.empty()) return engine.model;
  return "Unknown model";
}

std::string vram_tag(int64_t bytes) {
  std::string gb = format_gb(bytes);
  erase_all(gb, " ");
  return gb;
}

}  // namespace

std::string hardware_display_name(const HardwareInfo& hw) {
  if (hw.source == HardwareSource::Unknown) return std::string(kUnknownHardwareName);
  if (!hw.gpus.empty()) {
    const GpuInfo& first = hw.gpus.front();
    bool same = std::all_of(hw.gpus.begin(), hw.gpus.end(), [&](const GpuInfo& g) { return g.name == first.name; });
    std::string name = short_gpu_name(first.name);
    if (name.empty()) name = "unknown GPU";
    if (first.vram_bytes && name.find("GB") == std::string::npos) name += " " + vram_tag(*first.vram_bytes);
    if (!same) return name + fmt::format(" + {} more GPUs", hw.gpus.size() - 1);
    if (hw.gpus.size() > 1) return fmt::format("{}× {}", hw.gpus.size(), name);
    return name;
  }
  if (!hw.cpu_model.empty()) return short_cpu_name(hw.cpu_model);
  if (!hw.type.empty()) return hw.type;
  return std::string(kUnknownHardwareName);
}

namespace {

std::string kind_display(const std::string& kind) {
  if (kind.empty()) return "Measured";
  return sentence_case(kind);
}

std::vector<int64_t> sorted_unique(std::vector<int64_t> v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

std::vector<int64_t> matrix_contexts(const RunResult& r) {
  std::vector<int64_t> v = r.settings.contexts;
  for (const auto& c : r.decode) v.push_back(c.context);
  return sorted_unique(v);
}

std::vector<int64_t> matrix_concurrency(const RunResult& r) {
  std::vector<int64_t> v = r.settings.concurrency;
  for (const auto& c : r.decode) v.push_back(c.concurrency);
  return sorted_unique(v);
}

std::vector<int64_t> prefill_contexts(const RunResult& r) {
  std::vector<int64_t> v = r.settings.prefill_contexts;
  for (const auto& p : r.prefill) v.push_back(p.context);
  return sorted_unique(v);
}

std::string join(const std::vector<std::string>& parts, std::string_view sep) {
  std::string out;
  for (const auto& p : parts) {
    if (p.empty()) continue;
    if (!out.empty()) out += sep;
    out += p;
  }
  return out;
}

std::string range_text(const std::vector<int64_t>& v, bool tokens) {
  auto f = [&](int64_t x) { return tokens ? format_tokens(x) : fmt::format("{}", x); };
  if (v.empty()) return "";
  if (v.size() == 1) return f(v.front());
  return f(v.front()) + "–" + f(v.back());
}

std::string matrix_line(const RunResult& r) {
  auto contexts = matrix_contexts(r);
  auto conc = matrix_concurrency(r);
  auto prefill = prefill_contexts(r);
  std::vector<std::string> parts;
  if (!contexts.empty() || !conc.empty()) {
    parts.push_back(fmt::format("{} context{} ({}) × {} concurrency level{} ({})", contexts.size(),
                                contexts.size() == 1 ? "" : "s", range_text(contexts, true), conc.size(),
                                conc.size() == 1 ? "" : "s", range_text(conc, false)));
  }
  if (!prefill.empty()) {
    std::vector<std::string> labels;
    for (int64_t p : prefill) labels.push_back(format_tokens(p));
    parts.push_back("prefill at " + join(labels, ", "));
  }
  return join(parts, " · ");
}

void add(std::vector<Fact>& facts, std::string label, std::string value) {
  if (!value.empty()) facts.push_back({std::move(label), std::move(value)});
}

FactGroup hardware_facts(const HardwareInfo& hw) {
  FactGroup g{"hardware", "Hardware", {}};
  add(g.facts, "Type", hw.type);
  if (!hw.gpus.empty()) {
    const GpuInfo& first = hw.gpus.front();
    bool same = std::all_of(hw.gpus.begin(), hw.gpus.end(), [&](const GpuInfo& x) { return x.name == first.name; });
    std::vector<std::string> names;
    if (same) {
      names.push_back(hw.gpus.size() > 1 ? fmt::format("{}× {}", hw.gpus.size(), short_gpu_name(first.name))
                                         : short_gpu_name(first.name));
    } else {
      for (const auto& gpu : hw.gpus) names.push_back(short_gpu_name(gpu.name));
    }
    add(g.facts, hw.gpus.size() > 1 ? "GPUs" : "GPU", join(names, ", "));
    int64_t total = 0;
    bool known = true;
    for (const auto& gpu : hw.gpus) {
      if (gpu.vram_bytes) total += *gpu.vram_bytes;
      else known = false;
    }
    if (known && hw.gpus.size() == 1) add(g.facts, "VRAM", format_gb(total));
    else if (known) add(g.facts, "VRAM", fmt::format("{} in all ({} GPUs)", format_gb(total), hw.gpus.size()));
  }
  if (!hw.cpu_model.empty()) {
    std::string cpu = short_cpu_name(hw.cpu_model);
    if (hw.cpu_cores) cpu += fmt::format(" ({}C)", *hw.cpu_cores);
    add(g.facts, "CPU", cpu);
  }
  if (hw.ram_bytes) add(g.facts, "RAM", format_gb(*hw.ram_bytes));
  add(g.facts, "OS", hw.os);
  if (!hw.gpus.empty()) {
    const GpuInfo& gpu = hw.gpus.front();
    add(g.facts, "Driver", gpu.driver);
    if (gpu.power_limit_w) add(g.facts, "Power limit", fmt::format("{} W", std::llround(*gpu.power_limit_w)));
    add(g.facts, "PCIe", gpu.pcie);
  }
  add(g.facts, "Kernel", hw.kernel);
  if (hw.source == HardwareSource::Declared) add(g.facts, "Source", "declared, not probed: " + hw.source_detail);
  if (hw.source == HardwareSource::Unknown)
    add(g.facts, "Source", "unknown: " + (hw.source_detail.empty() ? "the server ran on another machine" : hw.source_detail));
  return g;
}

// The machine that measured, when it was not the server's.
FactGroup client_facts(const HardwareInfo& hw) {
  FactGroup g = hardware_facts(hw);
  g.id = "client";
  g.title = "Client";
  return g;
}

FactGroup engine_facts(const EngineInfo& e) {
  FactGroup g{"engine", "Engine", {}};
  add(g.facts, "Engine", e.kind);
  if (e.version != "predicted") add(g.facts, "Version", e.version);  // calc's placeholder, not a version
  add(g.facts, "Quantization", e.quantization);
  add(g.facts, "Backend", e.backend);
  add(g.facts, "Build", e.build);
  add(g.facts, "Weights", e.model_path);
  if (e.max_model_len) add(g.facts, "Max model length", format_thousands(*e.max_model_len) + " tokens");
  if (e.kv_capacity_tokens) {
    std::string kv = format_thousands(*e.kv_capacity_tokens) + " tokens";
    if (!e.kv_capacity_source.empty()) kv += " (from " + e.kv_capacity_source + ")";
    add(g.facts, "KV cache", kv);
  }
  if (e.slots) add(g.facts, "Max running requests", format_thousands(*e.slots));
  if (e.prefix_caching) add(g.facts, "Prefix caching", *e.prefix_caching ? "On" : "Off");
  if (!e.forces_output_length) add(g.facts, "Output length", "Not forced (end of sequence cannot be ignored)");
  return g;
}

FactGroup run_facts(const RunResult& r) {
  const RunSettings& s = r.settings;
  FactGroup g{"run", "Run", {}};
  add(g.facts, "Served model", r.engine.model);
  add(g.facts, "Decode test", sentence_case(s.decode_test));
  add(g.facts, "Prefill mode", sentence_case(s.prefill_mode));
  add(g.facts, "Time per measurement", format_duration_s(s.duration_s));
  add(g.facts, "Max output", format_thousands(s.max_output_tokens) + " tokens");
  add(g.facts, "API", s.api == "chat" ? "Chat completions" : sentence_case(s.api));
  add(g.facts, "Temperature", fmt::format("{:g}", s.temperature));
  if (s.seed != 0) add(g.facts, "Prompt seed", fmt::format("{}", s.seed));
  if (s.kv_capacity_override)
    add(g.facts, "KV capacity (given)", format_thousands(*s.kv_capacity_override) + " tokens");
  if (s.max_model_len_override)
    add(g.facts, "Max model length (given)", format_thousands(*s.max_model_len_override) + " tokens");
  if (r.client_ceiling)
    add(g.facts, "Client ceiling",
        fmt::format("{} tok/s over {} streams", format_rate(r.client_ceiling->tokens_per_s),
                    format_thousands(r.client_ceiling->streams)));
  add(g.facts, "Target", r.target_url);
  if (r.kind != "predicted") {  // a prediction has no start or finish
    add(g.facts, "Started", r.started_at);
    add(g.facts, "Finished", r.finished_at);
  }
  add(g.facts, "Run id", r.run_id);
  return g;
}

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

enum class MatrixKind { Total, PerRequest, Efficiency };

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
    cell.note = join({cell.note, "GPU throttled: " + throttle_label(t.throttle)}, "; ");
}

Matrix build_matrix(const RunResult& r, MatrixKind kind) {
  Matrix m;
  if (kind == MatrixKind::Total) {
    m.title = "Sustained decode";
    m.caption = "total tok/s · rows are context length, columns are simultaneous requests";
    m.detail_label = "TTFT";
    m.detail_name = "TTFT";
  } else if (kind == MatrixKind::PerRequest) {
    m.title = "Per request";
    m.caption = "tok/s each request sees · rows are context length, columns are simultaneous requests";
    m.detail_label = "/token";
    m.detail_name = "time between tokens";
  } else {
    m.title = "Tokens per joule";
    m.caption = "output tokens per joule of GPU energy · rows are context length, columns are simultaneous requests";
    m.detail_name = "GPU power";
  }
  m.contexts = matrix_contexts(r);
  m.concurrency = matrix_concurrency(r);
  m.cells.assign(m.contexts.size(), std::vector<MatrixCell>(m.concurrency.size()));
  for (auto& row : m.cells)
    for (auto& cell : row) cell.value = std::string(kDash);
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
      cell.value_num = value;
      cell.value = format_tok_s(value);
      cell.detail = kind == MatrixKind::Total ? format_latency_ms(c.ttft_ms) : format_gap_ms(c.tbt_ms);
    } else {
      cell.value = status_label(c.status);
    }
  }
  set_heat(m);
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
      line.rate_tok_s = p.prompt_tok_s;
      line.ttft_ms = p.ttft_ms;
      line.ttft = format_latency_ms(p.ttft_ms) + " TTFT";
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
  t.header = {"Phase",  "Context", "Requests at once", "Status", "Total tok/s", "Per request tok/s", "TTFT",
              "Time between tokens", "Average active requests", "Completed requests", "Output tokens",
              "Measured for"};
  t.align = {Align::Left,  Align::Right, Align::Right, Align::Left,  Align::Right, Align::Right,
             Align::Right, Align::Right, Align::Right, Align::Right, Align::Right, Align::Right};
  std::vector<const PrefillRow*> prefill;
  for (const auto& p : r.prefill) prefill.push_back(&p);
  std::stable_sort(prefill.begin(), prefill.end(), [](auto* a, auto* b) { return a->context < b->context; });
  std::vector<MeasurementSource> sources;
  for (const PrefillRow* p : prefill) {
    bool numbers = has_numbers(p->status);
    sources.push_back({&p->telemetry, nullptr, numbers});
    t.rows.push_back({{"Prefill", format_tokens(p->context), "1", status_label(p->status),
                       numbers ? format_tok_s(p->prompt_tok_s) : dash(), dash(),
                       numbers ? format_latency_ms(p->ttft_ms) : dash(), dash(), dash(),
                       p->status == CellStatus::Valid ? "1" : dash(), dash(), dash()},
                      p->status});
  }
  std::vector<const DecodeCell*> decode;
  for (const auto& c : r.decode) decode.push_back(&c);
  std::stable_sort(decode.begin(), decode.end(), [](auto* a, auto* b) {
    return a->context != b->context ? a->context < b->context : a->concurrency < b->concurrency;
  });
  for (const DecodeCell* c : decode) {
    sources.push_back({&c->telemetry, c, has_numbers(c->status)});
    if (!has_numbers(c->status)) {
      TableRow row{{"Sustained decode", format_tokens(c->context), fmt::format("{}", c->concurrency),
                    status_label(c->status)},
                   c->status};
      row.cells.resize(t.header.size(), dash());
      t.rows.push_back(std::move(row));
      continue;
    }
    t.rows.push_back({{"Sustained decode", format_tokens(c->context), fmt::format("{}", c->concurrency),
                       status_label(c->status), format_tok_s(c->total_tok_s), format_tok_s(c->per_request_tok_s),
                       format_latency_ms(c->ttft_ms), format_gap_ms(c->tbt_ms), format_active(c->avg_active),
                       format_count(c->completed), format_count(c->output_tokens), format_window_s(c->measured_s)},
                      c->status});
  }
  append_telemetry_columns(t, sources);
  return t;
}

std::set<CellStatus> statuses(const RunResult& r) {
  std::set<CellStatus> s;
  for (const auto& c : r.decode) s.insert(c.status);
  return s;
}

bool ran_any(const RunResult& r) {
  for (const auto& c : r.decode)
    if (has_numbers(c.status)) return true;
  return false;
}

std::string percent(double share) { return fmt::format("{:.0f}%", share * 100); }

std::vector<Finding> findings(const RunResult& r) {
  std::vector<Finding> out;
  auto warn = [&](std::string text) { out.push_back({Severity::Warning, std::move(text)}); };
  auto error = [&](std::string text) { out.push_back({Severity::Error, std::move(text)}); };
  auto info = [&](std::string text) { out.push_back({Severity::Info, std::move(text)}); };

  if (r.kind == "simulated")
    info("Simulated: these numbers come from speedmatrix's reference engine, not from a real server.");
  if (r.kind == "predicted")
    info("Predicted: these numbers come from the decode calculator's model, not from a measurement.");
  if (r.tool_build_type == "Debug")
    warn("speedmatrix was a Debug build: its own client may have held the numbers down.");
  if (r.hardware.source == HardwareSource::Unknown)
    warn("Hardware unknown: the server ran on another machine (" +
         (r.hardware.source_detail.empty() ? std::string("recorded without its hardware") : r.hardware.source_detail) +
         "), so these numbers are credited to no hardware. Declare it next time: run `speedmatrix hardware --out "
         "server-hardware.json` on the server and pass `--server-hardware server-hardware.json` to `speedmatrix run`, "
         "or give `--gpu \"NAME\" --gpu-count N`.");
  if (r.hardware.source == HardwareSource::Declared)
    info("The hardware was declared by whoever ran the benchmark (" + r.hardware.source_detail +
         "), not probed by speedmatrix on the server.");
  for (auto& note : telemetry_notes(r)) out.push_back(std::move(note));
  for (auto& note : connection_findings(r)) out.push_back(std::move(note));
  if (!r.engine.forces_output_length)
    warn("Output length not forced: this engine cannot ignore end of sequence, so requests may end before "
         "max output and cells measure a mix of prefill and decode.");
  for (const auto& w : r.warnings) warn(w);

  for (const auto& p : r.prefill) {
    std::string name = "Prefill " + format_tokens(p.context);
    if (p.status == CellStatus::Error) error(name + ": error: " + (p.error.empty() ? "no reason recorded" : p.error));
    if (p.status == CellStatus::Interrupted) warn(name + ": interrupted; its numbers are partial.");
    if (has_numbers(p.status) && !p.prompt_length_ok)
      warn(fmt::format("{}: prompt length missed: the server counted {} prompt tokens, {} were asked for.", name,
                       p.prompt_tokens ? format_thousands(*p.prompt_tokens) : "an unknown number of",
                       format_thousands(p.context)));
    // A few leading tokens (BOS, a chat template's header) match whatever ran before; only more
    // than that means the nonce did not keep the prompt cold.
    if (has_numbers(p.status) && p.cached_tokens && *p.cached_tokens > kColdPrefillCachedTokens)
      warn(fmt::format("{}: the server reused {} cached prompt tokens, so this prefill was not fully cold.", name,
                       format_thousands(*p.cached_tokens)));
  }

  for (const auto& c : r.decode) {
    std::string name = "Decode " + cell_name(c.context, c.concurrency);
    if (c.status == CellStatus::Error) error(name + ": error: " + (c.error.empty() ? "no reason recorded" : c.error));
    if (c.status == CellStatus::Interrupted) warn(name + ": interrupted; its numbers are partial.");
    if (!has_numbers(c.status)) continue;
    if (!c.prompt_length_ok) {
      std::string seen = c.prompt_tokens_min && c.prompt_tokens_max
                             ? (*c.prompt_tokens_min == *c.prompt_tokens_max
                                    ? format_thousands(*c.prompt_tokens_min)
                                    : format_thousands(*c.prompt_tokens_min) + "–" +
                                          format_thousands(*c.prompt_tokens_max))
                             : "other numbers of";
      warn(fmt::format("{}: prompt length missed: the server counted {} prompt tokens, {} were asked for.", name,
                       seen, format_thousands(c.context)));
    }
    if (c.ended_early && *c.ended_early > 0)
      warn(fmt::format("{}: output length not forced: {} request{} ended before max output.", name,
                       format_thousands(*c.ended_early), *c.ended_early == 1 ? "" : "s"));
    if (effective_concurrency_below_requested(c))
      warn(fmt::format("{}: effective concurrency below requested: {:.1f} of {} requests were generating on "
                       "average.",
                       name, *c.effective_concurrency, c.concurrency));
    if (server_concurrency_below_requested(c))
      warn(fmt::format("{}: the server ran fewer requests than were sent, by its own count: ({:.1f}/{})*, {:.1f} of "
                       "{} running on average{}.",
                       name, *c.server_running_mean, c.concurrency, *c.server_running_mean, c.concurrency,
                       c.server_waiting_mean ? fmt::format(" and {:.1f} waiting", *c.server_waiting_mean) : ""));
    if (server_concurrency_above_requested(c))
      warn(fmt::format("{}: the server ran more requests than this cell sent, by its own count: {:.1f} of {} on "
                       "average (another client, or earlier requests still running), so its numbers are for a "
                       "higher real concurrency.",
                       name, *c.server_running_mean, c.concurrency));
    if (c.requests_failed && *c.requests_failed > 0)
      error(fmt::format("{}: {} of {} requests failed.", name, format_thousands(*c.requests_failed),
                        c.requests_started ? format_thousands(*c.requests_started) : "?"));
    if (c.token_count_source == "chunks")
      warn(name + ": the server reported no token counts; one chunk was counted as one token, which undercounts "
                  "when chunks carry several tokens.");
    // Scaled by 1.0 changes nothing; several tokens per chunk makes the cut streams an estimate.
    if (c.token_count_source == "chunks_scaled" && c.tokens_per_chunk && *c.tokens_per_chunk > 1.01)
      warn(fmt::format("{}: streams cut before the server counted their tokens were estimated at the {:.2f} tokens "
                       "per chunk of the cell's finished requests.",
                       name, *c.tokens_per_chunk));
    for (const auto& w : c.warnings) warn(name + ": " + w);
  }
  if (auto throttled = throttle_finding(r)) out.push_back(std::move(*throttled));
  if (r.client_ceiling && r.client_ceiling->tokens_per_s > 0) {
    const double ceiling = r.client_ceiling->tokens_per_s;
    std::vector<std::string> near;
    for (const auto& c : r.decode)
      if (has_numbers(c.status) && c.total_tok_s && *c.total_tok_s >= kClientCeilingShare * ceiling)
        near.push_back(fmt::format("{}: {} tok/s, {}", cell_name(c.context, c.concurrency), format_rate(*c.total_tok_s),
                                   percent(*c.total_tok_s / ceiling)));
    if (!near.empty())
      warn(fmt::format("Client near its ceiling: {} measured more than {} of the {} tok/s this client ingests on its "
                       "own ({}); a faster server could read as the same number.",
                       near.size() == 1 ? std::string("1 cell") : fmt::format("{} cells", near.size()),
                       percent(kClientCeilingShare), format_rate(ceiling), fmt::join(near, "; ")));
  }
  return out;
}

std::vector<std::string> checks_passed(const RunResult& r) {
  std::vector<std::string> out;
  bool any_cell = !r.prefill.empty() || !r.decode.empty();
  if (!any_cell) return out;
  out.push_back("Every prompt was within max(16 tokens, 0.5%) of the length asked for, where the server counted it.");
  if (r.engine.forces_output_length) out.push_back("Output length was forced (end of sequence ignored).");
  out.push_back("No cell failed and none ran fewer requests than asked, where that was measured.");
  if (r.client_ceiling)
    out.push_back(fmt::format("Every cell stayed below {} of the client's own ceiling.",
                              percent(kClientCeilingShare)));
  if (auto check = throttle_check(r)) out.push_back(std::move(*check));
  return out;
}

std::string token_count_text(const RunResult& r) {
  static const std::map<std::string, std::string> kMeaning = {
      {"usage_continuous", "the server's running usage count in every chunk (exact)"},
      {"timings", "llama.cpp's per-chunk timings (exact)"},
      {"token_ids", "the token ids carried in each chunk (exact)"},
      {"usage_final", "the final usage count of each request, with per-chunk tokens reconciled to it"},
      {"finish_length", "one token per chunk, reconciled to max output where the server said it stopped at the "
                        "length limit (no usage count)"},
      {"chunks_scaled", "one count per chunk, scaled by the tokens per chunk of the cell's finished requests, for "
                        "streams cut before their final count (an estimate)"},
      {"chunks", "one token per chunk, because the server gave no count (may undercount)"},
      {"predicted", "the decode calculator's model (nothing was streamed)"},
  };
  std::map<std::string, int> counts;
  for (const auto& c : r.decode)
    if (has_numbers(c.status)) ++counts[c.token_count_source.empty() ? "unknown" : c.token_count_source];
  if (counts.empty()) return "";
  std::vector<std::string> parts;
  for (const auto& [source, n] : counts) {
    auto it = kMeaning.find(source);
    std::string meaning = it != kMeaning.end() ? it->second : "not recorded";
    parts.push_back(counts.size() == 1 ? meaning : fmt::format("{}, in {} cell{}", meaning, n, n == 1 ? "" : "s"));
  }
  return "Output tokens were counted from " + join(parts, "; ") + ".";
}

std::vector<Definition> definitions(const RunResult& r) {
  std::string max_out = format_thousands(r.settings.max_output_tokens);
  std::vector<Definition> out = {
      {"Prompt tok/s (prefill)",
       "Prompt tokens ÷ TTFT of one cold request: a prompt of exactly that many tokens, never seen by the server "
       "(no prefix-cache hit), asking for 1 output token."},
      {"TTFT", "Time to first token: request sent → first token received, on a monotonic clock when the bytes "
               "reach the client. In decode cells, the median over the cell's requests."},
      {"Total tok/s", "Output tokens that arrived inside the measurement window ÷ window length, across all "
                      "simultaneous requests."},
      {"Per request tok/s", "Median over requests of (tokens − 1) ÷ (last token time − first token time) inside "
                            "the window: the speed one user sees."},
      {"Time between tokens", "Median gap between consecutive tokens of one stream; a chunk carrying k tokens "
                              "shares its gap among them."},
      {"Average active requests", "Time-weighted mean of requests in flight during the window."},
      {"Completed requests", "Requests that finished inside the window (each asks for " + max_out +
                                 " tokens, so long windows or fast servers complete some)."},
      {"Output tokens", "Output tokens that arrived inside the window."},
      {"Measured for", "Window length. The window opens once all the cell's streams have produced a first token; "
                       "streams are kept in flight for the whole window (closed loop)."},
      {"Over capacity", "Not run: requests × (context + " + max_out +
                            " max output) exceeds the server's KV-cache capacity in tokens."},
      {"Too long", "Not run: context + " + max_out + " max output exceeds the model's context length."},
  };
  for (auto& d : telemetry_definitions(r)) out.push_back(std::move(d));
  return out;
}

std::string footer(const RunResult& r) {
  std::vector<std::string> parts;
  std::string tool = "speedmatrix";
  if (!r.tool_version.empty()) tool += " " + r.tool_version;
  std::vector<std::string> build;
  if (!r.tool_commit.empty()) build.push_back("commit " + r.tool_commit);
  if (!r.tool_build_type.empty()) build.push_back(r.tool_build_type + " build");
  if (!build.empty()) tool += " (" + join(build, ", ") + ")";
  parts.push_back("Measured with " + tool);
  if (r.kind == "simulated") parts.back() = "Simulated with " + tool;
  if (r.kind == "predicted") parts.back() = "Predicted by " + tool;
  if (!r.run_id.empty()) parts.push_back("run " + r.run_id);
  return join(parts, " · ");
}

}  // namespace

std::string detail_text(const Matrix& matrix, const MatrixCell& cell) {
  if (cell.detail.empty() || matrix.detail_label.empty()) return cell.detail;
  bool attached = matrix.detail_label.starts_with("/");
  return cell.detail + (attached ? "" : " ") + matrix.detail_label;
}

std::string cell_name(int64_t context, int64_t concurrency) {
  return fmt::format("{} × {}", format_tokens(context), concurrency);
}

std::string status_note(CellStatus status) {
  switch (status) {
    case CellStatus::OverCapacity:
      return "Over capacity: not run because this many requests at this context would exceed the server's KV cache.";
    case CellStatus::TooLong:
      return "Too long: not run because context + max output would exceed the model's context length.";
    case CellStatus::Error: return "Error: the cell ran and failed; the reasons are listed under Warnings.";
    case CellStatus::Interrupted: return "Interrupted: stopped while running; its numbers are partial.";
    case CellStatus::Pending: return "Pending: planned but not measured yet.";
    case CellStatus::Valid: break;
  }
  return "";
}

ReportModel build_report_model(const RunResult& r) {
  ReportModel m;
  m.model_name = model_display_name(r.engine);
  m.hardware_name = hardware_display_name(r.hardware);
  m.title = m.model_name + " on " + m.hardware_name;
  m.engine_line = join({r.engine.kind, r.engine.version == "predicted" ? std::string() : r.engine.version,
                        r.engine.quantization},
                       " · ");
  m.matrix_line = matrix_line(r);
  if (!r.submitted_by.empty()) m.by_line = "by " + r.submitted_by;
  m.tool_line = r.tool_version.empty() ? "speedmatrix" : "speedmatrix v" + r.tool_version;
  m.kind_label = kind_display(r.kind);
  m.headline = headline_figures(r);
  m.facts = {hardware_facts(r.hardware), engine_facts(r.engine), run_facts(r)};
  if (auto connection = connection_facts(r)) m.facts.push_back(std::move(*connection));
  if (r.client_hardware) m.facts.push_back(client_facts(*r.client_hardware));
  add_telemetry_facts(m.facts, r);
  m.launch_command = r.launch_command;
  m.notes = r.notes;
  m.prefill = prefill_lines(r);
  m.decode_total = build_matrix(r, MatrixKind::Total);
  m.decode_per_request = build_matrix(r, MatrixKind::PerRequest);
  m.decode_efficiency = build_matrix(r, MatrixKind::Efficiency);

  auto present = statuses(r);
  for (CellStatus s : {CellStatus::OverCapacity, CellStatus::TooLong, CellStatus::Error, CellStatus::Interrupted,
                       CellStatus::Pending})
    if (present.count(s)) m.decode_notes.push_back(status_note(s));
  if (present.count(CellStatus::OverCapacity)) {
    std::optional<int64_t> kv = r.settings.kv_capacity_override ? r.settings.kv_capacity_override
                                                                : r.engine.kv_capacity_tokens;
    if (kv)
      m.decode_notes.push_back(fmt::format(
          "A cell needs requests × (context + {} max output) tokens of KV cache; this server holds {} tokens.",
          format_thousands(r.settings.max_output_tokens), format_thousands(*kv)));
  }
  if (ran_any(r))
    m.decode_notes.push_back(
        "TTFT is measured after the benchmark warms the server's prompt cache, so it mostly excludes prefill.");

  m.measurements = measurements_table(r);
  m.measurements_caption = "Latencies are medians. Total tok/s is output across all simultaneous requests.";
  std::set<CellStatus> all = present;
  for (const auto& p : r.prefill) all.insert(p.status);
  for (CellStatus s : {CellStatus::OverCapacity, CellStatus::TooLong, CellStatus::Error, CellStatus::Interrupted,
                       CellStatus::Pending})
    if (all.count(s)) m.measurement_notes.push_back(status_note(s));

  m.findings = findings(r);
  bool warned = std::any_of(m.findings.begin(), m.findings.end(),
                            [](const Finding& f) { return f.severity != Severity::Info; });
  if (!warned) m.checks_passed = checks_passed(r);
  m.definitions = definitions(r);
  m.token_counts = token_count_text(r);
  m.footer = footer(r);
  return m;
}

}  // namespace sm::report
