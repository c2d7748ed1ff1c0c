// Which machine a run is credited to: declared hardware, the local/remote rules, and runs
// against the scripted server standing in for a server on another machine (its locality is
// injected: on loopback it is, truly, this machine).
#include "bench/attribution.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>

#include "bench/resume.h"
#include "bench/runner.h"
#include "report/report.h"
#include "report/report_model.h"
#include "result/hardware_file.h"
#include "result/redact_result.h"
#include "result/result_json.h"
#include "site/json_schema.h"
#include "site/site_data.h"
#include "support/scripted_server.h"
#include "support/temp_dir.h"
#include "system/hardware_probe.h"

namespace sm {
namespace {

using test::ScriptedServer;

HardwareInfo server_box() {
  HardwareInfo h;
  h.type = "Discrete GPU";
  h.gpus.push_back(GpuInfo{"NVIDIA H100 80GB HBM3", int64_t{80} << 30, "570.86.15", 700.0, "Gen5 x16"});
  h.gpus.push_back(h.gpus.front());
  h.cpu_model = "AMD EPYC 9654 96-Core Processor";
  h.hostname = "gpu-box";
  return h;
}

HardwareInfo laptop() {
  HardwareInfo h;
  h.type = "CPU only";
  h.cpu_model = "Intel(R) Core(TM) i7-1185G7 @ 3.00GHz";
  h.hostname = "laptop";
  return h;
}

std::string write_text(const test::TempDir& dir, const std::string& name, const std::string& text) {
  std::ofstream(dir.file(name)) << text;
  return dir.file(name);
}

Error declare_error(const HardwareDeclaration& d) {
  auto r = declared_hardware(d);
  EXPECT_FALSE(r.has_value());
  return r ? Error{} : r.error();
}

TEST(DeclaredHardware, NothingDeclaredIsNothing) {
  auto r = declared_hardware({});
  ASSERT_TRUE(r.has_value());
  EXPECT_FALSE(r->has_value());
}

TEST(DeclaredHardware, GpuFlagsLookTheNameUpInTheCatalog) {
  auto r = declared_hardware({.gpu = "RTX 3090", .gpu_count = 2});
  ASSERT_TRUE(r.has_value()) << r.error().message;
  ASSERT_TRUE(r->has_value());
  const HardwareInfo& h = **r;
  EXPECT_EQ(h.source, HardwareSource::Declared);
  ASSERT_EQ(h.gpus.size(), 2u);
  EXPECT_EQ(h.gpus[1].name, "NVIDIA GeForce RTX 3090");
  EXPECT_EQ(h.gpus[1].vram_bytes, int64_t{24} << 30);
  EXPECT_EQ(h.type, "Discrete GPU");
  EXPECT_EQ(h.source_detail, "--gpu \"RTX 3090\" --gpu-count 2");
  // The same name a probed RTX 3090 gets, so the site groups them together.
  EXPECT_EQ(report::hardware_display_name(h), "2× RTX 3090 24GB");

  auto one = declared_hardware({.gpu = "Acme Tensor X9"});
  ASSERT_TRUE(one.has_value());
  ASSERT_TRUE(one->has_value());
  ASSERT_EQ((*one)->gpus.size(), 1u);
  EXPECT_EQ((*one)->gpus[0].name, "Acme Tensor X9");
  EXPECT_FALSE((*one)->gpus[0].vram_bytes.has_value());
  EXPECT_NE((*one)->source_detail.find("not in the calculator's catalog"), std::string::npos);
}

TEST(DeclaredHardware, BadCombinationsNameTheFlag) {
  EXPECT_NE(declare_error({.gpu_count = 2}).message.find("--gpu-count needs --gpu"), std::string::npos);
  EXPECT_NE(declare_error({.gpu = "RTX 3090", .gpu_count = 0}).message.find("--gpu-count must be at least 1"),
            std::string::npos);
  EXPECT_NE(declare_error({.server_hardware_path = "x.json", .gpu = "RTX 3090"}).message.find("give one of them"),
            std::string::npos);
}

TEST(DeclaredHardware, ServerHardwareFileErrorsNameTheFlagAndTheFile) {
  test::TempDir dir;
  Error missing = declare_error({.server_hardware_path = dir.file("missing.json")});
  EXPECT_TRUE(missing.message.starts_with("--server-hardware: cannot read " + dir.file("missing.json"))) << missing.message;
  Error folder = declare_error({.server_hardware_path = dir.path().string()});
  EXPECT_NE(folder.message.find("it is a folder"), std::string::npos) << folder.message;
  Error not_json = declare_error({.server_hardware_path = write_text(dir, "bad.json", "{not json")});
  EXPECT_NE(not_json.message.find("is not valid JSON"), std::string::npos) << not_json.message;
  // A result.json is not a hardware file.
  Error other = declare_error({.server_hardware_path = write_text(dir, "result.json", to_json(RunResult{}).dump())});
  EXPECT_NE(other.message.find("is not a speedmatrix hardware file"), std::string::npos) << other.message;
  EXPECT_NE(other.message.find("speedmatrix hardware --out"), std::string::npos);
  Error empty = declare_error({.server_hardware_path = write_text(
                                   dir, "empty.json", R"({"schema": "speedmatrix-hardware-v1", "hardware": {}})")});
  EXPECT_NE(empty.message.find("describes neither a GPU nor a CPU"), std::string::npos) << empty.message;
  Error typed = declare_error({.server_hardware_path = write_text(
                                   dir, "typed.json", R"({"schema": "speedmatrix-hardware-v1", "hardware": {"gpus": 3, "cpu_cores": "many", "cpu_model": "x"}})")});
  EXPECT_NE(typed.message.find("wrong type"), std::string::npos) << typed.message;
}

TEST(DeclaredHardware, AHardwareFileRoundTripsAndIsMarkedDeclared) {
  test::TempDir dir;
  HardwareFile file{server_box(), "2026-12-02T14:34:48Z", "0.1.0"};
  ASSERT_TRUE(write_hardware_file(dir.file("gpu-box.json"), file));
  auto r = declared_hardware({.server_hardware_path = dir.file("gpu-box.json")});
  ASSERT_TRUE(r.has_value()) << r.error().message;
  ASSERT_TRUE(r->has_value());
  const HardwareInfo& h = **r;
  EXPECT_EQ(h.source, HardwareSource::Declared);
  EXPECT_EQ(hardware_to_json(HardwareInfo(h)).at("gpus"), hardware_to_json(server_box()).at("gpus"));
  EXPECT_EQ(h.cpu_model, server_box().cpu_model);
  EXPECT_EQ(h.source_detail, "--server-hardware: probed by `speedmatrix hardware` on gpu-box at 2026-12-02T14:34:48Z");
}

TEST(Attribute, LocalServerIsThisMachineProbed) {
  Attribution a = attribute({true, "127.0.0.1 is a loopback address"}, std::nullopt, server_box());
  EXPECT_EQ(a.hardware.source, HardwareSource::Probed);
  EXPECT_EQ(a.hardware.cpu_model, server_box().cpu_model);
  EXPECT_EQ(a.hardware.source_detail, "127.0.0.1 is a loopback address");
  EXPECT_FALSE(a.client_hardware.has_value());
  EXPECT_TRUE(a.warnings.empty());
}

TEST(Attribute, RemoteServerWithNothingDeclaredIsUnknownAndThisMachineIsTheClient) {
  Attribution a = attribute({false, "gpu-box resolves to 10.0.0.7, which is not an address of this machine"},
                            std::nullopt, laptop());
  EXPECT_EQ(a.hardware.source, HardwareSource::Unknown);
  EXPECT_TRUE(a.hardware.gpus.empty());
  EXPECT_TRUE(a.hardware.cpu_model.empty());  // never the laptop's
  EXPECT_NE(a.hardware.source_detail.find("10.0.0.7"), std::string::npos);
  ASSERT_TRUE(a.client_hardware.has_value());
  EXPECT_EQ(a.client_hardware->cpu_model, laptop().cpu_model);
  EXPECT_EQ(a.client_hardware->source, HardwareSource::Probed);
}

TEST(Attribute, DeclaredHardwareWinsAndALocalLookingTargetIsWarnedAbout) {
  HardwareInfo declared = server_box();
  declared.source = HardwareSource::Declared;
  declared.source_detail = "--server-hardware: probed by `speedmatrix hardware` on gpu-box";
  Attribution remote = attribute({false, "10.0.0.7 is not an address of this machine"}, declared, laptop());
  EXPECT_EQ(remote.hardware.source, HardwareSource::Declared);
  EXPECT_EQ(remote.hardware.gpus.size(), 2u);
  ASSERT_TRUE(remote.client_hardware.has_value());
  EXPECT_EQ(remote.client_hardware->cpu_model, laptop().cpu_model);
  EXPECT_TRUE(remote.warnings.empty());
  // An SSH tunnel puts a remote server on 127.0.0.1: the declaration is kept, with a warning.
  Attribution tunnel = attribute({true, "127.0.0.1 is a loopback address"}, declared, laptop());
  EXPECT_EQ(tunnel.hardware.source, HardwareSource::Declared);
  ASSERT_EQ(tunnel.warnings.size(), 1u);
  EXPECT_NE(tunnel.warnings[0].find("looks like it runs on this machine"), std::string::npos);
}

TEST(LocateTarget, LaunchAndTheEmbeddedEngineAreHereAndUrlsAreClassified) {
  HostLookup nowhere;
  nowhere.interfaces = [] { return std::vector<InterfaceAddress>{}; };
  nowhere.resolve = [](const std::string&) -> Result<std::vector<IpAddress>> {
    return std::vector<IpAddress>{*IpAddress::parse("10.0.0.7")};
  };
  RunConfig launched;
  launched.launch_command = "vllm serve m --port 8000";
  EXPECT_TRUE(locate_target(launched, "http://gpu-box:8000", nowhere).local);
  RunConfig embedded;
  embedded.embedded_sim = true;
  EXPECT_TRUE(locate_target(embedded, "http://127.0.0.1:40000", nowhere).local);
  RunConfig url;
  EXPECT_FALSE(locate_target(url, "http://gpu-box:8000", nowhere).local);
  EXPECT_TRUE(locate_target(url, "http://127.0.0.1:8000", nowhere).local);
  // Through a proxy, 127.0.0.1 is the proxy's machine (issue 31 point 8): not known to be here.
  RunConfig proxied;
  proxied.target.connection.proxy = "http://user:s3cretpw@proxy-box:3128";
  const TargetLocality via = locate_target(proxied, "http://127.0.0.1:8000", nowhere);
  EXPECT_FALSE(via.local);
  EXPECT_NE(via.reason.find("through the proxy http://<redacted>@proxy-box:3128"), std::string::npos) << via.reason;
  proxied.target.connection.proxy = "";  // --proxy '': no proxy at all
  EXPECT_TRUE(locate_target(proxied, "http://127.0.0.1:8000", nowhere).local);
}

TEST(DeclareServerHardware, RefusedWhereTheServerIsProbedOrTheRunIsResumed) {
  const HardwareDeclaration gpu{.gpu = "RTX 3090"};
  RunConfig launched;
  launched.launch_command = "llama-server --port 8080";
  auto l = declare_server_hardware(launched, gpu, false);
  ASSERT_FALSE(l);
  EXPECT_TRUE(l.error().message.starts_with("--gpu: --launch starts the server on this machine")) << l.error().message;
  RunConfig embedded;
  embedded.embedded_sim = true;
  auto e = declare_server_hardware(embedded, gpu, false);
  ASSERT_FALSE(e);
  EXPECT_NE(e.error().message.find("built-in simulated engine"), std::string::npos);
  RunConfig resumed;
  auto r = declare_server_hardware(resumed, gpu, true);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("--resume keeps the hardware"), std::string::npos);
  RunConfig remote;
  remote.target.base_url = "http://gpu-box:8000";
  ASSERT_TRUE(declare_server_hardware(remote, gpu, false));
  ASSERT_TRUE(remote.server_hardware.has_value());
  EXPECT_EQ(remote.server_hardware->gpus.size(), 1u);
  RunConfig plain;
  ASSERT_TRUE(declare_server_hardware(plain, {}, false));
  EXPECT_FALSE(plain.server_hardware.has_value());
}

TEST(AttributionNote, SaysWhatToDoAboutARemoteServer) {
  EXPECT_EQ(attribution_note({true, "127.0.0.1 is a loopback address"}, std::nullopt), "");
  std::string remote = attribution_note({false, "10.0.0.7 is not an address of this machine"}, std::nullopt);
  EXPECT_NE(remote.find("unknown hardware"), std::string::npos);
  EXPECT_NE(remote.find("--server-hardware"), std::string::npos);
  EXPECT_NE(remote.find("--gpu"), std::string::npos);
}

TEST(AttributionNote, RedactHostHidesTheServersNameAndAddresses) {
  RunConfig c;
  c.target.base_url = "http://gpu-box:8000";
  const std::string note =
      attribution_note({false, "gpu-box resolves to 10.0.0.7, which is not an address of this machine"}, std::nullopt);
  EXPECT_EQ(redact_attribution(note, attribution_redaction(c)), note);
  c.redact_host = true;
  const std::string printed = redact_attribution(note, attribution_redaction(c));
  EXPECT_EQ(printed.find("gpu-box"), std::string::npos) << printed;
  EXPECT_EQ(printed.find("10.0.0.7"), std::string::npos) << printed;
  EXPECT_NE(printed.find("--server-hardware server-hardware.json"), std::string::npos) << printed;
}

// Runs against the scripted server.

RunConfig tiny_config(const ScriptedServer& server, const std::string& out_dir) {
  RunConfig c;
  c.target.base_url = server.url();
  c.matrix.contexts = {0, 64};
  c.contexts_given = true;
  c.matrix.concurrency = {1, 2};
  c.matrix.prefill_contexts = {};
  c.matrix.max_output_tokens = 32;
  c.matrix.duration_s = 0.2;
  c.out_dir = out_dir;
  c.quiet = true;
  c.client_selftest = false;  // the test binary has no streamer subcommand
  c.json_output = true;
  return c;
}

void expect_valid_against_schema(const std::string& path) {
  auto schema = site::JsonSchema::parse(site::site_data_file("result-schema.json").value());
  ASSERT_TRUE(schema.has_value()) << schema.error().message;
  std::ifstream in(path);
  auto ok = schema->validate(nlohmann::json::parse(in));
  EXPECT_TRUE(ok.has_value()) << ok.error().message;
}

TEST(RunAttribution, ALocalServerIsProbedHere) {
  ScriptedServer server;
  test::TempDir dir;
  ASSERT_EQ(run_matrix(tiny_config(server, dir.file("run"))), 0);  // 127.0.0.1: classified for real
  auto result = read_result_file(dir.file("run/result.json"));
  ASSERT_TRUE(result.has_value()) << result.error().message;
  EXPECT_EQ(result->hardware.source, HardwareSource::Probed);
  EXPECT_EQ(result->hardware.cpu_model, probe_hardware().cpu_model);
  EXPECT_EQ(result->hardware.source_detail, "127.0.0.1 is a loopback address");
  EXPECT_FALSE(result->client_hardware.has_value());
}

TEST(RunAttribution, ARemoteServerWithNothingDeclaredIsUnknownHardware) {
  ScriptedServer server;
  test::TempDir dir;
  RunConfig c = tiny_config(server, dir.file("run"));
  c.target_locality = TargetLocality{false, "gpu-box resolves to 10.0.0.7, which is not an address of this machine"};
  ASSERT_EQ(run_matrix(c), 0);
  auto result = read_result_file(dir.file("run/result.json"));
  ASSERT_TRUE(result.has_value()) << result.error().message;
  EXPECT_EQ(result->hardware.source, HardwareSource::Unknown);
  EXPECT_TRUE(result->hardware.gpus.empty());
  EXPECT_TRUE(result->hardware.cpu_model.empty());
  ASSERT_TRUE(result->client_hardware.has_value());
  EXPECT_EQ(result->client_hardware->source, HardwareSource::Probed);
  EXPECT_EQ(result->client_hardware->cpu_model, probe_hardware().cpu_model);
  EXPECT_EQ(result->decode[0].status, CellStatus::Valid);  // measured as usual
  expect_valid_against_schema(dir.file("run/result.json"));
  // The report the run wrote says so.
  std::ifstream md(dir.file("run/report.md"));
  std::string text((std::istreambuf_iterator<char>(md)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("on unknown hardware"), std::string::npos);
  EXPECT_NE(text.find("--server-hardware"), std::string::npos);
}

TEST(RunAttribution, ARemoteServerWithDeclaredHardwareRecordsItAndTheClient) {
  ScriptedServer server;
  test::TempDir dir;
  RunConfig c = tiny_config(server, dir.file("run"));
  c.target_locality = TargetLocality{false, "10.0.0.7 is not an address of this machine"};
  ASSERT_TRUE(declare_server_hardware(c, {.gpu = "H100 SXM", .gpu_count = 8}, false));
  ASSERT_EQ(run_matrix(c), 0);
  auto result = read_result_file(dir.file("run/result.json"));
  ASSERT_TRUE(result.has_value()) << result.error().message;
  EXPECT_EQ(result->hardware.source, HardwareSource::Declared);
  ASSERT_EQ(result->hardware.gpus.size(), 8u);
  EXPECT_EQ(report::build_report_model(*result).hardware_name, "8× H100 SXM 80GB");
  ASSERT_TRUE(result->client_hardware.has_value());
  EXPECT_EQ(result->client_hardware->cpu_model, probe_hardware().cpu_model);
  expect_valid_against_schema(dir.file("run/result.json"));
}

TEST(RunAttribution, ResumeKeepsTheStoredAttribution) {
  ScriptedServer server;
  test::TempDir dir;
  RunConfig c = tiny_config(server, dir.file("run"));
  c.target_locality = TargetLocality{false, "10.0.0.7 is not an address of this machine"};
  ASSERT_TRUE(declare_server_hardware(c, {.gpu = "RTX 4090"}, false));
  ASSERT_EQ(run_matrix(c), 0);
  // Mark a cell as interrupted, as a Ctrl-C would have left it.
  auto stored = read_result_file(dir.file("run/result.json"));
  ASSERT_TRUE(stored.has_value());
  stored->decode.back().status = CellStatus::Interrupted;
  ASSERT_TRUE(write_result_file(dir.file("run/result.json"), *stored));

  // Resumed from this machine against what now looks local: nothing is probed or re-declared.
  RunConfig resume = config_to_resume(*stored, dir.file("run"));
  resume.quiet = true;
  resume.client_selftest = false;
  resume.json_output = true;
  ASSERT_EQ(run_matrix(resume), 0);
  auto after = read_result_file(dir.file("run/result.json"));
  ASSERT_TRUE(after.has_value());
  EXPECT_EQ(after->resumes, 1);
  EXPECT_EQ(after->decode.back().status, CellStatus::Valid);
  EXPECT_EQ(after->hardware.source, HardwareSource::Declared);
  EXPECT_EQ(to_json(*after).at("hardware"), to_json(*stored).at("hardware"));
  EXPECT_EQ(to_json(*after).at("client_hardware"), to_json(*stored).at("client_hardware"));
}

// A result.json from before hardware.source, interrupted: resuming it reads `is_server_host` and
// writes the attribution it meant.
TEST(RunAttribution, ResumeReadsAnOlderFilesIsServerHost) {
  ScriptedServer server;
  test::TempDir dir;
  ASSERT_EQ(run_matrix(tiny_config(server, dir.file("run"))), 0);
  nlohmann::json old = nlohmann::json::parse(test::read_file(dir.file("run/result.json")));
  old["hardware"].erase("source");
  old["hardware"].erase("source_detail");
  old["hardware"]["is_server_host"] = false;
  old.erase("client_hardware");
  old["decode"][0]["status"] = "interrupted";
  ASSERT_TRUE(write_file_atomic(dir.file("run/result.json"), old.dump(2)));

  auto stored = read_result_file(dir.file("run/result.json"));
  ASSERT_TRUE(stored.has_value()) << stored.error().message;
  RunConfig resume = config_to_resume(*stored, dir.file("run"));
  resume.quiet = true;
  resume.client_selftest = false;
  resume.json_output = true;
  ASSERT_EQ(run_matrix(resume), 0);
  nlohmann::json after = nlohmann::json::parse(test::read_file(dir.file("run/result.json")));
  EXPECT_EQ(after["decode"][0]["status"], "valid");
  EXPECT_EQ(after["hardware"]["source"], "unknown");
  EXPECT_FALSE(after["hardware"].contains("is_server_host"));
  EXPECT_EQ(after["client_hardware"]["source"], "probed");
  EXPECT_EQ(after["client_hardware"]["cpu_model"], old["hardware"]["cpu_model"]);
}

// Issue 31: a one-GPU server on an eight-GPU box is recorded as its one GPU, the machine's count
// beside it; the report says both, and the result keeps them through JSON.
TEST(KeepServerGpus, AOneGpuServerOnAnEightGpuBoxIsItsGpu) {
  HardwareInfo hw;
  hw.type = "Discrete GPU";
  for (int i = 0; i < 8; ++i) hw.gpus.push_back(GpuInfo{"NVIDIA H100 80GB HBM3", int64_t{80} << 30, "570.1", 700.0, "Gen5 x16"});
  hw.gpus[3].pcie = "Gen4 x16";  // tell GPU 3 from the rest
  const std::vector<int> machine = {0, 1, 2, 3, 4, 5, 6, 7};
  HardwareInfo one = hw;
  keep_server_gpus(one, {3}, machine);
  ASSERT_EQ(one.gpus.size(), 1u);
  EXPECT_EQ(one.gpus[0].pcie, "Gen4 x16");
  EXPECT_EQ(one.machine_gpu_count, 8);
  EXPECT_EQ(report::hardware_display_name(one), "H100 80GB HBM3");  // not "8× H100"
  RunResult r;
  r.hardware = one;
  const std::string md = render_report(r, ReportFormat::Markdown, {});
  EXPECT_NE(md.find("(the server's; the machine has 8)"), std::string::npos) << md.substr(0, 1500);
  auto back = hardware_from_json(hardware_to_json(one));
  ASSERT_TRUE(back);
  EXPECT_EQ(back->machine_gpu_count, 8);
  // All of them, declared hardware, or lists that do not line up: unchanged.
  HardwareInfo all = hw;
  keep_server_gpus(all, machine, machine);
  EXPECT_EQ(all.gpus.size(), 8u);
  EXPECT_FALSE(all.machine_gpu_count);
  HardwareInfo declared = hw;
  declared.source = HardwareSource::Declared;
  keep_server_gpus(declared, {3}, machine);
  EXPECT_EQ(declared.gpus.size(), 8u);
  HardwareInfo short_list = hw;
  keep_server_gpus(short_list, {3}, std::vector<int>{0, 3});
  EXPECT_EQ(short_list.gpus.size(), 8u);
  // None: the server ran on the CPU.
  HardwareInfo none = hw;
  keep_server_gpus(none, {}, machine);
  EXPECT_TRUE(none.gpus.empty());
  EXPECT_EQ(none.type, "CPU only");
  EXPECT_EQ(none.machine_gpu_count, 8);
}

}  // namespace
}  // namespace sm
