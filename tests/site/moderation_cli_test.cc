// `serve run list` and `serve token revoke` as a moderator meets them: uploaded names cannot
// drive the terminal, the list narrows by token, kind and flag, and a token is revoked by its id
// alone (a name shared by several tokens used to revoke them all).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "result/result_json.h"
#include "calc/catalog.h"
#include "site/run_checks.h"
#include "site/site_fixtures.h"
#include "site/upload_token.h"
#include "store/result_store.h"
#include "store/run_summary.h"
#include "support/run_binary.h"
#include "support/temp_dir.h"

namespace sm::store {
namespace {

class ModerationCli : public ::testing::Test {
 protected:
  void SetUp() override {
    for (int i = 0; i < 2; ++i) {
      auto made = test::run_binary_stdout("serve token create --db " + dsn() + " --name lab --format json");
      ASSERT_EQ(made.exit_code, 0) << made.output;
      token_ids_.push_back(nlohmann::json::parse(made.output)["token_id"].get<std::string>());
    }
    auto store = open_store(dsn());
    ASSERT_TRUE(store) << store.error().message;
    // A model name that would clear the line above and move the cursor up over it.
    put(**store, test::site_result("evil", "\x1b[1A\x1b[2KQwen\x07\xc2\x85\xe2\x80\xae-8B"), token_ids_[0], "");
    put(**store, test::site_result("plain", "Qwen3.5-4B"), token_ids_[1], "");
    put(**store, test::site_result("fast", "Qwen3.5-9B"), token_ids_[1], "decode 10,000 tok/s > bound 3,350");
  }

  std::string dsn() const { return "sqlite:" + dir_.file("results.db"); }

  void put(ResultStore& store, const RunResult& r, const std::string& token_id, const std::string& implausible) {
    RunRecord rec;
    rec.summary = summarize_run(r);
    rec.summary.uploaded_at = "2026-12-05T10:00:0" + std::to_string(++uploads_) + ".000Z";
    rec.summary.token_id = token_id;
    rec.summary.implausible = implausible;
    rec.result_json = to_json(r).dump();
    rec.content_sha256 = site::sha256_hex(rec.result_json);
    auto ok = store.put_run(rec);
    ASSERT_TRUE(ok) << ok.error().message;
  }

  test::TempDir dir_;
  std::vector<std::string> token_ids_;
  int uploads_ = 0;
};

TEST_F(ModerationCli, RunListEscapesControlCharactersOfUploadedNames) {
  auto listed = test::run_binary_stdout("serve run list --db " + dsn());
  ASSERT_EQ(listed.exit_code, 0) << listed.output;
  for (char c : listed.output) {
    const auto byte = static_cast<unsigned char>(c);
    EXPECT_TRUE(byte == '\n' || byte >= 0x20) << "a control byte reached the terminal: " << int(byte);
    EXPECT_NE(byte, 0x7f);
  }
  EXPECT_NE(listed.output.find("\\x1b[1A\\x1b[2KQwen\\x07\\u0085\\u202e-8B"), std::string::npos) << listed.output;
  EXPECT_NE(listed.output.find(token_ids_[0]), std::string::npos) << "the TOKEN column: " << listed.output;
  // JSON output is escaped by JSON itself and keeps the name as uploaded.
  auto json = test::run_binary_stdout("serve run list --format json --db " + dsn());
  ASSERT_EQ(json.exit_code, 0);
  bool found = false;
  for (const auto& r : nlohmann::json::parse(json.output))
    found |= r["model"] == "\x1b[1A\x1b[2KQwen\x07\xc2\x85\xe2\x80\xae-8B";
  EXPECT_TRUE(found) << json.output;
}

TEST_F(ModerationCli, RunListFiltersByTokenKindAndFlag) {
  auto ids = [&](const std::string& flags) {
    auto out = test::run_binary_stdout("serve run list --format json --db " + dsn() + " " + flags);
    EXPECT_EQ(out.exit_code, 0) << out.output;
    std::vector<std::string> v;
    for (const auto& r : nlohmann::json::parse(out.output)) v.push_back(r["run_id"]);
    return v;
  };
  using V = std::vector<std::string>;
  EXPECT_EQ(ids(""), (V{"fast", "plain", "evil"}));
  EXPECT_EQ(ids("--token " + token_ids_[1]), (V{"fast", "plain"}));
  EXPECT_EQ(ids("--flag implausible"), (V{"fast"}));
  EXPECT_EQ(ids("--flag none --token " + token_ids_[1]), (V{"plain"}));
  EXPECT_EQ(ids("--kind simulated"), V{});
  auto bad = test::run_binary("serve run list --db " + dsn() + " --flag broken");
  EXPECT_EQ(bad.exit_code, 2) << bad.output;
  EXPECT_NE(bad.output.find("implausible"), std::string::npos) << "the valid flags are named: " << bad.output;
}

TEST_F(ModerationCli, TokenRevokeTakesAnIdNotAName) {
  auto by_name = test::run_binary("serve token revoke --db " + dsn() + " lab");
  EXPECT_EQ(by_name.exit_code, 1) << by_name.output;
  EXPECT_NE(by_name.output.find("is a token name, not an id"), std::string::npos) << by_name.output;
  EXPECT_NE(by_name.output.find(token_ids_[0]), std::string::npos) << by_name.output;
  EXPECT_NE(by_name.output.find(token_ids_[1]), std::string::npos) << by_name.output;
  auto tokens = [&] { return nlohmann::json::parse(test::run_binary_stdout("serve token list --format json --db " + dsn()).output); };
  for (const auto& t : tokens()) EXPECT_TRUE(t["revoked_at"].is_null()) << "a name revoked " << t.dump();

  auto by_id = test::run_binary("serve token revoke --db " + dsn() + " " + token_ids_[0]);
  EXPECT_EQ(by_id.exit_code, 0) << by_id.output;
  auto after = tokens();
  ASSERT_EQ(after.size(), 2u);
  for (const auto& t : after)  // both were made in the same second: in either order
    EXPECT_EQ(t["revoked_at"].is_null(), t["token_id"] != token_ids_[0]) << "only the id's token is revoked: " << t.dump();
  auto again = test::run_binary("serve token revoke --db " + dsn() + " " + token_ids_[0]);
  EXPECT_EQ(again.exit_code, 1);
  EXPECT_NE(again.output.find("already revoked"), std::string::npos) << again.output;
  auto unknown = test::run_binary("serve token revoke --db " + dsn() + " tk_nothing");
  EXPECT_EQ(unknown.exit_code, 1);
  EXPECT_NE(unknown.output.find("no token has the id"), std::string::npos) << unknown.output;
}

// The fingerprint a script writes into checked_with when it stores runs itself (bench/site_scale.sh):
// the one the site compares with, so those runs are not checked again at start-up.
TEST_F(ModerationCli, ChecksFingerprintIsTheSitesOwn) {
  auto printed = test::run_binary_stdout("serve checks-fingerprint");
  ASSERT_EQ(printed.exit_code, 0) << printed.output;
  EXPECT_EQ(printed.output, site::checks_fingerprint(calc::Catalog::builtin().value()) + "\n");
}

}  // namespace
}  // namespace sm::store
