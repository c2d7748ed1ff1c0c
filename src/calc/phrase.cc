#include "calc/phrase.h"

#include <fmt/args.h>
#include <fmt/format.h>

namespace sm::calc {

const std::vector<std::pair<std::string_view, std::string_view>>& phrase_templates() {
  static const std::vector<std::pair<std::string_view, std::string_view>> templates = {
      // compat.cc: the engine does not run on the GPU's software stack
      {"calc.refusal.no_backend", "{engine} does not run on {gpu}: it has no {backend} backend (it runs on {backends})."},
      {"calc.refusal.no_engine_there", "No catalog engine runs this quantisation there."},
      {"calc.refusal.use_engine", "Use --engine {engines} instead."},
      // compat.cc: the engine does not load the quantisation's weight format
      {"calc.refusal.no_format", "{engine} does not load {quant} weights (format {format}; it loads {formats})."},
      {"calc.refusal.use_quant", "Use --quant {quant_id} ({bits} bits per weight) with {engine}."},
      {"calc.refusal.use_engine_for", "Use --engine {engines} for {quant}."},
      {"calc.refusal.use_quant_or_engine",
       "Use --quant {quant_id} ({bits} bits per weight) with {engine}, or --engine {engines} for {quant}."},
      // predict.cc: the model does not fit in the GPUs' memory
      {"calc.refusal.does_not_fit",
       "{model} ({quant}) does not fit on {gpus} x {gpu} with {mem_util} memory utilisation: weights {weights_gib} GiB + "
       "reserve {reserve_gib} GiB + activations {activations_gib} GiB > {memory_gib} GiB."},
      {"calc.refusal.fits_on_more", "It fits on {gpus} x {gpu} (--gpus {gpus})."},
      {"calc.refusal.fits_with_quant.1", "With --quant {quant1} ({gib1} GiB of weights) it fits on {gpus} x {gpu}."},
      {"calc.refusal.fits_with_quant.2",
       "With --quant {quant1} ({gib1} GiB of weights), {quant2} ({gib2} GiB of weights) it fits on {gpus} x {gpu}."},
      {"calc.refusal.fits_with_quant.3",
       "With --quant {quant1} ({gib1} GiB of weights), {quant2} ({gib2} GiB of weights), {quant3} ({gib3} GiB of "
       "weights) it fits on {gpus} x {gpu}."},
      {"calc.refusal.no_fit", "No quantisation in the catalog and no count up to 8 of this GPU holds it: choose a larger GPU."},
      // compat.cc: unusual combinations, predicted with a warning
      {"calc.warning.experimental",
       "{engine} loads {format} weights only experimentally: {why}. Predicted with {engine}'s usual efficiencies, so "
       "expect it to be slower."},
      {"calc.warning.weight_only.no_fp4",
       "{quant} on {gpu}: the GPU has no FP4 tensor math (FP4 arrived with Blackwell), so there is no {math} tensor "
       "math; engines run these weights weight-only (dequantised to 16-bit inside the matmul, as vLLM's Marlin kernels "
       "do). Predicted with {bits}-bit weights at the 16-bit tensor rate."},
      {"calc.warning.weight_only.fp4_only_for",
       "{quant} on {gpu}: the GPU has FP4 tensor math only for {formats}, so there is no {math} tensor math; engines "
       "run these weights weight-only (dequantised to 16-bit inside the matmul, as vLLM's Marlin kernels do). "
       "Predicted with {bits}-bit weights at the 16-bit tensor rate."},
      {"calc.warning.weight_only.no_8bit",
       "{quant} on {gpu}: the GPU has no 8-bit tensor math, so there is no {math} tensor math; engines run these "
       "weights weight-only (dequantised to 16-bit inside the matmul, as vLLM's Marlin kernels do). Predicted with "
       "{bits}-bit weights at the 16-bit tensor rate."},
      {"calc.warning.weight_only.8bit_only_for",
       "{quant} on {gpu}: the GPU has 8-bit tensor math only for {formats}, so there is no {math} tensor math; "
       "engines run these weights weight-only (dequantised to 16-bit inside the matmul, as vLLM's Marlin kernels do). "
       "Predicted with {bits}-bit weights at the 16-bit tensor rate."},
      // predict.cc: what a prediction is, and its expected error
      {"calc.note.predicted",
       "Predicted by speedmatrix calc (performance model v1, engine parameters '{engine}'), not measured. Memory: "
       "weights {weights_gib} GiB, reserve {reserve_gib} GiB, activations {activations_gib} GiB, KV pool {kv_gib} GiB "
       "at {mem_util} utilisation."},
      {"calc.warning.no_error_estimate", "expected error: no estimate for engine '{engine}' (no calibration-corpus rows)"},
      {"calc.warning.expected_error",
       "expected error (80% interval, leave-one-source-out over the calibration corpus, {engine} on {class} GPUs):"},
      {"calc.warning.decode_error", "decode ±{percent}%,"},
      {"calc.warning.decode_error.little_evidence", "decode ±{percent}% (little evidence on {class} GPUs),"},
      {"calc.warning.decode_error.unmeasured", "decode ±{percent}% (little evidence: none measured on {class}),"},
      {"calc.warning.decode_error.none", "decode: no estimate,"},
      {"calc.warning.prefill_error", "prefill ±{percent}%"},
      {"calc.warning.prefill_error.little_evidence", "prefill ±{percent}% (little evidence on {class} GPUs)"},
      {"calc.warning.prefill_error.unmeasured", "prefill ±{percent}% (little evidence: none measured on {class})"},
      {"calc.warning.prefill_error.none", "prefill: no estimate"},
      {"calc.warning.uncalibrated", "engine '{engine}' parameters are not calibrated against a measured matrix: {notes}"},
  };
  return templates;
}

std::string english(const Phrase& p) {
  for (const auto& [id, text] : phrase_templates()) {
    if (id != p.id) continue;
    fmt::dynamic_format_arg_store<fmt::format_context> args;
    for (const auto& [name, value] : p.fields) args.push_back(fmt::arg(name.c_str(), value));
    try {
      return fmt::vformat(text, args);
    } catch (const fmt::format_error&) {
      return p.id;  // a field missing: a bug the phrase test reports
    }
  }
  return p.id;  // a phrase without a template is a bug the phrase test reports
}

std::string english(std::span<const Phrase> phrases) {
  std::string out;
  for (const Phrase& p : phrases) out += (out.empty() ? "" : " ") + english(p);
  return out;
}

}  // namespace sm::calc
