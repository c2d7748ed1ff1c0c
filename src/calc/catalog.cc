#include "calc/catalog.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cmath>
#include <fmt/format.h>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>

#include "calc/embedded_data.h"

namespace sm::calc {

using nlohmann::json;

namespace {

// Reads the fields of one catalog entry, remembering the first problem and which keys were
// used, so unknown (misspelt) keys can be reported. Why not json::get: its exceptions name
// neither the file nor the entry.
class EntryReader {
 public:
  EntryReader(const json& entry, std::string where) : entry_(entry), where_(std::move(where)) {}

  std::string string(const char* key, bool required) {
    used_.insert(key);
    auto it = entry_.find(key);
    if (it == entry_.end() || it->is_null()) {
      if (required) problem(fmt::format("missing \"{}\"", key));
      return {};
    }
    if (!it->is_string()) {
      problem(fmt::format("\"{}\" must be a string", key));
      return {};
    }
    return it->get<std::string>();
  }

  std::optional<double> number(const char* key, bool required, double min_exclusive = 0) {
    used_.insert(key);
    auto it = entry_.find(key);
    if (it == entry_.end() || it->is_null()) {
      if (required) problem(fmt::format("missing \"{}\"", key));
      return std::nullopt;
    }
    if (!it->is_number()) {
      problem(fmt::format("\"{}\" must be a number", key));
      return std::nullopt;
    }
    double v = it->get<double>();
    if (!std::isfinite(v) || !(v > min_exclusive)) {
      problem(fmt::format("\"{}\" must be greater than {} (got {})", key, min_exclusive, v));
      return std::nullopt;
    }
    return v;
  }

  // A number in [lo, hi].
  std::optional<double> fraction(const char* key, bool required, double lo, double hi) {
    used_.insert(key);
    auto it = entry_.find(key);
    if (it == entry_.end() || it->is_null()) {
      if (required) problem(fmt::format("missing \"{}\"", key));
      return std::nullopt;
    }
    if (!it->is_number()) {
      problem(fmt::format("\"{}\" must be a number", key));
      return std::nullopt;
    }
    double v = it->get<double>();
    if (!std::isfinite(v) || v < lo || v > hi) {
      problem(fmt::format("\"{}\" must be between {} and {} (got {})", key, lo, hi, v));
      return std::nullopt;
    }
    return v;
  }

  // A whole number ≥ min.
  int64_t integer(const char* key, bool required, int64_t min = 1, int64_t fallback = 0) {
    used_.insert(key);
    auto it = entry_.find(key);
    if (it == entry_.end() || it->is_null()) {
      if (required) problem(fmt::format("missing \"{}\"", key));
      return fallback;
    }
    if (!it->is_number_integer() && !(it->is_number_float() && std::floor(it->get<double>()) == it->get<double>())) {
      problem(fmt::format("\"{}\" must be a whole number", key));
      return fallback;
    }
    auto v = static_cast<int64_t>(it->get<double>());
    if (v < min) {
      problem(fmt::format("\"{}\" must be at least {} (got {})", key, min, v));
      return fallback;
    }
    return v;
  }

  bool boolean(const char* key, bool fallback) {
    used_.insert(key);
    auto it = entry_.find(key);
    if (it == entry_.end() || it->is_null()) return fallback;
    if (!it->is_boolean()) {
      problem(fmt::format("\"{}\" must be true or false", key));
      return fallback;
    }
    return it->get<bool>();
  }

  std::vector<std::string> strings(const char* key) {
    used_.insert(key);
    std::vector<std::string> out;
    auto it = entry_.find(key);
    if (it == entry_.end() || it->is_null()) return out;
    if (!it->is_array()) {
      problem(fmt::format("\"{}\" must be a list of strings", key));
      return out;
    }
    for (const auto& v : *it) {
      if (!v.is_string()) {
        problem(fmt::format("\"{}\" must be a list of strings", key));
        return {};
      }
      out.push_back(v.get<std::string>());
    }
    return out;
  }

  // A list of objects, each read by its own reader.
  const json* array(const char* key) {
    used_.insert(key);
    auto it = entry_.find(key);
    if (it == entry_.end() || it->is_null()) return nullptr;
    if (!it->is_array()) {
      problem(fmt::format("\"{}\" must be a list", key));
      return nullptr;
    }
    return &*it;
  }

  // A nested object, read by its own reader (its unknown keys are reported too).
  const json* object(const char* key) {
    used_.insert(key);
    auto it = entry_.find(key);
    if (it == entry_.end() || it->is_null()) return nullptr;
    if (!it->is_object()) {
      problem(fmt::format("\"{}\" must be an object", key));
      return nullptr;
    }
    return &*it;
  }

  void problem(std::string text) {
    if (error_.empty()) error_ = fmt::format("{}: {}", where_, text);
  }

  // The first problem, including unknown keys.
  Result<void> finish() {
    if (error_.empty()) {
      for (const auto& [key, value] : entry_.items()) {
        if (!used_.contains(key)) {
          problem(fmt::format("unknown key \"{}\"", key));
          break;
        }
      }
    }
    if (!error_.empty()) return fail(ErrorCode::InvalidArgument, error_);
    return {};
  }

  const std::string& where() const { return where_; }

 private:
  const json& entry_;
  std::string where_;
  std::set<std::string> used_;
  std::string error_;
};

Result<GpuSpec> parse_gpu(const json& e, const std::string& where) {
  EntryReader r(e, where);
  GpuSpec g;
  g.id = r.string("id", true);
  g.name = r.string("name", false);
  if (g.name.empty()) g.name = g.id;
  g.aliases = r.strings("aliases");
  if (const json* names = r.array("reported_names")) {
    for (size_t i = 0; i < names->size(); ++i) {
      EntryReader n((*names)[i], fmt::format("{}: reported_names[{}]", where, i));
      ReportedGpuName reported{n.string("name", true), n.string("reporter", true), n.string("source", true)};
      if (auto ok = n.finish(); !ok) return std::unexpected(ok.error());
      g.reported_names.push_back(std::move(reported));
    }
  }
  if (auto t = r.string("type", false); !t.empty()) g.type = t;
  auto memory = r.number("memory_gib", true);
  auto usable = r.number("usable_memory_gib", false);
  auto bandwidth = r.number("bandwidth_gb_s", true);
  auto tflops = r.number("tensor_16bit_tflops", true);
  auto fp32acc = r.number("tensor_16bit_fp32acc_tflops", false);
  auto eight = r.number("tensor_8bit_tflops", false);
  g.tensor_8bit_formats = r.strings("tensor_8bit_formats");
  auto four = r.number("tensor_4bit_tflops", false);
  g.tensor_4bit_formats = r.strings("tensor_4bit_formats");
  g.backend = r.string("backend", false);
  g.dies = static_cast<int>(r.integer("dies", false, 1, 1));
  g.class_name = r.string("class", false);
  g.source = r.string("source", true);
  if (auto ok = r.finish(); !ok) return std::unexpected(ok.error());
  g.memory_bytes = static_cast<int64_t>(*memory * kBytesPerGiB);
  g.usable_memory_bytes = static_cast<int64_t>((usable ? *usable : *memory * kDefaultUsableMemoryFraction) * kBytesPerGiB);
  if (g.usable_memory_bytes > g.memory_bytes)
    return fail(ErrorCode::InvalidArgument, fmt::format("{}: usable_memory_gib is above memory_gib", where));
  g.bandwidth_bytes_per_s = *bandwidth * 1e9;
  g.tensor_16bit_flops = *tflops * 1e12;
  if (fp32acc) g.tensor_16bit_fp32acc_flops = *fp32acc * 1e12;
  if (eight) g.tensor_8bit_flops = *eight * 1e12;
  if (four) g.tensor_4bit_flops = *four * 1e12;
  if (g.backend.empty())
    g.backend = g.type == "Apple silicon" ? "metal" : g.name.starts_with("AMD") ? "rocm" : "cuda";
  auto bad = [&where](std::string text) { return fail(ErrorCode::InvalidArgument, fmt::format("{}: {}", where, text)); };
  if (!g.class_name.empty() && !is_gpu_class(g.class_name))
    return bad(fmt::format("class: unknown class \"{}\" (geforce, workstation, datacenter, apple)", g.class_name));
  for (const auto& f : g.tensor_8bit_formats)
    if (f != "int8" && f != "fp8") return bad(fmt::format("tensor_8bit_formats: unknown format \"{}\" (int8, fp8)", f));
  for (const auto& f : g.tensor_4bit_formats)
    if (f != "nvfp4" && f != "mxfp4") return bad(fmt::format("tensor_4bit_formats: unknown format \"{}\" (nvfp4, mxfp4)", f));
  if (!g.tensor_8bit_formats.empty() && !eight) return bad("tensor_8bit_formats needs tensor_8bit_tflops");
  if (!g.tensor_4bit_formats.empty() != four.has_value()) return bad("tensor_4bit_tflops and tensor_4bit_formats go together");
  return g;
}

Result<ModelShape> parse_model(const json& e, const std::string& where) {
  EntryReader r(e, where);
  ModelShape m;
  m.id = r.string("id", true);
  m.name = r.string("name", false);
  if (m.name.empty()) m.name = m.id;
  m.aliases = r.strings("aliases");
  m.layers = r.integer("layers", true);
  m.full_attention_layers = r.integer("full_attention_layers", true, 0);
  m.sliding_window_layers = r.integer("sliding_window_layers", false, 0);
  m.sliding_window = r.integer("sliding_window", false, 0);
  m.hidden_size = r.integer("hidden_size", true);
  m.intermediate_size = r.integer("intermediate_size", true, 0);
  m.q_heads = r.integer("q_heads", true);
  m.kv_heads = r.integer("kv_heads", true);
  m.head_dim = r.integer("head_dim", true);
  m.attention_output_gate = r.boolean("attention_output_gate", false);
  m.vocab_size = r.integer("vocab_size", true);
  m.tied_embeddings = r.boolean("tied_embeddings", false);
  m.max_position = r.integer("max_position", true);
  m.experts = r.integer("experts", false, 0);
  m.active_experts = r.integer("active_experts", false, 0);
  m.expert_intermediate_size = r.integer("expert_intermediate_size", false, 0);
  m.shared_expert_intermediate_size = r.integer("shared_expert_intermediate_size", false, 0);
  m.moe_layers = r.integer("moe_layers", false, 0);
  if (const json* la = r.object("linear_attention")) {
    EntryReader lr(*la, r.where() + ".linear_attention");
    m.linear_attention.key_heads = lr.integer("key_heads", true);
    m.linear_attention.value_heads = lr.integer("value_heads", true);
    m.linear_attention.key_head_dim = lr.integer("key_head_dim", true);
    m.linear_attention.value_head_dim = lr.integer("value_head_dim", true);
    m.linear_attention.conv_kernel = lr.integer("conv_kernel", false, 0);
    m.linear_attention.state_bytes_per_element = lr.integer("state_bytes_per_element", false, 1, 4);
    if (auto ok = lr.finish(); !ok) return std::unexpected(ok.error());
  }
  if (const json* mla = r.object("mla")) {
    EntryReader mr(*mla, r.where() + ".mla");
    m.mla.q_lora_rank = mr.integer("q_lora_rank", false, 0);
    m.mla.kv_lora_rank = mr.integer("kv_lora_rank", true);
    m.mla.qk_nope_head_dim = mr.integer("qk_nope_head_dim", true);
    m.mla.qk_rope_head_dim = mr.integer("qk_rope_head_dim", true);
    m.mla.v_head_dim = mr.integer("v_head_dim", true);
    if (auto ok = mr.finish(); !ok) return std::unexpected(ok.error());
  }
  m.source = r.string("source", true);
  if (auto ok = r.finish(); !ok) return std::unexpected(ok.error());

  auto bad = [&where](std::string text) { return fail(ErrorCode::InvalidArgument, fmt::format("{}: {}", where, text)); };
  if (m.full_attention_layers + m.sliding_window_layers > m.layers)
    return bad("full_attention_layers + sliding_window_layers exceed layers");
  if (m.sliding_window_layers > 0 && m.sliding_window <= 0) return bad("sliding_window_layers needs sliding_window");
  if (m.linear_attention_layers() > 0 && m.linear_attention.value_heads == 0)
    return bad(fmt::format("{} layers are neither full nor sliding attention: give \"linear_attention\"",
                           m.linear_attention_layers()));
  if (m.experts > 0 && (m.active_experts < 1 || m.active_experts > m.experts || m.expert_intermediate_size < 1))
    return bad("MoE models need 1 <= active_experts <= experts and expert_intermediate_size");
  if (m.experts == 0 && m.intermediate_size == 0) return bad("dense models need intermediate_size");
  if (m.moe_layers > m.layers) return bad("moe_layers exceeds layers");
  if (m.experts > 0 && m.moe_layer_count() < m.layers && m.intermediate_size == 0)
    return bad("the dense layers of a partly-MoE model need intermediate_size");
  return m;
}

Result<QuantSpec> parse_quant(const json& e, const std::string& where) {
  EntryReader r(e, where);
  QuantSpec q;
  q.id = r.string("id", true);
  q.name = r.string("name", false);
  if (q.name.empty()) q.name = q.id;
  q.aliases = r.strings("aliases");
  auto bits = r.fraction("weight_bits", true, 1, 32);
  q.group_size = r.integer("group_size", false, 0);
  auto scale = r.fraction("scale_bits", false, 0, 32);
  auto zero = r.fraction("zero_bits", false, 0, 32);
  q.activation_bits = static_cast<int>(r.integer("activation_bits", false, 4, 16));
  q.keep_16bit = r.strings("keep_16bit");
  q.format = r.string("format", false);
  q.tensor_math = r.string("tensor_math", false);
  if (const json* cb = r.object("class_bits")) {
    for (const auto& [key, value] : cb->items()) {
      if (!value.is_number() || value.get<double>() <= 0 || value.get<double>() > 32)
        r.problem(fmt::format("class_bits \"{}\" must be a number of bits in (0, 32]", key));
      else
        q.class_bits[key] = value.get<double>();
    }
  }
  q.source = r.string("source", true);
  if (auto ok = r.finish(); !ok) return std::unexpected(ok.error());
  // Files without tensor_math: 8-bit activations run on whichever 8-bit format the GPU has.
  if (q.tensor_math.empty() && q.activation_bits <= 8) q.tensor_math = "8-bit";
  q.weight_bits = *bits;
  q.scale_bits = scale.value_or(0);
  q.zero_bits = zero.value_or(0);
  auto known_class = [](const std::string& c) {
    return std::any_of(std::begin(kTensorClasses), std::end(kTensorClasses), [&c](const char* k) { return c == k; });
  };
  if (!q.tensor_math.empty() && q.tensor_math != "int8" && q.tensor_math != "fp8" && q.tensor_math != "nvfp4" &&
      q.tensor_math != "mxfp4")
    return fail(ErrorCode::InvalidArgument,
                fmt::format("{}: tensor_math: unknown format \"{}\" (int8, fp8, nvfp4, mxfp4)", where, q.tensor_math));
  for (const auto& c : q.keep_16bit)
    if (!known_class(c)) return fail(ErrorCode::InvalidArgument, fmt::format("{}: keep_16bit: unknown tensor class \"{}\"", where, c));
  for (const auto& [c, b] : q.class_bits)
    if (!known_class(c)) return fail(ErrorCode::InvalidArgument, fmt::format("{}: class_bits: unknown tensor class \"{}\"", where, c));
  return q;
}

Result<EngineParams> parse_engine(const json& e, const std::string& where) {
  EntryReader r(e, where);
  EngineParams p;
  p.id = r.string("id", true);
  p.name = r.string("name", false);
  if (p.name.empty()) p.name = p.id;
  p.aliases = r.strings("aliases");
  p.bandwidth_efficiency = r.fraction("bandwidth_efficiency", true, 0.01, 1).value_or(0);
  p.attention_bandwidth_efficiency = r.fraction("attention_bandwidth_efficiency", false, 0.01, 1).value_or(0);
  p.no_flash_attention_efficiency = r.fraction("no_flash_attention_efficiency", false, 0.001, 1).value_or(0);
  p.no_flash_attention_prefill_efficiency =
      r.fraction("no_flash_attention_prefill_efficiency", false, 0.001, 1).value_or(0);
  p.decode_compute_efficiency = r.fraction("decode_compute_efficiency", true, 0.01, 1).value_or(0);
  p.emulated_fp4_weight_efficiency = r.fraction("emulated_fp4_weight_efficiency", false, 0.05, 1).value_or(0);
  p.expert_gemm_half_rows = r.fraction("expert_gemm_half_rows", false, 0, 1e5).value_or(0);
  p.prefill_compute_efficiency = r.fraction("prefill_compute_efficiency", true, 0.01, 1).value_or(0);
  p.step_overhead_s = r.fraction("step_overhead_ms", true, 0, 1000).value_or(0) / 1000.0;
  p.eager_overhead_s_per_layer = r.fraction("eager_overhead_ms_per_layer", false, 0, 100).value_or(0) / 1000.0;
  p.die_sync_s_per_layer = r.fraction("die_sync_ms_per_layer", false, 0, 100).value_or(0) / 1000.0;
  p.shared_prefix_reuse = r.fraction("shared_prefix_reuse", false, 0, 1).value_or(0);
  p.tp_loss_per_extra_gpu = r.fraction("tp_loss_per_extra_gpu", false, 0, 0.5).value_or(0.08);
  p.default_gpu_mem_util = r.fraction("default_gpu_mem_util", true, 0.05, 1).value_or(0);
  p.reserve_bytes = static_cast<int64_t>(r.fraction("reserve_gib", false, 0, 1024).value_or(0) * kBytesPerGiB);
  p.max_batched_tokens = r.integer("max_batched_tokens", false, 1, 2048);
  p.max_batched_tokens_large_gpu = r.integer("max_batched_tokens_large_gpu", false, 1, p.max_batched_tokens);
  p.large_gpu_memory_bytes = static_cast<int64_t>(r.fraction("large_gpu_memory_gib", false, 0, 1e6).value_or(0) * kBytesPerGiB);
  p.max_num_seqs = r.integer("max_num_seqs", false, 1, 256);
  p.request_overhead_s = r.fraction("request_overhead_ms", false, 0, 1e5).value_or(0) / 1000.0;
  p.tokenize_s_per_token = r.fraction("tokenize_us_per_token", false, 0, 1e4).value_or(0) / 1e6;
  if (const json* errors = r.object("error_80")) {
    for (const auto& [key, value] : errors->items()) {
      const auto slash = key.find('/');
      const std::string family = key.substr(0, slash);
      if (slash == std::string::npos || (family != "decode" && family != "prefill") || !value.is_number() ||
          !(value.get<double>() > 0) || value.get<double>() > 100)
        r.problem(fmt::format("error_80 \"{}\" must be \"decode/<class>\" or \"prefill/<class>\" with a fraction > 0", key));
      else
        p.error_80[key] = value.get<double>();
    }
  }
  p.error_80_little_evidence = r.strings("error_80_little_evidence");
  for (const auto& key : p.error_80_little_evidence)
    if (!p.error_80.count(key))
      r.problem(fmt::format("error_80_little_evidence \"{}\" is not an error_80 key", key));
  p.error_source = r.string("error_source", false);
  p.backends = r.strings("backends");
  p.quant_formats = r.strings("quant_formats");
  if (const json* exp = r.object("experimental_quant_formats")) {
    for (const auto& [key, value] : exp->items()) {
      if (!value.is_string() || value.get<std::string>().empty())
        r.problem(fmt::format("experimental_quant_formats \"{}\" must be a reason (a string)", key));
      else
        p.experimental_quant_formats[key] = value.get<std::string>();
    }
  }
  p.source = r.string("source", true);
  p.notes = r.string("notes", false);
  if (auto ok = r.finish(); !ok) return std::unexpected(ok.error());
  return p;
}

template <class T>
void upsert(std::vector<T>& list, T entry) {
  auto it = std::find_if(list.begin(), list.end(), [&entry](const T& e) { return e.id == entry.id; });
  if (it != list.end())
    *it = std::move(entry);
  else
    list.push_back(std::move(entry));
}

// Levenshtein distance.
size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j)
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

// The part after the last '/', for Hugging Face names like "Qwen/Qwen3.5-4B".
std::string_view last_path_part(std::string_view name) {
  auto slash = name.rfind('/');
  return slash == std::string_view::npos ? name : name.substr(slash + 1);
}

template <class T>
Result<T> find_entry(const std::vector<T>& list, std::string_view name, std::string_view kind, std::string_view flag) {
  const std::string full = normalize_name(name);
  const std::string tail = normalize_name(last_path_part(name));
  for (const std::string& key : {full, tail}) {
    if (key.empty()) continue;
    for (const T& e : list) {
      // Its display name too: "AMD Instinct MI300X" is what the catalog itself shows and what
      // rocm-smi reports, and matched nothing while only ids and aliases were compared.
      if (normalize_name(e.id) == key || normalize_name(e.name) == key) return e;
      for (const auto& a : e.aliases)
        if (normalize_name(a) == key || normalize_name(last_path_part(a)) == key) return e;
      // A GPU also by the names drivers report ("NVIDIA H100 80GB HBM3": data/gpus.json's
      // reported_names, each with its source).
      if constexpr (requires { e.reported_names; })
        for (const auto& r : e.reported_names)
          if (normalize_name(r.name) == key) return e;
    }
  }
  std::vector<std::string> ids;
  for (const T& e : list) ids.push_back(e.id);
  auto close = closest_names(last_path_part(name), ids);
  std::string hint;
  for (const auto& c : close) hint += (hint.empty() ? "" : ", ") + c;
  return fail(ErrorCode::InvalidArgument,
              fmt::format("unknown {} '{}'; closest: {} (see `speedmatrix calc --list`, or add one with {})", kind,
                          name, hint.empty() ? "none" : hint, flag));
}

}  // namespace

std::string normalize_name(std::string_view name) {
  std::string out;
  for (char ch : name) {
    unsigned char c = static_cast<unsigned char>(ch);
    if (std::isalnum(c) || c == '.') out.push_back(static_cast<char>(std::tolower(c)));
  }
  return out;
}

std::vector<std::string> closest_names(std::string_view query, const std::vector<std::string>& candidates,
                                       size_t limit) {
  const std::string q = normalize_name(query);
  std::vector<std::pair<size_t, std::string>> scored;
  for (const auto& c : candidates) {
    const std::string n = normalize_name(c);
    size_t d = edit_distance(q, n);
    // Containment (the user typed part of a name, or a name plus extras) ranks first.
    if (!q.empty() && (n.find(q) != std::string::npos || q.find(n) != std::string::npos)) d = 0;
    const size_t budget = std::max<size_t>(2, std::max(q.size(), n.size()) / 2);
    if (d <= budget) scored.emplace_back(d, c);
  }
  std::stable_sort(scored.begin(), scored.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::string> out;
  for (const auto& [d, c] : scored) {
    if (out.size() >= limit) break;
    out.push_back(c);
  }
  return out;
}

Result<Catalog> Catalog::builtin() {
  Catalog c;
  for (const EmbeddedFile& f : embedded_data_files()) {
    if (auto ok = c.add_json(f.content, fmt::format("built-in data/{}", f.name)); !ok)
      return std::unexpected(ok.error());
  }
  if (c.gpus_.empty() || c.models_.empty() || c.quants_.empty() || c.engines_.empty())
    return fail(ErrorCode::Internal, "built-in calculator data is incomplete");
  return c;
}

Result<void> Catalog::add_json(std::string_view text, std::string_view origin, std::string_view default_kind,
                               bool class_from_specs) {
  json doc = json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false, /*ignore_comments=*/true);
  if (doc.is_discarded())
    return fail(ErrorCode::InvalidArgument, fmt::format("{}: not valid JSON", origin));

  auto add_list = [this, origin, class_from_specs](const json& list, std::string_view kind) -> Result<void> {
    if (!list.is_array())
      return fail(ErrorCode::InvalidArgument, fmt::format("{}: \"{}\" must be a list of entries", origin, kind));
    for (size_t i = 0; i < list.size(); ++i) {
      const json& e = list[i];
      std::string where = fmt::format("{}: {}[{}]", origin, kind, i);
      if (!e.is_object()) return fail(ErrorCode::InvalidArgument, where + ": must be an object");
      if (auto id = e.find("id"); id != e.end() && id->is_string()) where += fmt::format(" (\"{}\")", id->get<std::string>());
      if (kind == "gpus") {
        auto g = parse_gpu(e, where);
        if (!g) return std::unexpected(g.error());
        if (class_from_specs && g->class_name.empty()) g->class_name = gpu_class_from_specs(*g);
        upsert(gpus_, std::move(*g));
      } else if (kind == "models") {
        auto m = parse_model(e, where);
        if (!m) return std::unexpected(m.error());
        upsert(models_, std::move(*m));
      } else if (kind == "quants") {
        auto q = parse_quant(e, where);
        if (!q) return std::unexpected(q.error());
        upsert(quants_, std::move(*q));
      } else {
        auto p = parse_engine(e, where);
        if (!p) return std::unexpected(p.error());
        upsert(engines_, std::move(*p));
      }
    }
    return {};
  };

  static constexpr std::string_view kKinds[] = {"gpus", "models", "quants", "engines"};
  if (doc.is_object()) {
    bool any = false;
    for (std::string_view kind : kKinds) {
      auto it = doc.find(std::string(kind));
      if (it == doc.end()) continue;
      any = true;
      if (auto ok = add_list(*it, kind); !ok) return ok;
    }
    if (any) {
      for (const auto& [key, value] : doc.items()) {
        if (key == "schema" || key == "description") continue;
        if (std::find(std::begin(kKinds), std::end(kKinds), key) == std::end(kKinds))
          return fail(ErrorCode::InvalidArgument,
                      fmt::format("{}: unknown key \"{}\" (expected gpus, models, quants or engines)", origin, key));
      }
      return {};
    }
    if (default_kind.empty())
      return fail(ErrorCode::InvalidArgument,
                  fmt::format("{}: expected an object with \"gpus\", \"models\", \"quants\" or \"engines\"", origin));
    return add_list(json::array({doc}), default_kind);
  }
  if (doc.is_array() && !default_kind.empty()) return add_list(doc, default_kind);
  return fail(ErrorCode::InvalidArgument,
              fmt::format("{}: expected an object with \"gpus\", \"models\", \"quants\" or \"engines\"", origin));
}

Result<void> Catalog::add_file(const std::string& path, std::string_view default_kind) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return fail(ErrorCode::Io, fmt::format("cannot read {}", path));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return fail(ErrorCode::Io, fmt::format("cannot read {}", path));
  return add_json(text.str(), path, default_kind, /*class_from_specs=*/true);
}

Result<std::string> Catalog::add_gpu_figures(const std::string& name, double memory_gb, double bandwidth_gb_s,
                                             double tensor_16bit_tflops, const std::string& class_name) {
  std::string id = normalize_name(name);
  if (id.empty()) id = "custom-gpu";
  json e = {{"id", id},
            {"name", name},
            {"memory_gib", memory_gb},
            {"bandwidth_gb_s", bandwidth_gb_s},
            {"tensor_16bit_tflops", tensor_16bit_tflops},
            {"source", fmt::format("the command line: {:g} GB, {:g} GB/s, {:g} dense 16-bit TFLOPS", memory_gb,
                                   bandwidth_gb_s, tensor_16bit_tflops)}};
  if (!class_name.empty()) e["class"] = class_name;
  const json doc = {{"gpus", json::array({e})}};
  if (auto ok = add_json(doc.dump(), "--gpu-bandwidth/--gpu-tflops/--gpu-memory", "gpus", /*class_from_specs=*/true); !ok)
    return std::unexpected(ok.error());
  return id;
}

Result<GpuSpec> Catalog::find_gpu(std::string_view name) const { return find_entry(gpus_, name, "GPU", "--gpu-file"); }
Result<ModelShape> Catalog::find_model(std::string_view name) const {
  return find_entry(models_, name, "model", "--model-file");
}
Result<QuantSpec> Catalog::find_quant(std::string_view name) const {
  auto found = find_entry(quants_, name, "quantisation", "--quant-file");
  if (found) return found;
  // EXL2/EXL3 at any rate: "exl2-4.65bpw" takes the catalog's 4.0 bpw entry with 4.65 bits.
  const std::string n = normalize_name(name);
  for (const char* family : {"exl2", "exl3"}) {
    if (!n.starts_with(family) || !n.ends_with("bpw")) continue;
    const std::string number = n.substr(4, n.size() - 7);
    char* end = nullptr;
    const double bits = std::strtod(number.c_str(), &end);
    if (number.empty() || end != number.c_str() + number.size() || !(bits >= 2 && bits <= 8.5)) break;
    auto base = find_entry(quants_, std::string(family) + "-4.0bpw", "quantisation", "--quant-file");
    if (!base) break;
    QuantSpec q = *base;
    q.weight_bits = bits;
    q.id = fmt::format("{}-{:g}bpw", family, bits);
    q.name = fmt::format("{} {:g} bpw", family[3] == '2' ? "EXL2" : "EXL3", bits);
    q.aliases.clear();
    return q;
  }
  return found;
}
Result<EngineParams> Catalog::find_engine(std::string_view name) const {
  return find_entry(engines_, name, "engine", "--engine-file");
}

}  // namespace sm::calc
