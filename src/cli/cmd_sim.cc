// `speedmatrix sim`: the simulated engine as a standalone server, until SIGINT/SIGTERM.
#include <fmt/format.h>
#include <signal.h>

#include <charconv>
#include <cstdio>
#include <memory>
#include <string>

#include "cli/commands.h"
#include "core/units.h"
#include "sim/linear_cost_model.h"
#include "sim/sim_server.h"

namespace sm::cli {

namespace {

struct SimFlags {
  std::string listen = "127.0.0.1:8000";
  std::string gpu = "RTX 3090";
  std::string model = "Qwen3.5-4B";
  std::string quant = "AWQ";
  std::string engine = "vllm";
  std::string engine_version = "0.10.1";
  std::string served_model_name;
  std::string kv_capacity;
  std::string max_model_len;
  int32_t max_num_seqs = 256;
  int32_t max_num_batched_tokens = 2048;
  int32_t block_size = 16;
  int32_t stream_interval = 1;
  bool no_prefix_caching = false;
};

// "HOST:PORT", "[v6]:PORT" or ":PORT" (loopback).
Result<std::pair<std::string, uint16_t>> parse_listen(std::string_view text) {
  size_t colon = text.rfind(':');
  if (colon == std::string_view::npos) return fail(ErrorCode::InvalidArgument, "--listen must be HOST:PORT");
  std::string host(text.substr(0, colon));
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  if (host.empty()) host = "127.0.0.1";
  std::string_view port_text = text.substr(colon + 1);
  unsigned port = 0;
  auto r = std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
  if (r.ec != std::errc{} || r.ptr != port_text.data() + port_text.size() || port > 65535)
    return fail(ErrorCode::InvalidArgument, fmt::format("--listen: '{}' is not a port", port_text));
  return std::pair{host, static_cast<uint16_t>(port)};
}

Result<sim::SimConfig> to_config(const SimFlags& f) {
  sim::SimConfig c;
  auto listen = parse_listen(f.listen);
  if (!listen) return std::unexpected(listen.error());
  c.listen_host = listen->first;
  c.port = listen->second;
  if (f.engine != "vllm") return fail(ErrorCode::InvalidArgument, "--engine: only 'vllm' is simulated for now");
  c.model_name = f.quant.empty() ? f.model : f.model + "-" + f.quant;
  c.served_model_name = f.served_model_name;
  c.engine_version = f.engine_version;
  c.gpu_name = f.gpu;
  if (!f.kv_capacity.empty()) {
    auto v = parse_token_count(f.kv_capacity);
    if (!v) return fail(ErrorCode::InvalidArgument, "--kv-capacity: " + v.error().message);
    c.kv_capacity_tokens = *v;
  }
  if (!f.max_model_len.empty()) {
    auto v = parse_token_count(f.max_model_len);
    if (!v) return fail(ErrorCode::InvalidArgument, "--max-model-len: " + v.error().message);
    c.max_model_len = *v;
  }
  c.max_num_seqs = f.max_num_seqs;
  c.max_num_batched_tokens = f.max_num_batched_tokens;
  c.block_size = f.block_size;
  c.stream_interval = f.stream_interval;
  c.enable_prefix_caching = !f.no_prefix_caching;
  // TODO(sim): take the step cost and the KV capacity from the calculator for --gpu/--model/--quant
  // once src/calc/perf_model.h exists; until then a fixed linear model stands in.
  c.cost_model = std::make_shared<sim::LinearCostModel>(sim::LinearCostParams{});
  if (auto ok = c.validate(); !ok) return std::unexpected(ok.error());
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
               "speedmatrix sim: serving %s (SIMULATED vLLM %s on %s) at %s\n"
               "  KV cache %lld tokens in blocks of %d, max model len %lld, max num seqs %d, step budget %d tokens\n"
               "  step cost: %s\n"
               "  Ctrl-C stops it.\n",
               (*server)->model_id().c_str(), c.engine_version.c_str(), c.gpu_name.c_str(),
               (*server)->base_url().c_str(), static_cast<long long>(c.kv_capacity_tokens), c.block_size,
               static_cast<long long>(c.max_model_len), c.max_num_seqs, c.max_num_batched_tokens,
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
      "Every response says it is simulated: the model id ends in '-simulated' and every response has\n"
      "the header 'x-speedmatrix-simulated: true'. Sizes accept K and M suffixes (K = 1024).\n"
      "Examples:\n"
      "  speedmatrix sim\n"
      "  speedmatrix sim --listen 127.0.0.1:8001 --kv-capacity 520K --max-num-seqs 512");
  cmd->add_option("--listen", flags->listen, "HOST:PORT to listen on (port 0 = any free port)")->capture_default_str();
  cmd->add_option("--gpu", flags->gpu, "GPU whose speed is simulated")->capture_default_str();
  cmd->add_option("--model", flags->model, "Model whose speed is simulated")->capture_default_str();
  cmd->add_option("--quant", flags->quant, "Quantisation of the model")->capture_default_str();
  cmd->add_option("--engine", flags->engine, "Engine imitated on the wire (vllm)")->capture_default_str();
  cmd->add_option("--engine-version", flags->engine_version, "Engine version reported by /version (with '-sim')")
      ->capture_default_str();
  cmd->add_option("--served-model-name", flags->served_model_name,
                  "Model id clients use (default: <model>-<quant>-simulated)");
  cmd->add_option("--kv-capacity", flags->kv_capacity, "KV-cache capacity in tokens (default 520K)");
  cmd->add_option("--max-model-len", flags->max_model_len, "Longest prompt + output of one request (default 256K)");
  cmd->add_option("--max-num-seqs", flags->max_num_seqs, "Running requests at most")->capture_default_str();
  cmd->add_option("--max-num-batched-tokens", flags->max_num_batched_tokens,
                  "Tokens one engine step may compute (chunked-prefill budget)")
      ->capture_default_str();
  cmd->add_option("--block-size", flags->block_size, "Tokens per KV-cache block")->capture_default_str();
  cmd->add_option("--stream-interval", flags->stream_interval, "Output tokens per stream chunk")->capture_default_str();
  cmd->add_flag("--no-enable-prefix-caching", flags->no_prefix_caching, "Turn the prefix cache off");
  cmd->callback([flags, &action]() {
    action = [flags]() { return serve(*flags); };
  });
}

}  // namespace sm::cli
