#include "calc/catalog_listing.h"

#include <algorithm>
#include <fmt/format.h>
#include <string_view>
#include <vector>

namespace sm::calc {

namespace {


// A plain text table: first row is the header, columns left-aligned and padded by width
// (UTF-8 aware enough for the ASCII we print).
std::string table(const std::string& title, const std::vector<std::vector<std::string>>& rows) {
  std::vector<size_t> widths;
  for (const auto& row : rows)
    for (size_t i = 0; i < row.size(); ++i) {
      if (widths.size() <= i) widths.push_back(0);
      widths[i] = std::max(widths[i], row[i].size());
    }
  std::string out = title + "\n";
  for (size_t r = 0; r < rows.size(); ++r) {
    std::string line = " ";
    for (size_t i = 0; i < rows[r].size(); ++i) {
      line += " " + rows[r][i];
      if (i + 1 < rows[r].size()) line += std::string(widths[i] - rows[r][i].size(), ' ') + " ";
    }
    out += line + "\n";
  }
  return out + "\n";
}

std::string billions(double params) { return fmt::format("{:.2f}B", params / 1e9); }

}  // namespace

std::string catalog_to_text(const Catalog& c) {
  std::string out;
  std::vector<std::vector<std::string>> rows{
      {"id", "name", "backend", "memory GiB", "usable GiB", "bandwidth GB/s", "16-bit TFLOPS", "8-bit TFLOPS", "FP4 TFLOPS"}};
  auto formats = [](const std::vector<std::string>& list) {
    std::string out;
    for (const auto& f : list) out += (out.empty() ? "" : "/") + f;
    return out.empty() ? out : " (" + out + ")";
  };
  for (const auto& g : c.gpus())
    rows.push_back({g.id, g.name, g.backend, fmt::format("{:g}", static_cast<double>(g.memory_bytes) / kBytesPerGiB),
                    fmt::format("{:.2f}", static_cast<double>(g.usable_memory_bytes) / kBytesPerGiB),
                    fmt::format("{:g}", g.bandwidth_bytes_per_s / 1e9), fmt::format("{:g}", g.tensor_16bit_flops / 1e12),
                    g.tensor_8bit_flops ? fmt::format("{:g}{}", *g.tensor_8bit_flops / 1e12, formats(g.tensor_8bit_formats)) : "-",
                    g.tensor_4bit_flops ? fmt::format("{:g}", *g.tensor_4bit_flops / 1e12) : "-"});
  out += table("GPUs (--gpu)", rows);

  rows = {{"id", "name", "layers (full/sliding/linear)", "params", "active", "KV KiB/token", "state MiB/seq", "max context"}};
  for (const auto& m : c.models()) {
    const ParamCounts p = count_params(m);
    const double active = p.active_linear + p.lm_head;
    rows.push_back({m.id, m.name,
                    fmt::format("{} ({}/{}/{}){}", m.layers, m.full_attention_layers, m.sliding_window_layers,
                                m.linear_attention_layers(), m.mla.present() ? " MLA" : ""),
                    billions(p.total), m.experts > 0 ? billions(active) : "-",
                    fmt::format("{:g}", kv_bytes_per_token(m, 2) / 1024.0),
                    m.linear_attention_layers() > 0
                        ? fmt::format("{:.1f}", linear_state_bytes_per_sequence(m) / (1024.0 * 1024.0))
                        : "-",
                    fmt::format("{}", m.max_position)});
  }
  out += table("Models (--model)", rows);

  rows = {{"id", "name", "format", "bits/weight", "LM head bits", "tensor math"}};
  for (const auto& q : c.quants())
    rows.push_back({q.id, q.name, q.format.empty() ? "-" : q.format, fmt::format("{:.3f}", q.bits_per_weight()),
                    fmt::format("{:g}", q.bits_for("lm_head")), q.tensor_math.empty() ? "16-bit" : q.tensor_math});
  out += table("Quantisations (--quant)", rows);

  rows = {{"id", "name", "bandwidth eff.", "decode compute eff.", "prefill compute eff.", "step overhead ms",
           "default mem util", "runs on"}};
  auto join = [](const std::vector<std::string>& list) {
    std::string out;
    for (const auto& f : list) out += (out.empty() ? "" : ", ") + f;
    return out.empty() ? std::string("any") : out;
  };
  for (const auto& e : c.engines())
    rows.push_back({e.id, e.name, fmt::format("{:g}", e.bandwidth_efficiency), fmt::format("{:g}", e.decode_compute_efficiency),
                    fmt::format("{:g}", e.prefill_compute_efficiency), fmt::format("{:g}", e.step_overhead_s * 1000),
                    fmt::format("{:g}", e.default_gpu_mem_util), join(e.backends)});
  out += table("Engines (--engine)", rows);
  // The combination rules, one line per engine (src/calc/compat.cc reads them).
  out += "Weight formats each engine loads (others are refused with the reason; * experimental: predicted with a warning):\n";
  for (const auto& e : c.engines()) {
    std::string list = join(e.quant_formats);
    for (const auto& [format, why] : e.experimental_quant_formats) list += ", " + format + "*";
    out += fmt::format("  {}: {}\n", e.id, list);
  }
  out += "\n";
  out += "Every entry's source: speedmatrix calc --list --format json. Add your own with --gpu-file, --model-file,\n"
         "--quant-file or --engine-file (same JSON layout as the built-in data/*.json).\n";
  return out;
}

nlohmann::json catalog_to_json(const Catalog& c) {
  using nlohmann::json;
  json gpus = json::array();
  for (const auto& g : c.gpus())
    gpus.push_back({{"id", g.id},
                    {"name", g.name},
                    {"aliases", g.aliases},
                    {"type", g.type},
                    {"memory_bytes", g.memory_bytes},
                    {"usable_memory_bytes", g.usable_memory_bytes},
                    {"bandwidth_bytes_per_s", g.bandwidth_bytes_per_s},
                    {"tensor_16bit_flops", g.tensor_16bit_flops},
                    {"tensor_16bit_fp32acc_flops", g.tensor_16bit_fp32acc_flops ? json(*g.tensor_16bit_fp32acc_flops) : json(nullptr)},
                    {"tensor_8bit_flops", g.tensor_8bit_flops ? json(*g.tensor_8bit_flops) : json(nullptr)},
                    {"tensor_8bit_formats", g.tensor_8bit_formats},
                    {"tensor_4bit_flops", g.tensor_4bit_flops ? json(*g.tensor_4bit_flops) : json(nullptr)},
                    {"tensor_4bit_formats", g.tensor_4bit_formats},
                    {"backend", g.backend},
                    {"dies", g.dies},
                    {"source", g.source}});
  json models = json::array();
  for (const auto& m : c.models()) {
    const ParamCounts p = count_params(m);
    models.push_back({{"id", m.id},
                      {"name", m.name},
                      {"aliases", m.aliases},
                      {"layers", m.layers},
                      {"full_attention_layers", m.full_attention_layers},
                      {"sliding_window_layers", m.sliding_window_layers},
                      {"linear_attention_layers", m.linear_attention_layers()},
                      {"sliding_window", m.sliding_window},
                      {"mla_kv_lora_rank", m.mla.kv_lora_rank},
                      {"params_total", p.total},
                      {"params_active_per_token", p.active_linear + p.lm_head},
                      {"kv_bytes_per_token_16bit", kv_bytes_per_token(m, 2)},
                      {"state_bytes_per_sequence", linear_state_bytes_per_sequence(m)},
                      {"max_position", m.max_position},
                      {"source", m.source}});
  }
  json quants = json::array();
  for (const auto& q : c.quants())
    quants.push_back({{"id", q.id},
                      {"name", q.name},
                      {"aliases", q.aliases},
                      {"bits_per_weight", q.bits_per_weight()},
                      {"lm_head_bits", q.bits_for("lm_head")},
                      {"embedding_bits", q.bits_for("embedding")},
                      {"activation_bits", q.activation_bits},
                      {"format", q.format},
                      {"tensor_math", q.tensor_math},
                      {"source", q.source}});
  json engines = json::array();
  for (const auto& e : c.engines())
    engines.push_back({{"id", e.id},
                       {"name", e.name},
                       {"aliases", e.aliases},
                       {"bandwidth_efficiency", e.bandwidth_efficiency},
                       {"decode_compute_efficiency", e.decode_compute_efficiency},
                       {"prefill_compute_efficiency", e.prefill_compute_efficiency},
                       {"step_overhead_s", e.step_overhead_s},
                       {"shared_prefix_reuse", e.shared_prefix_reuse},
                       {"default_gpu_mem_util", e.default_gpu_mem_util},
                       {"reserve_bytes", e.reserve_bytes},
                       {"backends", e.backends},
                       {"quant_formats", e.quant_formats},
                       {"experimental_quant_formats", e.experimental_quant_formats},
                       {"source", e.source},
                       {"notes", e.notes}});
  return {{"gpus", gpus}, {"models", models}, {"quants", quants}, {"engines", engines}};
}

}  // namespace sm::calc
