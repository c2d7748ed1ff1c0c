// The cards of a report: how a machine and a model are named, and the Hardware, Engine, Run
// and Client facts.
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
#include "report/connection_model.h"
#include "report/telemetry_model.h"
#include "report/translate.h"

namespace sm::report {

namespace {

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

std::string vram_tag(int64_t bytes) {
  std::string gb = format_gb(bytes);
  erase_all(gb, " ");
  return gb;
}

}  // namespace

std::string measurement_time_text(const RunSettings& s) {
  // Adaptive windows: --duration is the cap, not the time each cell measured (issue 31 point 4).
  if (s.precision)
    return trf("adaptive: {} to {}, closed within ±{:g}% (a settled cell's rate is projected to {})",
               format_duration_s(s.min_window_s.value_or(s.duration_s)), format_duration_s(s.duration_s),
               *s.precision * 100, format_duration_s(s.duration_s));
  return format_duration_s(s.duration_s);
}

std::string prompt_source_text(const RunSettings& s) {
  std::string text;
  if (s.prompts == "random" || s.prompts.empty()) {
    text = tr("Random common words");
  } else {
    const std::string kind = s.prompts == "text"   ? tr("Natural text")
                             : s.prompts == "code" ? tr("Source code")
                                                   : tr("Dataset");
    text = kind;
    if (s.prompt_corpus) {
      const PromptCorpusInfo& c = *s.prompt_corpus;
      text += ": " + c.name;
      if (c.texts > 1) text += " " + trf("({} prompts)", format_thousands(c.texts));
      if (!c.licence.empty() && s.prompts != "dataset") text += ", " + c.licence;
      if (!c.sha256.empty()) text += " · sha256 " + c.sha256.substr(0, 12);
    }
  }
  if (s.natural_eos) text += tr("; answers ended by the model (--natural-eos)");
  return text;
}

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

namespace section {

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
  return tr("Unknown model");
}

void add(std::vector<Fact>& facts, std::string label, std::string value) {
  if (!value.empty()) facts.push_back({std::move(label), std::move(value)});
}

FactGroup hardware_facts(const HardwareInfo& hw) {
  FactGroup g{"hardware", tr("Hardware"), {}};
  add(g.facts, tr("Type"), hw.type);
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
    std::string listed = join(names, ", ");
    if (hw.machine_gpu_count) listed += trf(" (the server's; the machine has {})", *hw.machine_gpu_count);
    add(g.facts, hw.gpus.size() > 1 ? tr("GPUs") : tr("GPU"), listed);
    int64_t total = 0;
    bool known = true;
    for (const auto& gpu : hw.gpus) {
      if (gpu.vram_bytes) total += *gpu.vram_bytes;
      else known = false;
    }
    if (known && hw.gpus.size() == 1) add(g.facts, tr("VRAM"), format_gb(total));
    else if (known) add(g.facts, tr("VRAM"), trf("{} in all ({} GPUs)", format_gb(total), hw.gpus.size()));
  }
  if (hw.gpus.empty() && hw.machine_gpu_count)
    add(g.facts, tr("GPUs"), trf("none of the machine's {} (the server used none)", *hw.machine_gpu_count));
  if (!hw.cpu_model.empty()) {
    std::string cpu = short_cpu_name(hw.cpu_model);
    if (hw.cpu_cores) cpu += fmt::format(" ({}C)", *hw.cpu_cores);
    add(g.facts, tr("CPU"), cpu);
  }
  if (hw.ram_bytes) add(g.facts, tr("RAM"), format_gb(*hw.ram_bytes));
  add(g.facts, tr("OS"), hw.os);
  if (!hw.gpus.empty()) {
    const GpuInfo& gpu = hw.gpus.front();
    add(g.facts, tr("Driver"), gpu.driver);
    if (gpu.power_limit_w) add(g.facts, tr("Power limit"), format_whole(*gpu.power_limit_w) + " W");
    add(g.facts, tr("PCIe"), gpu.pcie);
  }
  add(g.facts, tr("Kernel"), hw.kernel);
  if (hw.source == HardwareSource::Declared) add(g.facts, tr("Source"), trf("declared, not probed: {}", hw.source_detail));
  if (hw.source == HardwareSource::Unknown)
    add(g.facts, tr("Source"),
        trf("unknown: {}", hw.source_detail.empty() ? tr("the server ran on another machine") : hw.source_detail));
  return g;
}

// The machine that measured, when it was not the server's.
FactGroup client_facts(const HardwareInfo& hw) {
  FactGroup g = hardware_facts(hw);
  g.id = "client";
  g.title = tr("Client");
  return g;
}

FactGroup engine_facts(const EngineInfo& e) {
  FactGroup g{"engine", tr("Engine"), {}};
  add(g.facts, tr("Engine"), e.kind);
  if (e.version != "predicted") add(g.facts, tr("Version"), e.version);  // calc's placeholder, not a version
  add(g.facts, tr("Quantization"), e.quantization);
  add(g.facts, tr("Backend"), e.backend);
  add(g.facts, tr("Build"), e.build);
  add(g.facts, tr("Weights"), e.model_path);
  if (e.max_model_len) add(g.facts, tr("Max model length"), trf("{} tokens", format_thousands(*e.max_model_len)));
  if (e.kv_capacity_tokens) {
    std::string kv = trf("{} tokens", format_thousands(*e.kv_capacity_tokens));
    if (!e.kv_capacity_source.empty()) kv += trf(" (from {})", e.kv_capacity_source);
    add(g.facts, tr("KV cache"), kv);
  }
  if (e.slots) add(g.facts, tr("Max running requests"), format_thousands(*e.slots));
  if (e.prefix_caching) add(g.facts, tr("Prefix caching"), *e.prefix_caching ? tr("On") : tr("Off"));
  if (!e.forces_output_length) add(g.facts, tr("Output length"), tr("Not forced (end of sequence cannot be ignored)"));
  return g;
}

// "6m12s: 4m50s in decode windows; around them ramps 22 s, warm-ups 3 s, ..." (docs/METRICS.md,
// "Where the time went"): a slow matrix says why.
std::string run_time_text(const RunTiming& t) {
  std::string around;
  const std::pair<std::string, double> parts[] = {{tr("ramps"), t.ramp_s},          {tr("prefill"), t.prefill_s},
                                                  {tr("warm-ups"), t.warmup_s},     {tr("idle waits"), t.idle_wait_s},
                                                  {tr("wind-downs"), t.wind_down_s}, {tr("prompts"), t.prompts_s},
                                                  {tr("setup"), t.setup_s}};
  for (const auto& [what, seconds] : parts)
    if (seconds >= 0.05) around += fmt::format("{}{} {}", around.empty() ? "" : ", ", what, format_elapsed_s(seconds));
  std::string text = trf("{}: {} in decode windows", format_elapsed_s(t.total_s), format_elapsed_s(t.windows_s));
  if (!around.empty()) text += trf("; around them {}", around);
  return text;
}

// A recorded setting ("fixed_duration") as the report writes it ("Fixed duration"), translated
// where it is one the tools write.
std::string setting_text(const std::string& value) {
  if (value == "fixed_duration") return tr("Fixed duration");
  if (value == "adaptive_duration") return tr("Adaptive duration");
  if (value == "cold request; measured during decode warm-up where contexts coincide")
    return tr("Cold request; measured during decode warm-up where contexts coincide");
  if (value == "predicted: cold prompt alone on the server") return tr("Predicted: cold prompt alone on the server");
  return sentence_case(value);
}

FactGroup run_facts(const RunResult& r) {
  const RunSettings& s = r.settings;
  FactGroup g{"run", tr("Run"), {}};
  add(g.facts, tr("Served model"), r.engine.model);
  if (r.kind != "predicted") add(g.facts, tr("Profile"), s.profile.empty() ? tr("None (a matrix of its own)") : s.profile);
  if (s.repeat > 1) add(g.facts, tr("Passes"), fmt::format("{}", s.repeat));
  if (!s.plan_notes.empty()) {
    std::string notes;
    for (const auto& n : s.plan_notes) notes += (notes.empty() ? "" : "; ") + n;
    add(g.facts, tr("Plan"), notes);
  }
  if (s.requests_per_cell > 0) {
    add(g.facts, tr("Decode test"),
        trf("Burst: {} requests per cell through its simultaneous slots, timed first send to last end",
            format_thousands(s.requests_per_cell)));
    add(g.facts, tr("Warm-up requests"), s.warmup_requests >= 0 ? format_thousands(s.warmup_requests)
                                                                : tr("One per simultaneous request, at most 8"));
  } else {
    add(g.facts, tr("Decode test"), setting_text(s.decode_test));
  }
  add(g.facts, tr("Prefill mode"), setting_text(s.prefill_mode));
  if (s.requests_per_cell == 0) add(g.facts, tr("Time per measurement"), measurement_time_text(s));
  add(g.facts, tr("Max output"), trf("{} tokens", format_thousands(s.max_output_tokens)));
  add(g.facts, tr("API"), s.api == "chat" ? tr("Chat completions") : s.api == "completions" ? tr("Completions") : sentence_case(s.api));
  add(g.facts, tr("Temperature"), fmt::format("{:g}", s.temperature));
  if (r.kind != "predicted") add(g.facts, tr("Prompts"), prompt_source_text(s));
  if (s.seed != 0) add(g.facts, tr("Prompt seed"), fmt::format("{}", s.seed));
  if (s.kv_capacity_override)
    add(g.facts, tr("KV capacity (given)"), trf("{} tokens", format_thousands(*s.kv_capacity_override)));
  if (s.max_model_len_override)
    add(g.facts, tr("Max model length (given)"), trf("{} tokens", format_thousands(*s.max_model_len_override)));
  if (r.client_ceiling)
    add(g.facts, tr("Client ceiling"),
        trf("{} tok/s over {} streams", format_rate(r.client_ceiling->tokens_per_s),
            format_thousands(r.client_ceiling->streams)));
  add(g.facts, tr("Target"), r.target_url);
  if (r.kind != "predicted") {  // a prediction has no start or finish
    add(g.facts, tr("Started"), r.started_at);
    add(g.facts, tr("Finished"), r.finished_at);
  }
  if (r.timing && r.timing->total_s > 0) add(g.facts, tr("Run time"), run_time_text(*r.timing));
  add(g.facts, tr("Run id"), r.run_id);
  return g;
}

}  // namespace section

}  // namespace sm::report
