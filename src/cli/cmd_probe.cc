#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>

#include "cli/commands.h"
#include "cli/connection_flags.h"
#include "core/units.h"
#include "engines/probe.h"
#include "net/url.h"
#include "result/result_json.h"
#include "system/hardware_probe.h"

namespace sm::cli {

namespace {

struct ProbeFlags {
  std::string url;
  std::string api_key;
  ConnectionFlags connection;  ///< --cacert, --insecure, --header, --proxy
  std::string model;
  std::string format = "term";
};

std::string opt_tokens(const std::optional<int64_t>& v) { return v ? format_thousands(*v) : "unknown"; }

std::string bytes_gib(const std::optional<int64_t>& b) {
  return b ? fmt::format("{:.1f} GiB", static_cast<double>(*b) / (1024.0 * 1024 * 1024)) : "unknown";
}

void print_term(const ProbeResult& p, const HardwareInfo& h) {
  const EngineInfo& e = p.engine;
  std::printf("Engine\n");
  std::printf("  engine            %s%s\n", e.kind.c_str(), p.simulated ? " (simulated)" : "");
  std::printf("  version           %s\n", e.version.empty() ? "unknown" : e.version.c_str());
  if (!e.build.empty() && e.build != e.version) std::printf("  build             %s\n", e.build.c_str());
  std::printf("  model             %s\n", e.model.c_str());
  if (!e.model_path.empty() && e.model_path != e.model) std::printf("  model path        %s\n", e.model_path.c_str());
  std::printf("  max context       %s tokens per request\n", opt_tokens(e.max_model_len).c_str());
  std::printf("  KV capacity       %s tokens%s\n", opt_tokens(e.kv_capacity_tokens).c_str(),
              e.kv_capacity_source.empty() ? "" : fmt::format(" ({})", e.kv_capacity_source).c_str());
  if (e.slots) std::printf("  slots             %ld\n", static_cast<long>(*e.slots));
  std::printf("  tokenize endpoint %s\n", e.tokenize_endpoint ? "yes" : "no");
  std::printf("  prefix caching    %s\n", e.prefix_caching ? (*e.prefix_caching ? "on" : "off") : "unknown");
  std::printf("  exact output      %s\n", e.forces_output_length ? "yes (end-of-sequence ignored)" : "no (requests may end early)");
  for (const auto& n : p.notes) std::printf("  note: %s\n", n.c_str());
  std::printf("\nThis machine\n");
  std::printf("  type              %s\n", h.type.c_str());
  for (const auto& g : h.gpus)
    std::printf("  GPU               %s, %s%s%s\n", g.name.c_str(), bytes_gib(g.vram_bytes).c_str(),
                g.driver.empty() ? "" : (", driver " + g.driver).c_str(),
                g.pcie.empty() ? "" : (", PCIe " + g.pcie).c_str());
  if (h.gpus.empty())
    std::printf("  GPU               none found (no NVIDIA GPU through nvidia-smi, no AMD GPU in /sys)\n");
  std::printf("  CPU               %s (%s cores)\n", h.cpu_model.c_str(), h.cpu_cores ? std::to_string(*h.cpu_cores).c_str() : "?");
  std::printf("  RAM               %s\n", bytes_gib(h.ram_bytes).c_str());
  std::printf("  OS                %s, kernel %s\n", h.os.c_str(), h.kernel.c_str());
}

}  // namespace

void add_probe_command(CLI::App& app, Action& action) {
  auto flags = std::make_shared<ProbeFlags>();
  CLI::App* cmd = app.add_subcommand(
      "probe", "Detect engine, version, model, context and KV capacity of a server, and this machine's hardware");
  cmd->footer("Changes nothing on the server: only GET requests with no side effects.\n"
              "Example: speedmatrix probe --url http://127.0.0.1:8080 --format json");
  cmd->add_option("--url", flags->url, "Base URL of an OpenAI-compatible server")->required();
  cmd->add_option("--api-key", flags->api_key, "Bearer token; default: $SPEEDMATRIX_API_KEY, else $OPENAI_API_KEY");
  add_connection_flags(cmd, flags->connection, false, "the server");
  cmd->add_option("--model", flags->model, "Model to describe; default: the first the server lists");
  cmd->add_option("--format", flags->format, "'term' or 'json'")->capture_default_str()->check(CLI::IsMember({"term", "json"}));
  cmd->callback([flags, &action]() {
    action = [flags]() -> int {
      if (auto ok = check_http_url("--url", flags->url); !ok) {
        std::fprintf(stderr, "speedmatrix probe: %s\n", ok.error().message.c_str());
        return kExitUsage;
      }
      std::string url = flags->url;
      while (!url.empty() && url.back() == '/') url.pop_back();
      if (url.ends_with("/v1")) url.resize(url.size() - 3);
      std::string key = flags->api_key;
      if (key.empty())
        if (const char* k = std::getenv("SPEEDMATRIX_API_KEY"); k && *k) key = k;
      if (key.empty())
        if (const char* k = std::getenv("OPENAI_API_KEY"); k && *k) key = k;
      std::vector<std::string> headers;
      if (!key.empty()) headers.push_back("Authorization: Bearer " + key);
      auto connection = to_connection_options(flags->connection);
      if (!connection) {
        std::fprintf(stderr, "speedmatrix probe: %s\n", connection.error().message.c_str());
        return kExitUsage;
      }
      auto probed = probe_server({url, headers, flags->model}, default_transport(*connection));
      if (!probed) {
        std::fprintf(stderr, "speedmatrix probe: %s\n", probed.error().message.c_str());
        return kExitFailure;
      }
      HardwareInfo hw = probe_hardware();
      if (flags->format == "json") {
        RunResult r;  // reuse the result schema's engine and hardware objects
        r.engine = probed->engine;
        r.hardware = hw;
        auto j = to_json(r);
        nlohmann::json out = {{"engine", j["engine"]}, {"hardware", j["hardware"]}, {"simulated", probed->simulated},
                              {"models", probed->models}, {"notes", probed->notes}};
        std::puts(out.dump(2).c_str());
      } else {
        print_term(*probed, hw);
      }
      return kExitOk;
    };
  });
}

}  // namespace sm::cli
