// `run --upload` sends the run it just made (issue 31 point 8): not the newest folder under runs/,
// which another run may have written since (a decoy with a later time stands in for it here).
#include <gtest/gtest.h>

#include <filesystem>

#include <nlohmann/json.hpp>

#include "bench/run_folder.h"
#include "result/result_json.h"
#include "site/site.h"
#include "site/site_fixtures.h"
#include "site/site_server.h"
#include "site/upload_token.h"
#include "store/result_store.h"
#include "support/run_binary.h"
#include "support/scripted_server.h"
#include "support/temp_dir.h"

namespace sm::site {
namespace {

namespace fs = std::filesystem;

TEST(RunUpload, SendsTheRunItMadeNotTheNewestFolder) {
  test::TempDir dir;
  auto store = store::open_store("sqlite:" + dir.file("site.db"));
  ASSERT_TRUE(store) << store.error().message;
  auto token = generate_upload_token();
  ASSERT_TRUE(token);
  ASSERT_TRUE((*store)->create_token({token->token_id, "test", "2026-12-03T09:00:00Z", "", 0}, token->sha256_hex));
  auto site = Site::create(**store, SiteConfig{});
  ASSERT_TRUE(site) << site.error().message;
  auto server = SiteServer::start(**site, {.host = "127.0.0.1", .port = 0, .threads = 2});
  ASSERT_TRUE(server) << server.error().message;
  test::ScriptedServer llm;

  // Another run's folder, written "later" than this run will write its own.
  const fs::path decoy = fs::path(dir.path()) / "runs" / "29991231-235959-decoy";
  fs::create_directories(decoy);
  ASSERT_TRUE(write_result_file((decoy / kResultFile).string(), test::site_result("decoy")));
  fs::last_write_time(decoy / kResultFile, fs::file_time_type::clock::now() + std::chrono::hours(1));

  auto run = test::run_binary_in(dir.path().string(),
                                 "run --url " + llm.url() +
                                     " --contexts 0 --concurrency 1 --prefill-contexts none --duration 0.3"
                                     " --max-output 16 --no-selftest --quiet --upload " + (*server)->base_url() +
                                     " --upload-token " + token->secret);
  ASSERT_EQ(run.exit_code, 0) << run.output;
  EXPECT_NE(run.output.find("uploaded"), std::string::npos) << run.output;
  EXPECT_FALSE((*store)->get_run_summary("decoy").value().has_value()) << "the decoy was uploaded:\n" << run.output;
  auto listed = (*store)->list_runs({}, store::RunOrder::Newest, {.limit = 10});
  ASSERT_TRUE(listed);
  ASSERT_EQ(listed->runs.size(), 1u) << run.output;
  EXPECT_NE(listed->runs[0].run_id, "decoy");
  (*server)->stop();
}

}  // namespace
}  // namespace sm::site
