// The upload client sends results redacted, including result files written before redaction
// existed: checked on the body it builds and on what a real site stored.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "bench/run_folder.h"
#include "net/http_fetch.h"
#include "result/result_json.h"
#include "site/site.h"
#include "site/site_fixtures.h"
#include "site/site_server.h"
#include "site/upload_token.h"
#include "store/result_store.h"
#include "support/temp_dir.h"
#include "upload/upload_client.h"

namespace sm {
namespace {

using nlohmann::json;

const std::string kKey = "sk-oldfile0123456789abcdefgh";
const std::string kHost = "gpu-box-17";

// A result as an older speedmatrix wrote it: every secret verbatim.
RunResult old_result(const std::string& run_id) {
  RunResult r = test::site_result(run_id);
  r.target_url = "http://bob:hunter2@" + kHost + ":8000?key=" + kKey;
  r.launch_command = "OPENAI_API_KEY=" + kKey + " vllm serve /home/bob/models/qwen --api-key " + kKey;
  r.hardware.hostname = kHost;
  r.warnings = {"Authorization: Bearer " + kKey};
  return r;
}

void expect_clean(const std::string& text, bool host_too) {
  EXPECT_EQ(text.find(kKey), std::string::npos) << text;
  EXPECT_EQ(text.find("hunter2"), std::string::npos) << text;
  if (!host_too) return;
  EXPECT_EQ(text.find(kHost), std::string::npos) << text;
  EXPECT_EQ(text.find("/home/bob"), std::string::npos) << text;
}

TEST(UploadRedaction, BodyOfAnOldFileHoldsNoSecret) {
  const std::string file_text = to_json(old_result("old-1")).dump(2);
  auto body = upload::upload_body(file_text, {});
  ASSERT_TRUE(body.has_value()) << body.error().message;
  expect_clean(*body, false);
  json j = json::parse(*body);
  EXPECT_EQ(j["target_url"], "http://<redacted>@" + kHost + ":8000?key=<redacted>");
  EXPECT_EQ(j["hardware"]["hostname"], kHost);  // kept without --redact-host
  EXPECT_EQ(j["run_id"], "old-1");
  EXPECT_EQ(j["decode"].size(), 4u);  // the measurements travel unchanged

  auto dropped = upload::upload_body(file_text, {.drop_host = true});
  ASSERT_TRUE(dropped.has_value());
  expect_clean(*dropped, true);
  EXPECT_EQ(json::parse(*dropped)["hardware"]["hostname"], "<redacted-host>");

  EXPECT_FALSE(upload::upload_body("{not json", {}).has_value());
  EXPECT_FALSE(upload::upload_body(R"({"schema_version": 99})", {}).has_value());
}

TEST(UploadRedaction, SiteStoresTheRedactedResult) {
  test::TempDir dir;
  auto store = store::open_store("sqlite:" + dir.file("site.db"));
  ASSERT_TRUE(store) << store.error().message;
  auto token = site::generate_upload_token();
  ASSERT_TRUE(token);
  ASSERT_TRUE((*store)->create_token({token->token_id, "test", "2026-12-03T09:00:00Z", "", 0}, token->sha256_hex));
  auto site = site::Site::create(**store, {});
  ASSERT_TRUE(site);
  auto server = site::SiteServer::start(**site, {.host = "127.0.0.1", .port = 0, .threads = 1});
  ASSERT_TRUE(server) << server.error().message;

  const auto folder = dir.path() / "run";
  std::filesystem::create_directories(folder);
  ASSERT_TRUE(write_result_file((folder / kResultFile).string(), old_result("old-2")));
  upload::UploadOptions options;
  options.site_url = (*server)->base_url();
  options.token = token->secret;
  options.max_attempts = 1;
  options.redact.drop_host = true;
  auto sent = upload::upload_result_file(folder.string(), options);
  ASSERT_TRUE(sent) << sent.error().message;
  EXPECT_EQ(sent->run_id, "old-2");

  HttpRequest get;
  get.url = (*server)->base_url() + "/api/v1/runs/old-2";
  auto stored = http_fetch(get);
  ASSERT_TRUE(stored);
  ASSERT_EQ(stored->status, 200) << stored->body;
  expect_clean(stored->body, true);
  EXPECT_EQ(json::parse(stored->body)["hardware"]["hostname"], "<redacted-host>");
}

}  // namespace
}  // namespace sm
