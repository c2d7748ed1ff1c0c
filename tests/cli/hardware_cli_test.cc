// `speedmatrix hardware` and `run --server-hardware / --gpu / --gpu-count` as a user runs them:
// the real binary, against the scripted server.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "result/result_json.h"
#include "support/scripted_server.h"
#include "support/temp_dir.h"
#include "system/hardware_probe.h"

namespace sm {
namespace {

using nlohmann::json;

struct Outcome {
  int exit_code = -1;
  std::string out;
  std::string err;
};

// Runs the binary with `args` (a shell fragment); stdout and stderr go to files.
Outcome run_binary(const test::TempDir& dir, const std::string& args) {
  std::string out = dir.file("stdout.txt"), err = dir.file("stderr.txt");
  std::string cmd = "'" + std::string(SPEEDMATRIX_BINARY) + "' " + args + " >'" + out + "' 2>'" + err + "'";
  int status = std::system(cmd.c_str());
  Outcome r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = test::read_file(out);
  r.err = test::read_file(err);
  return r;
}

std::string q(const std::string& s) { return "'" + s + "'"; }

// A one-cell matrix, quick.
std::string tiny_run(const test::ScriptedServer& server, const std::string& out_dir) {
  return "run --url " + server.url() +
         " --contexts 0 --concurrency 1 --prefill-contexts none --duration 0.2 --max-output 16 --no-selftest --quiet"
         " --out " + q(out_dir);
}

TEST(HardwareCli, PrintsTheProbeReadablyOrAsJson) {
  test::TempDir dir;
  const HardwareInfo here = probe_hardware();
  Outcome term = run_binary(dir, "hardware");
  ASSERT_EQ(term.exit_code, 0) << term.err;
  EXPECT_TRUE(term.out.starts_with("This machine: ")) << term.out;
  EXPECT_NE(term.out.find(here.cpu_model), std::string::npos);
  EXPECT_NE(term.out.find("--server-hardware"), std::string::npos);

  Outcome as_json = run_binary(dir, "hardware --format json");
  ASSERT_EQ(as_json.exit_code, 0) << as_json.err;
  json j = json::parse(as_json.out);
  EXPECT_EQ(j["schema"], "speedmatrix-hardware-v1");
  EXPECT_EQ(j["hardware"]["cpu_model"], here.cpu_model);
  EXPECT_EQ(j["hardware"]["source"], "probed");

  EXPECT_EQ(run_binary(dir, "hardware --format yaml").exit_code, 2);
  Outcome unwritable = run_binary(dir, "hardware --out " + q(dir.file("no/such/folder/hw.json")));
  EXPECT_EQ(unwritable.exit_code, 1);
  EXPECT_NE(unwritable.err.find("--out"), std::string::npos) << unwritable.err;
}

// The workflow: `hardware --out` on the server's machine, `run --server-hardware` on the client.
TEST(HardwareCli, HardwareOutRoundTripsIntoRunServerHardware) {
  test::ScriptedServer server;
  test::TempDir dir;
  Outcome written = run_binary(dir, "hardware --out " + q(dir.file("server-hw.json")));
  ASSERT_EQ(written.exit_code, 0) << written.err;
  EXPECT_NE(written.err.find("--server-hardware"), std::string::npos) << written.err;
  json file = json::parse(test::read_file(dir.file("server-hw.json")));
  ASSERT_EQ(file["schema"], "speedmatrix-hardware-v1");

  Outcome run = run_binary(dir, tiny_run(server, dir.file("run")) + " --server-hardware " + q(dir.file("server-hw.json")));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.err.find("the server's hardware is declared"), std::string::npos) << run.err;
  auto result = read_result_file(dir.file("run/result.json"));
  ASSERT_TRUE(result.has_value()) << result.error().message;
  EXPECT_EQ(result->hardware.source, HardwareSource::Declared);
  json recorded = hardware_to_json(result->hardware);
  for (const char* key : {"type", "gpus", "cpu_model", "cpu_cores", "ram_bytes", "os", "kernel", "hostname"})
    EXPECT_EQ(recorded[key], file["hardware"][key]) << key;
  EXPECT_NE(result->hardware.source_detail.find("--server-hardware: probed by `speedmatrix hardware`"), std::string::npos);
  ASSERT_TRUE(result->client_hardware.has_value());
  EXPECT_EQ(result->client_hardware->source, HardwareSource::Probed);
  // The scripted server is on loopback: the declaration is kept (an SSH tunnel looks the same), and said.
  ASSERT_FALSE(result->warnings.empty());
  EXPECT_NE(result->warnings[0].find("looks like it runs on this machine (127.0.0.1 is a loopback address)"),
            std::string::npos)
      << result->warnings[0];
}

TEST(HardwareCli, GpuFlagsDeclareTheServersGpus) {
  test::ScriptedServer server;
  test::TempDir dir;
  Outcome run = run_binary(dir, tiny_run(server, dir.file("run")) + " --gpu 'RTX 3090' --gpu-count 2");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  auto result = read_result_file(dir.file("run/result.json"));
  ASSERT_TRUE(result.has_value()) << result.error().message;
  EXPECT_EQ(result->hardware.source, HardwareSource::Declared);
  ASSERT_EQ(result->hardware.gpus.size(), 2u);
  EXPECT_EQ(result->hardware.gpus[0].name, "NVIDIA GeForce RTX 3090");
  EXPECT_NE(test::read_file(dir.file("run/report.md")).find("on 2× RTX 3090 24GB"), std::string::npos);
}

TEST(HardwareCli, BadDeclarationsAreRefusedNamingTheFlag) {
  test::TempDir dir;
  RunResult interrupted;  // a run folder to --resume
  interrupted.run_id = "r1";
  interrupted.target_url = "http://127.0.0.1:1";
  interrupted.settings.contexts = {0};
  interrupted.settings.concurrency = {1};
  std::filesystem::create_directories(dir.file("prev"));
  ASSERT_TRUE(write_result_file(dir.file("prev/result.json"), interrupted));
  struct Case {
    std::string args;
    std::string says;
  };
  const std::vector<Case> cases = {
      {"run --url http://127.0.0.1:1 --gpu-count 2", "--gpu-count needs --gpu"},
      {"run --url http://127.0.0.1:1 --gpu 'RTX 3090' --gpu-count 0", "--gpu-count must be at least 1"},
      {"run --url http://127.0.0.1:1 --server-hardware " + q(dir.file("missing.json")),
       "--server-hardware: cannot read " + dir.file("missing.json")},
      {"run --url http://127.0.0.1:1 --server-hardware /dev/null", "is not valid JSON"},
      {"run --url http://127.0.0.1:1 --server-hardware x.json --gpu H100", "give one of them"},
      {"run --launch 'llama-server --port 8080' --gpu H100", "--gpu: --launch starts the server on this machine"},
      {"run --gpu H100", "--gpu: without --url, run measures the built-in simulated engine"},
      {"run --resume " + q(dir.file("prev")) + " --gpu H100", "--gpu: --resume keeps the hardware the interrupted run recorded"},
  };
  for (const auto& c : cases) {
    Outcome r = run_binary(dir, c.args);
    EXPECT_EQ(r.exit_code, 2) << c.args << "\n" << r.err;
    EXPECT_NE(r.err.find(c.says), std::string::npos) << c.args << "\n" << r.err;
    EXPECT_TRUE(r.err.starts_with("speedmatrix run: ")) << r.err;
  }
  Outcome help = run_binary(dir, "run --help");
  for (const char* flag : {"--server-hardware", "--gpu", "--gpu-count", "speedmatrix hardware --out"})
    EXPECT_NE(help.out.find(flag), std::string::npos) << flag;
}

}  // namespace
}  // namespace sm
