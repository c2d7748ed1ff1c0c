#include "site/canonical_names.h"

#include <algorithm>
#include <array>
#include <cctype>

#include "calc/catalog.h"
#include "report/report_model.h"

namespace sm::site {

namespace {

// Tails that name a quantisation or a file format the catalog has no entry for, matched without
// case: stripped from the model's name, kept as written as its quantisation (formats: none).
constexpr std::array<std::string_view, 6> kQuantWords = {"bnb-4bit", "4bit", "8bit", "nf4", "int4", "int8"};
constexpr std::array<std::string_view, 2> kFormatWords = {"gguf", "mlx"};

bool is_separator(char c) { return c == '-' || c == '_' || c == ':' || c == '.'; }

bool equals_nocase(std::string_view a, std::string_view b) {
  return a.size() == b.size() &&
         std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) { return std::tolower(x) == std::tolower(y); });
}

// Where the last `parts` separator-delimited parts of `name` start (npos when it has fewer,
// keeping at least one part before them).
size_t tail_start(std::string_view name, int parts) {
  size_t at = name.size();
  for (int i = 0; i < parts; ++i) {
    if (at == 0) return std::string_view::npos;
    size_t cut = at - 1;
    while (cut > 0 && !is_separator(name[cut])) --cut;
    if (cut == 0) return std::string_view::npos;
    at = cut;
  }
  return at;  // the separator before the tail
}

// "-00001-of-00003" at the end of a split GGUF.
std::string_view without_split_suffix(std::string_view name) {
  const size_t of = name.rfind("-of-");
  if (of == std::string_view::npos || of < 6 || name.size() - of != 9) return name;
  auto digits = [](std::string_view s) { return std::all_of(s.begin(), s.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }); };
  if (name[of - 6] != '-' || !digits(name.substr(of - 5, 5)) || !digits(name.substr(of + 4))) return name;
  return name.substr(0, of - 6);
}

}  // namespace

CanonicalModel canonical_model(std::string_view display_name, const calc::Catalog& catalog) {
  std::string_view name = without_split_suffix(display_name);
  CanonicalModel out;
  std::string raw_quant;
  // Strip quantisation and format tails, longest first ("Q4_K_M" is three parts, "AWQ-4bit" two).
  for (bool stripped = true; stripped;) {
    stripped = false;
    for (int parts = 3; parts >= 1 && !stripped; --parts) {
      const size_t at = tail_start(name, parts);
      if (at == std::string_view::npos) continue;
      const std::string_view tail = name.substr(at + 1);
      if (auto q = catalog.find_quant(tail)) {
        if (out.quantization.empty()) out.quantization = q->name;
      } else if (std::any_of(kQuantWords.begin(), kQuantWords.end(), [&](auto w) { return equals_nocase(w, tail); })) {
        if (raw_quant.empty()) raw_quant = std::string(tail);
      } else if (!std::any_of(kFormatWords.begin(), kFormatWords.end(), [&](auto w) { return equals_nocase(w, tail); })) {
        continue;
      }
      name = name.substr(0, at);
      stripped = true;
    }
  }
  if (out.quantization.empty()) out.quantization = raw_quant;
  if (auto m = catalog.find_model(name)) out.name = m->name;
  else out.name = std::string(name);
  return out;
}

namespace {

// One catalog GPU titled as the report titles hardware ("H100 SXM 80GB").
std::string gpu_title(const calc::GpuSpec& gpu) {
  HardwareInfo one;
  one.gpus.push_back(GpuInfo{gpu.name, gpu.memory_bytes, "", std::nullopt, ""});
  return report::hardware_display_name(one);
}

}  // namespace

std::string canonical_hardware_title(const HardwareInfo& hardware, const CatalogMatch& match) {
  if (!match.gpu || match.gpu_count < 1) return "";
  HardwareInfo catalog_hardware = hardware;
  for (GpuInfo& g : catalog_hardware.gpus) {
    g.name = match.gpu->name;
    g.vram_bytes = match.gpu->memory_bytes;
  }
  return report::hardware_display_name(catalog_hardware);
}

void apply_canonical_names(store::RunSummary& summary, const RunResult& run, const CatalogMatch& match,
                           const calc::Catalog& catalog) {
  summary.gpu_reported = summary.gpu;
  summary.model_reported = summary.model;
  if (std::string title = canonical_hardware_title(run.hardware, match); !title.empty()) summary.gpu = title;
  summary.unverified_hardware = run.hardware.source != HardwareSource::Unknown && !run.hardware.gpus.empty() && !match.gpu;
  const CanonicalModel model = canonical_model(summary.model, catalog);
  if (!model.name.empty()) summary.model = model.name;
  if (!summary.quantization.empty()) {
    if (auto q = catalog.find_quant(summary.quantization)) summary.quantization = q->name;
  } else {
    summary.quantization = model.quantization;
  }
}

QueryParams canonical_filter_query(const QueryParams& query, const calc::Catalog& catalog) {
  std::vector<std::pair<std::string, std::string>> pairs = query.pairs();
  const bool quantization_asked = !query.get("quantization").empty() || !query.get("quant").empty();
  std::string model_quantization;
  for (auto& [name, value] : pairs) {
    if (value.empty()) continue;
    if (name == "model") {
      const CanonicalModel m = canonical_model(value, catalog);
      if (!m.name.empty()) value = m.name;
      if (model_quantization.empty()) model_quantization = m.quantization;
    } else if (name == "quantization" || name == "quant") {
      if (auto q = catalog.find_quant(value)) value = q->name;
    } else if (name == "gpu") {
      // "2× H100 SXM 80GB": the count kept, the GPU's name canonical.
      std::string count;
      std::string gpu = value;
      if (size_t times = gpu.find("× "); times != std::string::npos && times > 0 &&
          std::all_of(gpu.begin(), gpu.begin() + static_cast<std::ptrdiff_t>(times),
                      [](char c) { return std::isdigit(static_cast<unsigned char>(c)); })) {
        count = gpu.substr(0, times + std::string_view("× ").size());
        gpu = gpu.substr(count.size());
      }
      if (auto spec = match_gpu_name(gpu, catalog)) value = count + gpu_title(*spec);
    }
  }
  if (!quantization_asked && !model_quantization.empty()) pairs.emplace_back("quantization", model_quantization);
  return QueryParams(std::move(pairs));
}

}  // namespace sm::site
