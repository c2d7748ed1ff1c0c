#include "calc/hf_config.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace sm::calc {

namespace {

using nlohmann::json;

// A positive integer field, or std::nullopt when absent or null.
Result<std::optional<int64_t>> integer_field(const json& c, const char* key, const std::string& origin) {
  const auto it = c.find(key);
  if (it == c.end() || it->is_null()) return std::optional<int64_t>{};
  if (!it->is_number_integer() || it->get<int64_t>() < 0)
    return fail(ErrorCode::InvalidArgument, fmt::format("{}: \"{}\" is not a whole number", origin, key));
  return std::optional<int64_t>(it->get<int64_t>());
}

// The first of `keys` the config has, as an integer.
Result<std::optional<int64_t>> first_integer(const json& c, std::initializer_list<const char*> keys, const std::string& origin) {
  for (const char* key : keys) {
    auto v = integer_field(c, key, origin);
    if (!v || *v) return v;
  }
  return std::optional<int64_t>{};
}

}  // namespace

Result<json> model_entry_from_hf_config(const json& config_in, const std::string& id, const std::string& origin) {
  if (!config_in.is_object()) return fail(ErrorCode::InvalidArgument, origin + ": not a JSON object (a config.json)");
  const json& c = config_in.contains("text_config") && config_in["text_config"].is_object() ? config_in["text_config"] : config_in;
  auto need = [&](const char* key) -> Result<int64_t> {
    auto v = integer_field(c, key, origin);
    if (!v) return std::unexpected(v.error());
    if (!*v || **v <= 0)
      return fail(ErrorCode::InvalidArgument, fmt::format("{}: no \"{}\" (is this a Hugging Face config.json?)", origin, key));
    return **v;
  };
#define SM_TRY(var, expr)                                  \
  auto var##_r = (expr);                                   \
  if (!var##_r) return std::unexpected(var##_r.error());   \
  const auto var = *var##_r
  SM_TRY(layers, need("num_hidden_layers"));
  SM_TRY(hidden, need("hidden_size"));
  SM_TRY(q_heads, need("num_attention_heads"));
  SM_TRY(vocab, need("vocab_size"));
  SM_TRY(max_position, need("max_position_embeddings"));
  SM_TRY(kv_heads_opt, integer_field(c, "num_key_value_heads", origin));
  SM_TRY(head_dim_opt, integer_field(c, "head_dim", origin));
  SM_TRY(intermediate_opt, integer_field(c, "intermediate_size", origin));
  SM_TRY(experts_opt, first_integer(c, {"num_experts", "num_local_experts", "n_routed_experts"}, origin));
  SM_TRY(active_opt, first_integer(c, {"num_experts_per_tok", "experts_per_token"}, origin));
  SM_TRY(moe_intermediate_opt, integer_field(c, "moe_intermediate_size", origin));
  SM_TRY(shared_intermediate_opt, integer_field(c, "shared_expert_intermediate_size", origin));
  SM_TRY(shared_experts_opt, integer_field(c, "n_shared_experts", origin));
  SM_TRY(first_dense_opt, integer_field(c, "first_k_dense_replace", origin));
  SM_TRY(kv_lora_opt, integer_field(c, "kv_lora_rank", origin));
  SM_TRY(sliding_opt, integer_field(c, "sliding_window", origin));
#undef SM_TRY

  json e;
  e["id"] = id;
  e["name"] = id;
  e["layers"] = layers;
  e["hidden_size"] = hidden;
  e["q_heads"] = q_heads;
  e["kv_heads"] = kv_heads_opt.value_or(q_heads);
  e["vocab_size"] = vocab;
  e["max_position"] = max_position;
  e["tied_embeddings"] = c.value("tie_word_embeddings", false);

  // Which layers attend how: layer_types names each ("full_attention", "sliding_attention",
  // "linear_attention"); without it every layer is full attention.
  int64_t full = layers, sliding = 0;
  if (const auto it = c.find("layer_types"); it != c.end() && it->is_array()) {
    full = sliding = 0;
    for (const auto& t : *it) {
      const std::string type = t.is_string() ? t.get<std::string>() : "";
      if (type == "full_attention") ++full;
      else if (type == "sliding_attention") ++sliding;
      else
        return fail(ErrorCode::InvalidArgument,
                    fmt::format("{}: layer type \"{}\" is not one the config reader knows (full_attention, "
                                "sliding_attention); write a --model-file entry (data/models.json layout) instead",
                                origin, type));
    }
    if (full + sliding != layers)
      return fail(ErrorCode::InvalidArgument, fmt::format("{}: layer_types names {} layers, num_hidden_layers {}",
                                                          origin, full + sliding, layers));
  }
  e["full_attention_layers"] = full;
  if (sliding > 0) {
    if (!sliding_opt || *sliding_opt <= 0)
      return fail(ErrorCode::InvalidArgument, origin + ": sliding_attention layers without a sliding_window");
    e["sliding_window_layers"] = sliding;
    e["sliding_window"] = *sliding_opt;
  }

  // MLA (DeepSeek-V2/V3): the per-head dims come from the latent's parts.
  if (kv_lora_opt && *kv_lora_opt > 0) {
    json mla;
    mla["kv_lora_rank"] = *kv_lora_opt;
    for (const char* key : {"q_lora_rank", "qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim"}) {
      auto v = integer_field(c, key, origin);
      if (!v) return std::unexpected(v.error());
      if (*v) mla[key] = **v;
    }
    e["mla"] = mla;
    e["head_dim"] = mla.value("qk_nope_head_dim", int64_t{0}) + mla.value("qk_rope_head_dim", int64_t{0});
  } else {
    e["head_dim"] = head_dim_opt.value_or(hidden / q_heads);
  }

  const int64_t experts = experts_opt.value_or(0);
  if (experts > 0) {
    e["experts"] = experts;
    e["active_experts"] = active_opt.value_or(0);
    // Mixtral's experts are intermediate_size wide; Qwen-MoE's and DeepSeek's moe_intermediate_size.
    const int64_t expert_width = moe_intermediate_opt.value_or(intermediate_opt.value_or(0));
    e["expert_intermediate_size"] = expert_width;
    if (shared_intermediate_opt && *shared_intermediate_opt > 0)
      e["shared_expert_intermediate_size"] = *shared_intermediate_opt;
    else if (shared_experts_opt && *shared_experts_opt > 0)
      e["shared_expert_intermediate_size"] = *shared_experts_opt * expert_width;
    const int64_t dense_layers = first_dense_opt.value_or(0);
    if (dense_layers > 0) {
      e["moe_layers"] = layers - dense_layers;
      e["intermediate_size"] = intermediate_opt.value_or(0);  // the leading dense layers' width
    } else {
      e["intermediate_size"] = 0;  // every layer's MLP is MoE
    }
  } else {
    e["intermediate_size"] = intermediate_opt.value_or(0);
  }
  e["source"] = fmt::format("{} (read by --model-config)", origin);
  return e;
}

Result<std::string> add_hf_config(Catalog& catalog, const std::string& path) {
  std::ifstream in(path);
  if (!in) return fail(ErrorCode::InvalidArgument, fmt::format("--model-config: cannot read {}", path));
  std::stringstream text;
  text << in.rdbuf();
  const json config = json::parse(text.str(), nullptr, false);
  if (config.is_discarded()) return fail(ErrorCode::InvalidArgument, fmt::format("--model-config: {} is not JSON", path));
  namespace fs = std::filesystem;
  std::string id = config.is_object() ? config.value("_name_or_path", std::string()) : std::string();
  if (id.empty()) {
    const fs::path p(path);
    const std::string folder = p.parent_path().filename().string();
    id = !folder.empty() && folder != "." && folder != ".." ? folder : p.stem().string();
  }
  if (const size_t slash = id.find_last_of('/'); slash != std::string::npos && slash + 1 < id.size()) id = id.substr(slash + 1);
  auto entry = model_entry_from_hf_config(config, id, path);
  if (!entry) return std::unexpected(entry.error());
  const json doc = {{"models", json::array({*entry})}};
  if (auto ok = catalog.add_json(doc.dump(), path, "models"); !ok)
    return fail(ok.error().code, "--model-config: " + ok.error().message);
  return id;
}

}  // namespace sm::calc
