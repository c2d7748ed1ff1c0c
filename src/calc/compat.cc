#include "calc/compat.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fmt/format.h>

namespace sm::calc {

namespace {

bool contains(const std::vector<std::string>& list, const std::string& value) {
  return std::find(list.begin(), list.end(), value) != list.end();
}

std::string join(const std::vector<std::string>& list) {
  std::string out;
  for (const auto& s : list) out += (out.empty() ? "" : ", ") + s;
  return out;
}

// Whether `engine` loads weights in `format` (natively or experimentally).
bool loads(const EngineParams& engine, const std::string& format) {
  return engine.quant_formats.empty() || format.empty() || contains(engine.quant_formats, format) ||
         engine.experimental_quant_formats.contains(format);
}

bool runs_on(const EngineParams& engine, const std::string& backend) {
  return engine.backends.empty() || contains(engine.backends, backend);
}

std::string upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

MatmulMath matmul_math(const GpuSpec& gpu, const QuantSpec& quant) {
  const std::string& want = quant.tensor_math;
  if (want.empty()) return {gpu.tensor_16bit_flops, "16-bit", true};
  if (want == "int8" || want == "fp8" || want == "8-bit") {
    if (gpu.tensor_8bit_flops && (gpu.tensor_8bit_formats.empty() || want == "8-bit" || contains(gpu.tensor_8bit_formats, want)))
      return {*gpu.tensor_8bit_flops, want, true};
    return {gpu.tensor_16bit_flops, "16-bit", false};
  }
  if (gpu.tensor_4bit_flops && contains(gpu.tensor_4bit_formats, want)) return {*gpu.tensor_4bit_flops, want, true};
  return {gpu.tensor_16bit_flops, "16-bit", false};
}

Compatibility check_compatibility(const Setup& s, std::span<const EngineParams> engines,
                                  std::span<const QuantSpec> quants) {
  Compatibility c;
  const EngineParams& e = s.engine;
  const std::string backend = s.gpu.backend.empty() ? "cuda" : s.gpu.backend;
  // 1. The engine must run on the GPU's software stack.
  if (!runs_on(e, backend)) {
    std::vector<std::string> instead;
    for (const auto& other : engines)
      if (other.id != e.id && runs_on(other, backend) && loads(other, s.quant.format)) instead.push_back(other.id);
    c.refusal_phrases.push_back({"calc.refusal.no_backend",
                                 {{"engine", e.name}, {"gpu", s.gpu.name}, {"backend", backend}, {"backends", join(e.backends)}}});
    if (instead.empty()) c.refusal_phrases.push_back({"calc.refusal.no_engine_there", {}});
    else c.refusal_phrases.push_back({"calc.refusal.use_engine", {{"engines", join(instead)}}});
    c.refusal = english(c.refusal_phrases);
    return c;
  }
  // 2. The engine must load the quantisation's weight format.
  const std::string& format = s.quant.format;
  if (!loads(e, format)) {
    std::vector<std::string> engines_that_load;
    for (const auto& other : engines)
      if (other.id != e.id && runs_on(other, backend) && !other.quant_formats.empty() &&
          contains(other.quant_formats, format))
        engines_that_load.push_back(other.id);
    // The quantisation this engine loads with the closest bits per weight.
    // Ties go to the format the engine lists first (llama.cpp: a GGUF type before MXFP4).
    auto rank = [&e](const QuantSpec& q) {
      return std::find(e.quant_formats.begin(), e.quant_formats.end(), q.format) - e.quant_formats.begin();
    };
    const QuantSpec* closest = nullptr;
    for (const auto& q : quants) {
      if (q.format.empty() || !contains(e.quant_formats, q.format)) continue;
      const double d = std::abs(q.bits_per_weight() - s.quant.bits_per_weight());
      const double best = closest ? std::abs(closest->bits_per_weight() - s.quant.bits_per_weight()) : 1e9;
      if (!closest || d < best - 1e-9 || (std::abs(d - best) <= 1e-9 && rank(q) < rank(*closest))) closest = &q;
    }
    c.refusal_phrases.push_back({"calc.refusal.no_format", {{"engine", e.name},
                                                            {"quant", s.quant.name},
                                                            {"format", format},
                                                            {"formats", join(e.quant_formats)}}});
    const std::vector<std::pair<std::string, std::string>> use_quant =
        closest ? std::vector<std::pair<std::string, std::string>>{{"quant_id", closest->id},
                                                                   {"bits", fmt::format("{:.2f}", closest->bits_per_weight())},
                                                                   {"engine", e.name}}
                : std::vector<std::pair<std::string, std::string>>{};
    const std::vector<std::pair<std::string, std::string>> use_engine = {{"engines", join(engines_that_load)},
                                                                          {"quant", s.quant.name}};
    if (closest && !engines_that_load.empty()) {
      auto fields = use_quant;
      fields.insert(fields.end(), use_engine.begin(), use_engine.end());
      c.refusal_phrases.push_back({"calc.refusal.use_quant_or_engine", fields});
    } else if (closest) {
      c.refusal_phrases.push_back({"calc.refusal.use_quant", use_quant});
    } else if (!engines_that_load.empty()) {
      c.refusal_phrases.push_back({"calc.refusal.use_engine_for", use_engine});
    }
    c.refusal = english(c.refusal_phrases);
    return c;
  }
  if (auto it = e.experimental_quant_formats.find(format); it != e.experimental_quant_formats.end())
    c.warning_phrases.push_back(
        {"calc.warning.experimental", {{"engine", e.name}, {"format", upper(format)}, {"why", it->second}}});
  // 3. The quantisation's tensor math must exist on the GPU, else the engine runs it weight-only.
  const MatmulMath math = matmul_math(s.gpu, s.quant);
  if (!math.native) {
    const bool four = s.quant.fp4_math();
    const char* id = four ? (s.gpu.tensor_4bit_formats.empty() ? "calc.warning.weight_only.no_fp4"
                                                               : "calc.warning.weight_only.fp4_only_for")
                          : (!s.gpu.tensor_8bit_flops ? "calc.warning.weight_only.no_8bit"
                                                      : "calc.warning.weight_only.8bit_only_for");
    c.warning_phrases.push_back({id,
                                 {{"quant", s.quant.name},
                                  {"gpu", s.gpu.name},
                                  {"formats", join(four ? s.gpu.tensor_4bit_formats : s.gpu.tensor_8bit_formats)},
                                  {"math", upper(s.quant.tensor_math)},
                                  {"bits", fmt::format("{:.3g}", s.quant.bits_per_weight())}}});
  }
  for (const Phrase& w : c.warning_phrases) c.warnings.push_back(english(w));
  return c;
}

}  // namespace sm::calc
