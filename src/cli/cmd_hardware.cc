// `speedmatrix hardware`: this machine's hardware, probed exactly as `run` probes it. Run on the
// machine that serves the model, `--out FILE` writes the file that `run --server-hardware FILE`
// reads on the machine that measures it.
#include <fmt/format.h>

#include <cstdio>

#include "cli/commands.h"
#include "core/build_info.h"
#include "core/clock.h"
#include "report/report_model.h"
#include "result/hardware_file.h"
#include "system/hardware_probe.h"

namespace sm::cli {

namespace {

struct HardwareFlags {
  std::string out;
  std::string format = "term";
};

std::string gib(const std::optional<int64_t>& bytes) {
  return bytes ? fmt::format("{:.1f} GiB", static_cast<double>(*bytes) / (1024.0 * 1024 * 1024)) : "unknown";
}

std::string or_unknown(const std::string& s) { return s.empty() ? "unknown" : s; }

void print_term(const HardwareFile& file) {
  const HardwareInfo& h = file.hardware;
  std::printf("This machine: %s\n", report::hardware_display_name(h).c_str());
  std::printf("  type              %s\n", or_unknown(h.type).c_str());
  for (const auto& g : h.gpus) {
    std::string line = fmt::format("{}, {}", g.name, gib(g.vram_bytes));
    if (!g.driver.empty()) line += ", driver " + g.driver;
    if (g.power_limit_w) line += fmt::format(", {:.0f} W limit", *g.power_limit_w);
    if (!g.pcie.empty()) line += ", PCIe " + g.pcie;
    std::printf("  GPU               %s\n", line.c_str());
  }
  if (h.gpus.empty())
    std::printf("  GPU               none found (no NVIDIA GPU through nvidia-smi, no AMD GPU in /sys)\n");
  std::printf("  CPU               %s (%s cores)\n", or_unknown(h.cpu_model).c_str(),
              h.cpu_cores ? std::to_string(*h.cpu_cores).c_str() : "?");
  std::printf("  RAM               %s\n", gib(h.ram_bytes).c_str());
  std::printf("  OS                %s, kernel %s\n", or_unknown(h.os).c_str(), or_unknown(h.kernel).c_str());
  std::printf("  host              %s\n", or_unknown(h.hostname).c_str());
  std::printf("\nMeasuring a server on this machine from another one? Save this with\n"
              "  speedmatrix hardware --out server-hardware.json\n"
              "copy the file there, and run\n"
              "  speedmatrix run --url http://THIS-HOST:PORT --server-hardware server-hardware.json\n");
}

}  // namespace

void add_hardware_command(CLI::App& app, Action& action) {
  auto flags = std::make_shared<HardwareFlags>();
  CLI::App* cmd = app.add_subcommand(
      "hardware", "Show this machine's hardware as `run` records it, or write it to a file for --server-hardware");
  cmd->footer("Run it on the machine that runs the server; copy the file to the machine that measures it.\n"
              "Examples:\n"
              "  speedmatrix hardware\n"
              "  speedmatrix hardware --out gpu-box.json\n"
              "  speedmatrix run --url http://gpu-box:8000 --server-hardware gpu-box.json   (on the client)");
  cmd->add_option("--out", flags->out,
                  "Write the probe to this file (JSON), for `speedmatrix run --server-hardware FILE` on the "
                  "machine that measures this one's server");
  cmd->add_option("--format", flags->format, "What is printed: 'term' (readable) or 'json' (the file's content)")
      ->capture_default_str()
      ->check(CLI::IsMember({"term", "json"}));
  cmd->callback([flags, &action]() {
    action = [flags]() -> int {
      HardwareFile file;
      file.hardware = probe_hardware();
      file.hardware.source_detail = "probed by `speedmatrix hardware`";
      char buf[32];
      file.probed_at = std::string(format_iso8601_utc(wall_clock_unix_ms(), buf));
      file.tool_version = build::kVersion;
      if (!flags->out.empty()) {
        if (auto ok = write_hardware_file(flags->out, file); !ok) {
          std::fprintf(stderr, "speedmatrix hardware: --out: %s\n", ok.error().message.c_str());
          return kExitFailure;
        }
        std::fprintf(stderr, "speedmatrix hardware: wrote %s (%s); on the machine that measures this one, pass "
                     "--server-hardware %s to `speedmatrix run`\n",
                     flags->out.c_str(), report::hardware_display_name(file.hardware).c_str(), flags->out.c_str());
        if (flags->format != "json") return kExitOk;
      }
      if (flags->format == "json") {
        std::puts(hardware_file_json(file).dump(2).c_str());
      } else {
        print_term(file);
      }
      return kExitOk;
    };
  });
}

}  // namespace sm::cli
