#include "result/redact_result.h"

#include <gtest/gtest.h>

#include <functional>
#include <set>
#include <string>

#include "result/result_json.h"

namespace sm {
namespace {

using nlohmann::json;

const std::string kKey = "sk-proj-abcdefghijklmnop0123456789";  // an OpenAI-style key
const std::string kHost = "gpu-box-17";

RunResult with_secrets() {
  RunResult r;
  r.run_id = "r1";
  r.target_url = "http://alice:pw@" + kHost + ":8000?api_key=" + kKey;
  r.launch_command = "HF_TOKEN=hf_abcdefghijklmnopqrstuvwxyz vllm serve /home/alice/models/Qwen3-4B --api-key " + kKey +
                     " --port 8000 --max-model-len 4096";
  r.notes = "measured with Authorization: Bearer " + kKey;
  r.submitted_by = "alice";
  r.warnings = {"probe of http://" + kHost + ":8000 took long", "key " + kKey};
  r.engine.model = "/home/alice/models/Qwen3-4B";
  r.engine.model_path = "/home/alice/models/Qwen3-4B";
  r.hardware.hostname = kHost;
  r.hardware.source = HardwareSource::Declared;
  r.hardware.source_detail = "--server-hardware: probed by `speedmatrix hardware` on " + kHost;
  r.client_hardware = HardwareInfo{};
  r.client_hardware->hostname = "alice-laptop";
  r.client_hardware->source_detail = "the machine that ran speedmatrix (the client)";
  PrefillRow row;
  row.context = 8192;
  row.status = CellStatus::Error;
  row.error = "Failed to connect to " + kHost + " port 8000";
  r.prefill.push_back(row);
  DecodeCell cell;
  cell.context = 0;
  cell.concurrency = 1;
  cell.status = CellStatus::Error;
  cell.error = "HTTP 401: invalid key " + kKey;
  cell.warnings = {"upstream http://u:" + kKey + "@proxy/x"};
  r.decode.push_back(cell);
  return r;
}

TEST(RedactResult, RemovesSecretsAndKeepsTheRest) {
  RunResult r = with_secrets();
  redact_result(r, {});
  const std::string text = to_json(r).dump();
  EXPECT_EQ(text.find(kKey), std::string::npos) << text;
  EXPECT_EQ(text.find("alice:pw"), std::string::npos);
  EXPECT_EQ(text.find("hf_abcdefghijklmnopqrstuvwxyz"), std::string::npos);
  EXPECT_EQ(r.target_url, "http://<redacted>@" + kHost + ":8000?api_key=<redacted>");
  EXPECT_EQ(r.launch_command,
            "HF_TOKEN=<redacted> vllm serve /home/alice/models/Qwen3-4B --api-key <redacted> --port 8000 --max-model-len 4096");
  EXPECT_EQ(r.notes, "measured with Authorization: Bearer <redacted>");
  EXPECT_EQ(r.decode[0].error, "HTTP 401: invalid key sk-<redacted>");
  // Without --redact-host the machine and its paths stay.
  EXPECT_EQ(r.hardware.hostname, kHost);
  EXPECT_EQ(r.engine.model_path, "/home/alice/models/Qwen3-4B");
  EXPECT_EQ(r.prefill[0].error, "Failed to connect to " + kHost + " port 8000");
}

TEST(RedactResult, DropHostRemovesHostnamesAndPathsEverywhere) {
  RunResult r = with_secrets();
  redact_result(r, {.drop_host = true});
  const std::string text = to_json(r).dump();
  EXPECT_EQ(text.find(kHost), std::string::npos) << text;
  EXPECT_EQ(text.find("/home/alice"), std::string::npos) << text;
  EXPECT_EQ(r.hardware.hostname, "<redacted-host>");
  EXPECT_EQ(r.target_url, "http://<redacted>@<redacted-host>:8000?api_key=<redacted>");
  EXPECT_EQ(r.engine.model_path, "<dir>/Qwen3-4B");
  EXPECT_EQ(r.engine.model, "<dir>/Qwen3-4B");
  EXPECT_EQ(r.prefill[0].error, "Failed to connect to <redacted-host> port 8000");
  EXPECT_EQ(r.submitted_by, "alice");  // a label the user chose
  // Idempotent: a second pass (an upload of a redacted file) changes nothing.
  RunResult again = r;
  redact_result(again, {.drop_host = true});
  EXPECT_EQ(to_json(again), to_json(r));
}

// Guard for new fields: every string in result.json is either redacted or listed here as a
// value that is never free text (identifiers, enumerations, the tool's own facts, hardware
// facts read from this machine). A new free-text field makes this test fail until it is added
// to redact_result (or, if it cannot hold user text, to this list).
const std::set<std::string> kNotFreeText = {
    "/tool/name", "/tool/version", "/tool/commit", "/tool/build_type", "/run_id", "/kind", "/started_at",
    "/finished_at", "/engine/kind", "/engine/quantization", "/engine/backend", "/hardware/type",
    "/hardware/cpu_model", "/hardware/os", "/hardware/kernel", "/hardware/gpus/*/name", "/hardware/gpus/*/driver",
    "/hardware/gpus/*/pcie", "/hardware/source", "/client_hardware/type", "/client_hardware/cpu_model",
    "/client_hardware/os", "/client_hardware/kernel", "/client_hardware/gpus/*/name",
    "/client_hardware/gpus/*/driver", "/client_hardware/gpus/*/pcie", "/client_hardware/source", "/settings/api",
    "/settings/decode_test", "/settings/prefill_mode",
    "/prefill/*/status", "/decode/*/status", "/decode/*/token_count_source", "/prefill/*/throttle",
    "/decode/*/throttle", "/telemetry/gpu_source", "/telemetry/gpus/*/name", "/telemetry/gpus/*/pcie",
    "/telemetry/series_file", "/retrieval/*/verdict", "/slo_search/*/basis", "/slo_search/*/points/*/source",
    "/slo_search/*/points/*/status",
    "/submitted_by",  // redacted for secrets, but a user label is kept with --redact-host
};

void for_each_string(json& j, const std::string& path, const std::function<void(json&, const std::string&)>& fn) {
  if (j.is_string()) {
    fn(j, path);
  } else if (j.is_object()) {
    for (auto& [key, value] : j.items()) for_each_string(value, path + "/" + key, fn);
  } else if (j.is_array()) {
    for (auto& value : j) for_each_string(value, path + "/*", fn);
  }
}

TEST(RedactResult, EveryFreeTextFieldIsCovered) {
  RunResult full = with_secrets();
  full.hardware.gpus.push_back(GpuInfo{"NVIDIA GeForce RTX 3090", int64_t{24} << 30, "595.99.02", 350.0, "Gen4 x16"});
  full.client_hardware->gpus = full.hardware.gpus;
  full.telemetry = TelemetryInfo{};
  full.telemetry->gpu_source = "nvml";
  full.telemetry->gpu_unavailable = "cannot load /home/alice/lib/libnvidia-ml.so.1";
  full.telemetry->gpus.push_back(TelemetryGpu{0, "NVIDIA GeForce RTX 3090", 2100.0, 9751.0, 350.0, "Gen4 x16"});
  full.telemetry->series_file = "telemetry.jsonl";
  RetrievalCheck check;
  check.context = 8192;
  check.verdict = RetrievalVerdict::Wrong;
  check.finish_reason = "stop";
  check.excerpt = "The passkey is 1234567.";
  full.retrieval.push_back(check);
  SloSearch search;
  search.context = 8192;
  search.basis = "stopped";
  search.points.push_back({4, "probe", CellStatus::Error, std::nullopt, "1 of 4 requests failed"});
  full.slo_search.push_back(search);
  json j = to_json(full);
  const std::string secret = "token=" + kKey + " on " + kHost + " in /home/alice/x/y";
  std::set<std::string> filled;
  for_each_string(j, "", [&](json& value, const std::string& path) {
    if (kNotFreeText.contains(path)) return;
    value = secret;
    filled.insert(path);
  });
  auto back = result_from_json(j);
  ASSERT_TRUE(back.has_value()) << back.error().message;
  redact_result(*back, {.drop_host = true, .hosts = {kHost}});
  json out = to_json(*back);
  for_each_string(out, "", [&](json& value, const std::string& path) {
    if (!filled.contains(path)) return;
    const std::string s = value.get<std::string>();
    EXPECT_EQ(s.find(kKey), std::string::npos) << path << " is not redacted: add it to redact_result";
    EXPECT_EQ(s.find(kHost), std::string::npos) << path << " keeps the host: add it to redact_result";
    EXPECT_EQ(s.find("/home/alice"), std::string::npos) << path << " keeps a local path";
  });
  EXPECT_GE(filled.size(), 16u);  // target_url, launch_command, notes, warnings, engine, hostnames, attribution, rows, cells
}

}  // namespace
}  // namespace sm
