// hardware.source, client_hardware, and result.json files written before they existed.
#include <gtest/gtest.h>

#include "report/golden.h"
#include "result/hardware_file.h"
#include "result/redact_result.h"
#include "result/result_json.h"
#include "site/json_schema.h"
#include "site/site_data.h"

namespace sm {
namespace {

using nlohmann::json;

RunResult remote_run() {
  RunResult r;
  r.run_id = "r1";
  r.hardware.source = HardwareSource::Unknown;
  r.hardware.source_detail = "10.0.0.7 is not an address of this machine; no hardware was declared";
  HardwareInfo client;
  client.type = "CPU only";
  client.cpu_model = "Intel(R) Core(TM) i7-1185G7 @ 3.00GHz";
  client.source_detail = "the machine that ran speedmatrix (the client)";
  r.client_hardware = client;
  return r;
}

site::JsonSchema result_schema() {
  auto schema = site::JsonSchema::parse(site::site_data_file("result-schema.json").value());
  EXPECT_TRUE(schema.has_value()) << schema.error().message;
  return *schema;
}

TEST(HardwareJson, SourceAndClientHardwareRoundTrip) {
  RunResult r = remote_run();
  json j = to_json(r);
  EXPECT_EQ(j["hardware"]["source"], "unknown");
  EXPECT_FALSE(j["hardware"].contains("is_server_host"));
  EXPECT_EQ(j["client_hardware"]["source"], "probed");
  EXPECT_EQ(j["client_hardware"]["cpu_model"], "Intel(R) Core(TM) i7-1185G7 @ 3.00GHz");
  auto back = result_from_json(j);
  ASSERT_TRUE(back.has_value()) << back.error().message;
  EXPECT_EQ(back->hardware.source, HardwareSource::Unknown);
  ASSERT_TRUE(back->client_hardware.has_value());
  EXPECT_EQ(to_json(*back), j);

  RunResult local;
  local.run_id = "r2";
  json lj = to_json(local);
  EXPECT_EQ(lj["hardware"]["source"], "probed");
  EXPECT_TRUE(lj["client_hardware"].is_null());
  EXPECT_FALSE(result_from_json(lj)->client_hardware.has_value());

  for (HardwareSource s : {HardwareSource::Probed, HardwareSource::Declared, HardwareSource::Unknown,
                           HardwareSource::Simulated, HardwareSource::Catalog})
    EXPECT_EQ(parse_hardware_source(to_string(s)), s);
  EXPECT_FALSE(parse_hardware_source("guessed"));
}

TEST(HardwareJson, AnUnknownSourceIsRefusedByTheReaderAndTheSchema) {
  json j = to_json(remote_run());
  j["hardware"]["source"] = "guessed";
  auto r = result_from_json(j);
  ASSERT_FALSE(r.has_value());
  EXPECT_NE(r.error().message.find("\"guessed\""), std::string::npos) << r.error().message;
  auto v = result_schema().validate(j);
  ASSERT_FALSE(v.has_value());
  EXPECT_TRUE(v.error().message.starts_with("$.hardware.source")) << v.error().message;
  j = to_json(remote_run());
  j["client_hardware"]["source"] = 3;
  EXPECT_FALSE(result_from_json(j).has_value());
  auto cv = result_schema().validate(j);
  ASSERT_FALSE(cv.has_value());
  EXPECT_TRUE(cv.error().message.starts_with("$.client_hardware.source")) << cv.error().message;
}

TEST(HardwareJson, TheSchemaAcceptsLocalAndRemoteRunsAndRefusesABadClient) {
  site::JsonSchema schema = result_schema();
  RunResult local;
  local.run_id = "r2";
  EXPECT_TRUE(schema.validate(to_json(local)).has_value());  // client_hardware: null
  auto remote = schema.validate(to_json(remote_run()));
  EXPECT_TRUE(remote.has_value()) << remote.error().message;
  json j = to_json(remote_run());
  j["client_hardware"] = "laptop";
  auto bad = schema.validate(j);
  ASSERT_FALSE(bad.has_value());
  EXPECT_TRUE(bad.error().message.starts_with("$.client_hardware: expected object or null")) << bad.error().message;
  j = to_json(local);
  j["hardware"] = nullptr;
  EXPECT_FALSE(schema.validate(j).has_value());  // the server's hardware is an object, never null
}

// Files from before hardware.source: what `is_server_host` and the kind meant.
TEST(HardwareJson, OldFilesAreReadByTheirIsServerHost) {
  // The seed run as an older speedmatrix wrote it: "is_server_host": true and no "source".
  json old = to_json(test::seed_fixture());
  old["hardware"].erase("source");
  old["hardware"].erase("source_detail");
  old.erase("client_hardware");
  old["hardware"]["is_server_host"] = true;
  auto seed = result_from_json(old);
  ASSERT_TRUE(seed.has_value()) << seed.error().message;
  EXPECT_EQ(seed->hardware.source, HardwareSource::Probed);
  EXPECT_EQ(seed->hardware.gpus.size(), 1u);
  EXPECT_FALSE(seed->client_hardware.has_value());

  old["hardware"]["is_server_host"] = false;  // the facts were the client's
  auto remote = result_from_json(old);
  ASSERT_TRUE(remote.has_value()) << remote.error().message;
  EXPECT_EQ(remote->hardware.source, HardwareSource::Unknown);
  EXPECT_TRUE(remote->hardware.gpus.empty());
  ASSERT_TRUE(remote->client_hardware.has_value());
  EXPECT_EQ(remote->client_hardware->gpus.size(), 1u);
  EXPECT_EQ(remote->client_hardware->source, HardwareSource::Probed);

  old["hardware"]["is_server_host"] = true;
  old["kind"] = "predicted";
  EXPECT_EQ(result_from_json(old)->hardware.source, HardwareSource::Catalog);
  old["kind"] = "simulated";
  EXPECT_EQ(result_from_json(old)->hardware.source, HardwareSource::Probed);  // `sim` measured over --url
  old["hardware"]["type"] = "Discrete GPU (simulated)";
  EXPECT_EQ(result_from_json(old)->hardware.source, HardwareSource::Simulated);  // the embedded engine
  // And the old files still pass the upload schema.
  EXPECT_TRUE(result_schema().validate(old).has_value());
}

// --redact-host: the client's hostname goes like the server's, and so do the addresses an
// attribution names.
TEST(HardwareJson, RedactHostDropsTheClientsHostnameAndTheAttributionsAddresses) {
  RunResult r = remote_run();
  r.target_url = "http://gpu-box:8000";
  r.hardware.source_detail =
      "gpu-box resolves to 10.0.0.7, fe80::1%eth0, which are not addresses of this machine; no hardware was declared";
  r.client_hardware->hostname = "alice-laptop";
  RunResult kept = r;
  redact_result(kept, {});
  EXPECT_EQ(kept.hardware.source_detail, r.hardware.source_detail);
  EXPECT_EQ(kept.client_hardware->hostname, "alice-laptop");
  redact_result(r, {.drop_host = true});
  EXPECT_EQ(r.hardware.source_detail,
            "<redacted-host> resolves to <redacted-host>, <redacted-host>, which are not addresses of this machine; "
            "no hardware was declared");
  EXPECT_EQ(r.client_hardware->hostname, "<redacted-host>");
  EXPECT_EQ(r.client_hardware->source_detail, "the machine that ran speedmatrix (the client)");
  RunResult again = r;
  redact_result(again, {.drop_host = true});
  EXPECT_EQ(to_json(again), to_json(r));
}

TEST(HardwareFile, WritesAndReadsBack) {
  test::TempDir dir;
  HardwareFile file;
  file.hardware.type = "Discrete GPU";
  file.hardware.gpus.push_back(GpuInfo{"NVIDIA GeForce RTX 3090", int64_t{24} << 30, "595.99.02", 350.0, "Gen4 x16"});
  file.hardware.cpu_model = "AMD Ryzen 9 7900X 12-Core Processor";
  file.probed_at = "2026-12-02T14:34:48Z";
  file.tool_version = "0.1.0";
  ASSERT_TRUE(write_hardware_file(dir.file("hw.json"), file));
  json j = json::parse(test::read_file(dir.file("hw.json")));
  EXPECT_EQ(j["schema"], "speedmatrix-hardware-v1");
  EXPECT_EQ(j["hardware"]["gpus"][0]["name"], "NVIDIA GeForce RTX 3090");
  auto back = read_hardware_file(dir.file("hw.json"));
  ASSERT_TRUE(back.has_value()) << back.error().message;
  EXPECT_EQ(back->probed_at, file.probed_at);
  EXPECT_EQ(back->tool_version, "0.1.0");
  EXPECT_EQ(hardware_to_json(back->hardware), hardware_to_json(file.hardware));
  j["schema"] = "speedmatrix-hardware-v9";
  auto other = hardware_file_from_json(j, "hw.json");
  ASSERT_FALSE(other.has_value());
  EXPECT_NE(other.error().message.find("hw.json is not a speedmatrix hardware file"), std::string::npos);
}

}  // namespace
}  // namespace sm
