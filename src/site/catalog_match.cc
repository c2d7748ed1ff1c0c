#include "site/catalog_match.h"

#include <algorithm>
#include <vector>

namespace sm::site {

namespace {

std::string basename_of(std::string path) {
  while (!path.empty() && path.back() == '/') path.pop_back();
  if (size_t slash = path.rfind('/'); slash != std::string::npos) path = path.substr(slash + 1);
  if (path.ends_with(".gguf")) path.resize(path.size() - 5);
  return path;
}

}  // namespace

std::optional<calc::GpuSpec> match_gpu_name(std::string_view name, const calc::Catalog& catalog) {
  std::vector<std::string> tries = {std::string(name)};
  for (std::string_view vendor : {"NVIDIA ", "AMD ", "Intel ", "Apple "})
    if (name.starts_with(vendor)) tries.push_back(std::string(name.substr(vendor.size())));
  for (const auto& t : tries)
    if (auto g = catalog.find_gpu(t)) return *g;
  return std::nullopt;
}

std::optional<calc::ModelShape> match_model_name(std::string_view name, const calc::Catalog& catalog,
                                                 std::string* dropped_tail) {
  std::string current(name);
  // Try the whole name, then drop one '-' or '_' separated part from its end at a time, keeping
  // at least two parts ("Qwen3.5-4B"): suffixes name formats and quantisations, not shapes.
  for (int dropped = 0; !current.empty(); ++dropped) {
    if (auto m = catalog.find_model(current)) {
      if (dropped_tail) *dropped_tail = dropped == 0 ? std::string() : std::string(name.substr(current.size() + 1));
      return *m;
    }
    const size_t cut = current.find_last_of("-_");
    if (cut == std::string::npos || current.find_first_of("-_") == cut) break;
    current.resize(cut);
  }
  return std::nullopt;
}

CatalogMatch match_run(const RunResult& run, const calc::Catalog& catalog) {
  CatalogMatch m;
  const HardwareInfo& hw = run.hardware;
  if (hw.source != HardwareSource::Unknown && !hw.gpus.empty()) {
    const std::string& first = hw.gpus.front().name;
    const bool same = std::all_of(hw.gpus.begin(), hw.gpus.end(), [&](const GpuInfo& g) { return g.name == first; });
    if (same) {
      m.gpu = match_gpu_name(first, catalog);
      if (m.gpu) m.gpu_count = static_cast<int>(hw.gpus.size());
    }
  }
  std::string tail;
  for (const std::string& name : {basename_of(run.engine.model_path), run.engine.model}) {
    if (name.empty()) continue;
    if ((m.model = match_model_name(name, catalog, &tail))) break;
  }
  if (!run.engine.quantization.empty()) {
    if (auto q = catalog.find_quant(run.engine.quantization)) m.quant = *q;
  }
  if (!m.quant && !tail.empty()) {
    if (auto q = catalog.find_quant(tail)) m.quant = *q;
    else if (size_t cut = tail.find_last_of("-_"); cut != std::string::npos) {
      if (auto q2 = catalog.find_quant(tail.substr(cut + 1))) m.quant = *q2;  // "...-Q4_K_M" after a "-GGUF"-less tail
    }
  }
  if (!run.engine.kind.empty()) {
    if (auto e = catalog.find_engine(run.engine.kind)) m.engine = *e;
  }
  return m;
}

std::optional<store::SetupKey> setup_key(const CatalogMatch& m) {
  if (!m.gpu || !m.model || !m.engine) return std::nullopt;
  return store::SetupKey{m.gpu->id, m.gpu_count, m.model->id, m.engine->id};
}

void set_calc_columns(store::RunSummary& s, const CatalogMatch& m) {
  auto key = setup_key(m);
  if (!key) return;
  s.calc_gpu = key->gpu;
  s.calc_gpu_count = key->gpu_count;
  s.calc_model = key->model;
  s.calc_engine = key->engine;
}

}  // namespace sm::site
