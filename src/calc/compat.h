#pragma once
// Which GPU × engine × quantisation combinations can run, from the catalogs' data rather than
// scattered conditions: an engine's `backends` and `quant_formats` (engines.json), a
// quantisation's `format` and `tensor_math` (quants.json), a GPU's `backend` and tensor formats
// (gpus.json). An impossible combination is refused with the reason and an alternative; an
// unusual one is predicted with a warning that names what changes.
//
//   auto c = sm::calc::check_compatibility(setup, catalog.engines(), catalog.quants());
//   if (c.refused()) return fail(..., c.refusal);   // c.refusal_phrases: the same, for a page to translate
//   for (auto& w : c.warnings) result.warnings.push_back(w);
#include <span>
#include <string>
#include <vector>

#include "calc/engine_params.h"
#include "calc/gpu.h"
#include "calc/phrase.h"
#include "calc/quant.h"
#include "calc/setup.h"

namespace sm::calc {

/// The tensor-core rate the linear layers' matmuls run at for a quantisation on a GPU.
struct MatmulMath {
  double peak_flops = 0;  ///< dense FLOP/s of that format on one GPU
  std::string format;     ///< "16-bit", "int8", "fp8", "nvfp4", "mxfp4"
  bool native = true;     ///< false: the quantisation asks for a format the GPU lacks (weight-only fallback)
};

/// The quantisation's tensor_math format when the GPU multiplies it natively (its 8-bit or 4-bit
/// figure and format list), else the 16-bit figure with `native` false (engines dequantise the
/// weights: FP8 on Ampere runs as W8A16, NVFP4 before Blackwell as W4A16).
MatmulMath matmul_math(const GpuSpec& gpu, const QuantSpec& quant);

struct Compatibility {
  std::string refusal;                ///< why the combination cannot run, and what to use instead; empty: it can
  std::vector<Phrase> refusal_phrases;  ///< the same sentences in structured form (english(refusal_phrases) == refusal)
  std::vector<std::string> warnings;  ///< unusual but predicted: what the prediction assumes
  std::vector<Phrase> warning_phrases;  ///< the same, one sentence each (english(warning_phrases[i]) == warnings[i])
  bool refused() const { return !refusal.empty(); }
};

/// Checks `setup` against the rules in its engine, quantisation and GPU entries. `engines` and
/// `quants` (the catalog's) supply the alternatives a refusal suggests.
Compatibility check_compatibility(const Setup& setup, std::span<const EngineParams> engines,
                                  std::span<const QuantSpec> quants);

}  // namespace sm::calc
