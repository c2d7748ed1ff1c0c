// speedmatrix synth-model: writes a llama GGUF with random weights for tests against llama-server.
#include <fmt/format.h>

#include <cstdio>
#include <memory>
#include <optional>

#include "cli/commands.h"
#include "core/units.h"
#include "gguf/model_shape.h"
#include "gguf/synth_model.h"

namespace sm::cli {

namespace {

struct SynthFlags {
  std::string shape = "tiny";
  std::optional<uint32_t> layers;
  std::optional<uint32_t> hidden;
  std::optional<uint32_t> heads;
  std::optional<uint32_t> kv_heads;
  std::optional<uint32_t> ffn;
  std::string ctx;
  std::string type = "f16";
  uint64_t seed = 1;
  std::string out;
};

// Turns the flags into validated options; errors name the flag.
Result<gguf::SynthOptions> to_options(const SynthFlags& f) {
  gguf::SynthOptions o;
  auto shape = gguf::preset_shape(f.shape);
  if (!shape) return fail(ErrorCode::InvalidArgument, "--shape: " + shape.error().message);
  o.shape = *shape;
  bool custom = false;
  auto override_dim = [&custom](uint32_t& dim, const std::optional<uint32_t>& flag) {
    if (flag && *flag != dim) {
      dim = *flag;
      custom = true;
    }
  };
  override_dim(o.shape.layers, f.layers);
  override_dim(o.shape.hidden, f.hidden);
  override_dim(o.shape.heads, f.heads);
  override_dim(o.shape.kv_heads, f.kv_heads);
  override_dim(o.shape.ffn, f.ffn);
  if (!f.ctx.empty()) {
    auto ctx = parse_token_count(f.ctx);
    if (!ctx) return fail(ErrorCode::InvalidArgument, "--ctx: " + ctx.error().message);
    if (*ctx <= 0 || *ctx > int64_t{1} << 20) {
      return fail(ErrorCode::InvalidArgument, "--ctx must be between 1 and 1M tokens");
    }
    override_dim(o.shape.ctx_train, static_cast<uint32_t>(*ctx));
  }
  if (custom) o.shape.name = "custom";
  auto type = gguf::parse_tensor_type(f.type);
  if (!type) return fail(ErrorCode::InvalidArgument, "--type: " + type.error().message);
  o.type = *type;
  if (auto ok = gguf::validate(o.shape, o.type); !ok) return std::unexpected(ok.error());
  o.seed = f.seed;
  o.out_path = f.out.empty() ? fmt::format("synth-{}-{}.gguf", o.shape.name, gguf::to_string(o.type)) : f.out;
  return o;
}

int synth(const SynthFlags& flags) {
  auto options = to_options(flags);
  if (!options) {
    std::fprintf(stderr, "speedmatrix synth-model: %s\n", options.error().message.c_str());
    return kExitUsage;
  }
  auto summary = gguf::write_synth_model(*options);
  if (!summary) {
    std::fprintf(stderr, "speedmatrix synth-model: %s\n", summary.error().message.c_str());
    return summary.error().code == ErrorCode::InvalidArgument ? kExitUsage : kExitFailure;
  }
  const gguf::ModelShape& s = options->shape;
  std::printf("wrote %s: llama, shape %s, %u layers, hidden %u, %u heads (%u kv, head size %u), ffn %u, "
              "ctx %u, %s, vocab %u, %s parameters, %s bytes, KV cache %s bytes/token (f16)\n",
              options->out_path.c_str(), s.name.c_str(), s.layers, s.hidden, s.heads, s.kv_heads, s.head_dim(),
              s.ffn, s.ctx_train, std::string(gguf::to_string(options->type)).c_str(), summary->vocab_size,
              format_thousands(static_cast<int64_t>(summary->parameters)).c_str(),
              format_thousands(static_cast<int64_t>(summary->file_size_bytes)).c_str(),
              format_thousands(static_cast<int64_t>(s.kv_bytes_per_token_f16())).c_str());
  return kExitOk;
}

}  // namespace

void add_synth_model_command(CLI::App& app, Action& action) {
  auto flags = std::make_shared<SynthFlags>();
  CLI::App* cmd = app.add_subcommand("synth-model", "Write a GGUF model with random weights of a chosen shape");
  cmd->footer(
      "The model is llama-architecture (GGUF v3) with a 101-token vocabulary: one token per\n"
      "printable ASCII character, tab or newline, plus <s>, </s>, <|im_start|>, <|im_end|>\n"
      "and a ChatML chat template. llama-server loads and serves it like any model; its text\n"
      "is noise, its speed is that of the shape. Control tokens are never generated, so\n"
      "each token streams as one character and only max_tokens ends a generation.\n"
      "Presets (layers/hidden/heads/kv-heads/ffn/ctx):\n"
      "  tiny    2/64/4/2/192/32K      small  4/256/8/4/768/32K      medium  8/512/8/4/1536/32K\n"
      "Dimension flags override the preset's.\n"
      "Examples:\n"
      "  speedmatrix synth-model --shape tiny --out tiny.gguf\n"
      "  speedmatrix synth-model --shape small --type q8_0 --seed 7 --out small-q8.gguf\n"
      "  speedmatrix synth-model --layers 16 --hidden 1024 --heads 16 --kv-heads 4 --ffn 2816 --ctx 64K");
  cmd->add_option("--shape", flags->shape, "Preset shape: tiny, small or medium")->capture_default_str();
  cmd->add_option("--layers", flags->layers, "Transformer blocks");
  cmd->add_option("--hidden", flags->hidden, "Embedding width (a multiple of --heads)");
  cmd->add_option("--heads", flags->heads, "Attention (query) heads");
  cmd->add_option("--kv-heads", flags->kv_heads, "Key/value heads; must divide --heads");
  cmd->add_option("--ffn", flags->ffn, "Feed-forward width");
  cmd->add_option("--ctx", flags->ctx, "Training context length in tokens (n_ctx_train), e.g. 32K");
  cmd->add_option("--type", flags->type, "Weight type of the matrices: f32, f16 or q8_0")->capture_default_str();
  cmd->add_option("--seed", flags->seed, "Seed of the weights; same seed and shape, same file")->capture_default_str();
  cmd->add_option("--out", flags->out, "File to write (default synth-<shape>-<type>.gguf)");
  cmd->callback([flags, &action]() { action = [flags]() { return synth(*flags); }; });
}

}  // namespace sm::cli
