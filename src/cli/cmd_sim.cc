// `speedmatrix sim`: the simulated engine as a standalone server, until SIGINT/SIGTERM.
#include <fmt/format.h>
#include <signal.h>

#include <charconv>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>

#include "calc/catalog.h"
#include "calc/hf_config.h"
#include "cli/gpu_figure_flags.h"
#include "cli/commands.h"
#include "net/url.h"
#include "core/units.h"
#include "sim/calc_sim_config.h"
#include "sim/sim_server.h"

namespace sm::cli {

namespace {

struct SimFlags {
  std::string listen = "127.0.0.1:8000";
  std::string gpu;
  std::string model;
  std::string quant;
  std::string engine = "vllm";
  int gpus = 1;
  std::optional<double> gpu_mem_util;
  std::string kv_dtype = "auto";
  std::string engine_version = "0.10.1";
  std::string served_model_name;
  std::string kv_capacity;
  std::string max_model_len;
  std::optional<int64_t> max_num_seqs;
  std::string max_num_batched_tokens;
  int32_t block_size = 16;
  int32_t stream_interval = 1;
  bool no_prefix_caching = false;
  std::string attention_window;  ///< --attention-window: the model reads only the last N prompt tokens
  std::string model_config;      ///< --model-config: a Hugging Face config.json (the model, unless --model)
  GpuFigureFlags gpu_figures;    ///< --gpu-bandwidth, --gpu-tflops, --gpu-memory, --gpu-class
  int32_t spec_tokens = 0;          ///< --spec-tokens
  double spec_accept_rate = 0.7;    ///< --spec-accept
};

Result<sim::SimConfig> to_config(const SimFlags& f) {
  auto with_flag = [](const char* flag, const Error& e) { return fail(e.code, fmt::format("{}: {}", flag, e.message)); };
  // Nothing named: the seed page's setup. Anything named: the rest defaults to the seed's names
  // and the engine's own memory utilisation.
  sim::SimTarget target = f.gpu.empty() && f.model.empty() && f.quant.empty() && f.model_config.empty() &&
                                  !f.gpu_figures.bandwidth_gb_s
                              ? sim::SimTarget::seed()
                              : sim::SimTarget{};
  if (!f.gpu.empty()) target.gpu = f.gpu;
  if (!f.model.empty()) target.model = f.model;
  if (!f.quant.empty()) target.quant = f.quant;
  target.engine = f.engine;
  target.gpus = f.gpus;
  if (f.gpu_mem_util) target.gpu_mem_util = f.gpu_mem_util;
  if (f.kv_dtype == "auto" || f.kv_dtype == "bf16" || f.kv_dtype == "fp16") target.kv_bytes_per_element = 2;
  else if (f.kv_dtype == "fp8" || f.kv_dtype == "fp8_e4m3" || f.kv_dtype == "fp8_e5m2") target.kv_bytes_per_element = 1;
  else return fail(ErrorCode::InvalidArgument, "--kv-dtype must be auto, bf16, fp16 or fp8");
  target.max_num_seqs = f.max_num_seqs;
  if (!f.max_num_batched_tokens.empty()) {
    auto v = parse_token_count(f.max_num_batched_tokens);
    if (!v) return with_flag("--max-num-batched-tokens", v.error());
    target.max_batched_tokens = *v;
  }
  if (!f.kv_capacity.empty()) {
    auto v = parse_token_count(f.kv_capacity);
    if (!v) return with_flag("--kv-capacity", v.error());
    target.kv_capacity_tokens = *v;
  }
  if (!f.max_model_len.empty()) {
    auto v = parse_token_count(f.max_model_len);
    if (!v) return with_flag("--max-model-len", v.error());
    target.max_model_len = *v;
  }
  auto catalog = calc::Catalog::builtin();
  if (!catalog) return std::unexpected(catalog.error());
  if (!f.model_config.empty()) {
    auto id = calc::add_hf_config(*catalog, f.model_config);
    if (!id) return std::unexpected(id.error());
    if (f.model.empty()) target.model = *id;
  }
  if (f.gpu_figures.bandwidth_gb_s || f.gpu_figures.tflops || f.gpu_figures.memory_gb || !f.gpu_figures.class_name.empty()) {
    std::string gpu = f.gpu;
    if (auto ok = cli::apply_gpu_figure_flags(f.gpu_figures, *catalog, gpu); !ok) return std::unexpected(ok.error());
    target.gpu = gpu;
  }
  auto c = sim::sim_config_from_calc(target, *catalog);
  if (!c) return c;
  if (f.engine != "vllm" && catalog->find_engine(f.engine)->id != "vllm")
    std::fprintf(stderr, "speedmatrix sim: note: %s's speed, but vLLM's HTTP API (the only one simulated so far)\n",
                 f.engine.c_str());
  auto listen = parse_listen_address(f.listen);
  if (!listen) return std::unexpected(listen.error());
  c->listen_host = listen->host;
  c->port = listen->port;
  c->served_model_name = f.served_model_name;
  c->engine_version = f.engine_version;
  c->block_size = f.block_size;
  c->stream_interval = f.stream_interval;
  c->enable_prefix_caching = !f.no_prefix_caching;
  c->spec_tokens = f.spec_tokens;
  c->spec_accept_rate = f.spec_accept_rate;
  if (!f.attention_window.empty()) {
    auto v = parse_token_count(f.attention_window);
    if (!v) return with_flag("--attention-window", v.error());
    c->attention_window_tokens = *v;
  }
  if (auto ok = c->validate(); !ok) return std::unexpected(ok.error());
  return c;
}

int serve(const SimFlags& flags) {
  auto config = to_config(flags);
  if (!config) {
    std::fprintf(stderr, "speedmatrix sim: %s\n", config.error().message.c_str());
    return kExitUsage;
  }
  // Block the stop signals before any thread starts, then wait for one here.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  auto server = sim::SimServer::start(*config);
  if (!server) {
    std::fprintf(stderr, "speedmatrix sim: %s\n", server.error().message.c_str());
    return kExitFailure;
  }
  const sim::SimConfig& c = (*server)->config();
  std::fprintf(stderr,
               "speedmatrix sim: serving %s at %s  (SIMULATED: vLLM %s API, speed of %s)\n"
               "  KV cache %s tokens (blocks of %d), max model len %s, max num seqs %d, step budget %d tokens\n"
               "  step cost: %s\n"
               "  Ctrl-C stops it.\n",
               (*server)->model_id().c_str(), (*server)->base_url().c_str(), c.engine_version.c_str(),
               c.gpu_name.c_str(), format_thousands(c.kv_capacity_tokens).c_str(), c.block_size,
               format_thousands(c.max_model_len).c_str(), c.max_num_seqs, c.max_num_batched_tokens,
               c.cost_model->describe().c_str());
  int sig = 0;
  sigwait(&stop_signals, &sig);
  (*server)->stop();
  sim::SimStats s = (*server)->stats();
  std::fprintf(stderr, "speedmatrix sim: stopped (%lld requests, %lld tokens generated, %lld late steps)\n",
               static_cast<long long>(s.scheduler.requests_added),
               static_cast<long long>(s.scheduler.generation_tokens), static_cast<long long>(s.late_steps));
  return kExitOk;
}

}  // namespace

void add_sim_command(CLI::App& app, Action& action) {
  auto flags = std::make_shared<SimFlags>();
  CLI::App* cmd = app.add_subcommand("sim", "Serve the calculator's prediction as an OpenAI-compatible HTTP server");
  cmd->footer(
      "Without --gpu/--model/--quant it simulates the seed page's setup: RTX 3090, Qwen3.5-4B AWQ 4-bit,\n"
      "vLLM at --gpu-memory-utilization 0.94. Every response says it is simulated: the model id ends in\n"
      "'-simulated' and every response has the header 'x-speedmatrix-simulated: true'. Sizes accept\n"
      "K and M suffixes (K = 1024). docs/sim.md explains what is simulated.\n"
      "Examples:\n"
      "  speedmatrix sim\n"
      "  speedmatrix sim --gpu h100-sxm --model llama-3.1-8b --quant bf16 --listen 127.0.0.1:8001\n"
      "  speedmatrix sim --kv-capacity 64K --max-model-len 32K --stream-interval 4");
  cmd->add_option("--listen", flags->listen, "HOST:PORT to listen on (port 0 = any free port)")->capture_default_str();
  cmd->add_option("--gpu", flags->gpu, "GPU whose speed is simulated (see `speedmatrix calc --list`; default rtx3090)");
  cmd->add_option("--model", flags->model, "Model shape from the catalog (default qwen3.5-4b)");
  add_gpu_figure_flags(cmd, flags->gpu_figures);
  cmd->add_option("--model-config", flags->model_config,
                  "A Hugging Face config.json of a model the catalog lacks; it becomes --model unless one is given");
  cmd->add_option("--quant", flags->quant, "Weight quantisation (default awq-4bit)");
  cmd->add_option("--engine", flags->engine, "Engine whose speed is simulated; the API is always vLLM's")
      ->capture_default_str();
  cmd->add_option("--gpus", flags->gpus, "Tensor-parallel GPUs")->capture_default_str();
  cmd->add_option("--gpu-mem-util", flags->gpu_mem_util,
                  "Fraction of GPU memory the engine takes (default: 0.94 for the seed setup, else the engine's)");
  cmd->add_option("--kv-dtype", flags->kv_dtype, "KV-cache element type: auto, bf16, fp16 or fp8")->capture_default_str();
  cmd->add_option("--engine-version", flags->engine_version, "Engine version reported by /version (with '-sim')")
      ->capture_default_str();
  cmd->add_option("--served-model-name", flags->served_model_name,
                  "Model id clients use (default: <Model>-<quant>-simulated)");
  cmd->add_option("--kv-capacity", flags->kv_capacity, "KV-cache capacity in tokens (default: the calculator's)");
  cmd->add_option("--max-model-len", flags->max_model_len,
                  "Longest prompt + output of one request (default: the model's, capped to the KV cache)");
  cmd->add_option("--max-num-seqs", flags->max_num_seqs, "Running requests at most (default: the engine's)");
  cmd->add_option("--max-num-batched-tokens", flags->max_num_batched_tokens,
                  "Tokens one engine step may compute, the chunked-prefill budget (default: the engine's for this GPU)");
  cmd->add_option("--block-size", flags->block_size, "Tokens per KV-cache block")->capture_default_str();
  cmd->add_option("--stream-interval", flags->stream_interval, "Output tokens per stream chunk")->capture_default_str();
  cmd->add_option("--attention-window", flags->attention_window,
                  "The simulated model reads only a prompt's last TOKENS tokens (0: all): a retrieval check whose "
                  "needle lies before them gets a wrong answer. Speed is unchanged");
  cmd->add_flag("--no-enable-prefix-caching", flags->no_prefix_caching, "Turn the prefix cache off");
  cmd->add_option("--spec-tokens", flags->spec_tokens,
                  "Speculative decoding: draft tokens each decode step verifies per request (vLLM's "
                  "num_speculative_tokens; 0: none). The step yields 1 + the accepted drafts and /metrics exports "
                  "vLLM's spec_decode counters")
      ->capture_default_str();
  cmd->add_option("--spec-accept", flags->spec_accept_rate,
                  "Speculative decoding: the chance each draft token is accepted, until the first that is not")
      ->capture_default_str();
  cmd->callback([flags, &action]() {
    action = [flags]() { return serve(*flags); };
  });
}

}  // namespace sm::cli
