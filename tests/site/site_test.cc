// The results site's routes, called directly (no sockets): upload checks (401, 400, 413, 429,
// idempotency), the API, and every page escaping what users wrote.
#include <gtest/gtest.h>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "result/result_json.h"
#include "site/site.h"
#include "site/site_fixtures.h"
#include "site/upload_token.h"
#include "store/migrations.h"
#include "store/result_store.h"
#include "support/temp_dir.h"

namespace sm::site {
namespace {

using nlohmann::json;

constexpr const char* kXssModel = "<script>document.title='pwned'";

class SiteTest : public ::testing::Test {
 protected:
  void SetUp() override { make_site({}); }

  void make_site(SiteConfig config) {
    site_.reset();
    if (!store_) {
      auto s = store::open_store("sqlite:" + dir_.file("site.db"));
      ASSERT_TRUE(s) << s.error().message;
      store_ = std::move(*s);
      auto t = generate_upload_token();
      ASSERT_TRUE(t);
      token_ = t->secret;
      token_id_ = t->token_id;
      ASSERT_TRUE(store_->create_token({t->token_id, "test", "2026-12-03T09:00:00Z", "", 0}, t->sha256_hex));
    }
    auto site = Site::create(*store_, config, clock_);
    ASSERT_TRUE(site) << site.error().message;
    site_ = std::move(*site);
  }

  SiteResponse get(const std::string& target) {
    SiteRequest r;
    r.method = HttpMethod::Get;
    size_t q = target.find('?');
    r.path = target.substr(0, q);
    if (q != std::string::npos) r.query = target.substr(q + 1);
    r.host = "results.test:8080";
    r.client = "127.0.0.1";
    return site_->handle(r);
  }

  SiteResponse post(const std::string& path, const std::string& body, const std::string& token) {
    SiteRequest r;
    r.method = HttpMethod::Post;
    r.path = path;
    r.body = body;
    r.client = "127.0.0.1";
    if (!token.empty()) r.authorization = "Bearer " + token;
    return site_->handle(r);
  }

  SiteResponse upload(const RunResult& result) { return post("/api/v1/runs", to_json(result).dump(), token_); }

  static std::string header(const SiteResponse& r, const std::string& name) {
    for (const auto& [k, v] : r.headers)
      if (k == name) return v;
    return "";
  }

  static json body_json(const SiteResponse& r) { return json::parse(r.body); }

  test::TempDir dir_;
  ManualClock clock_{1'000'000'000};
  std::unique_ptr<store::ResultStore> store_;
  std::unique_ptr<Site> site_;
  std::string token_;
  std::string token_id_;
};

TEST_F(SiteTest, UploadCreatesThenIsIdempotentThenRefusesAConflict) {
  SiteResponse r = upload(test::site_result("run-1"));
  ASSERT_EQ(r.status, 201) << r.body;
  EXPECT_EQ(body_json(r)["status"], "created");
  EXPECT_EQ(body_json(r)["url"], "/runs/run-1");
  EXPECT_EQ(header(r, "Location"), "/runs/run-1");
  r = upload(test::site_result("run-1"));
  EXPECT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(body_json(r)["status"], "exists");
  // The same run with other whitespace is the same run.
  r = post("/api/v1/runs", to_json(test::site_result("run-1")).dump(4), token_);
  EXPECT_EQ(r.status, 200) << r.body;
  r = upload(test::site_result("run-1", "Another-Model"));
  EXPECT_EQ(r.status, 409) << r.body;
  EXPECT_EQ(body_json(r)["error"]["code"], "conflict");
}

TEST_F(SiteTest, TheDumpHoldsEveryVisibleRunAsJsonLinesAndFollowsChanges) {
  ASSERT_EQ(upload(test::site_result("run-1")).status, 201);
  ASSERT_EQ(upload(test::site_result("run-2", "Other-Model")).status, 201);
  ASSERT_EQ(upload(test::site_result("run-3", "Third-Model")).status, 201);
  ASSERT_EQ(store_->set_hidden("run-2", true).value(), 1);
  auto lines = [](const std::string& body) {
    std::vector<nlohmann::json> out;
    size_t start = 0;
    for (size_t end; (end = body.find('\n', start)) != std::string::npos; start = end + 1)
      out.push_back(nlohmann::json::parse(body.substr(start, end - start)));
    EXPECT_EQ(start, body.size()) << "the file ends with a newline";
    return out;
  };
  SiteResponse r = get("/api/v1/dump");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_TRUE(r.content_type.starts_with("application/x-ndjson")) << r.content_type;
  EXPECT_NE(header(r, "Content-Disposition").find("speedmatrix-runs.jsonl"), std::string::npos);
  EXPECT_EQ(header(r, "X-Run-Count"), "2");
  auto runs = lines(r.body);
  ASSERT_EQ(runs.size(), 2u) << "the hidden run is left out: " << r.body;
  EXPECT_EQ(runs[0]["run_id"], "run-3");  // newest upload first
  EXPECT_EQ(runs[1]["run_id"], "run-1");
  EXPECT_EQ(runs[1]["result"], nlohmann::json::parse(get("/api/v1/runs/run-1").body)) << "the stored result, whole";
  EXPECT_EQ(runs[1]["implausible"], "");
  EXPECT_EQ(runs[1]["synthetic_model"], false);
  EXPECT_FALSE(runs[1]["uploaded_at"].get<std::string>().empty());
  // A change of the store shows in the next dump (it is cached per store generation).
  ASSERT_EQ(store_->set_hidden("run-2", false).value(), 1);
  EXPECT_EQ(lines(get("/api/v1/dump").body).size(), 3u);
  ASSERT_EQ(upload(test::site_result("run-4", "Fourth-Model")).status, 201);
  EXPECT_EQ(lines(get("/api/v1/dump").body).front()["run_id"], "run-4");
  SiteRequest head{.method = HttpMethod::Head, .path = "/api/v1/dump"};
  EXPECT_TRUE(Site::is_heavy(head)) << "built on the workers, not the I/O threads";
}

// A result posted straight to the API (not through `upload`, which redacts) used to be stored and
// shown as sent: credentials in its URL, a key in its launch command and notes.
TEST_F(SiteTest, UploadsAreRedactedBeforeTheyAreStored) {
  RunResult r = test::site_result("leaky");
  r.target_url = "http://alice:hunter2@gpu-box:8000/v1?api_key=sk-live-0123456789abcdef";
  r.launch_command = "vllm serve Qwen/Qwen3.5-4B --api-key sk-live-0123456789abcdef --port 8000";
  r.notes = "served with key sk-live-0123456789abcdef";
  nlohmann::json doc = to_json(r);
  doc["x_field_of_a_newer_client"] = 7;
  SiteResponse up = post("/api/v1/runs", doc.dump(), token_);
  ASSERT_EQ(up.status, 201) << up.body;
  for (const std::string target : {"/api/v1/runs/leaky", "/runs/leaky", "/api/v1/dump"}) {
    const std::string body = get(target).body;
    EXPECT_EQ(body.find("hunter2"), std::string::npos) << target;
    EXPECT_EQ(body.find("sk-live"), std::string::npos) << target;
  }
  auto stored = nlohmann::json::parse(get("/api/v1/runs/leaky").body);
  EXPECT_EQ(stored["target_url"], "http://<redacted>@gpu-box:8000/v1?api_key=<redacted>");
  EXPECT_EQ(stored["x_field_of_a_newer_client"], 7);
  // The unredacted document sent again is the run already stored, not a conflict.
  SiteResponse again = post("/api/v1/runs", doc.dump(), token_);
  EXPECT_EQ(again.status, 200) << again.body;
}

// Four copies of one run, each with its timestamps moved by a second under a new id, used to hold
// four rows: a near duplicate is refused with 409 naming the earlier run.
TEST_F(SiteTest, ANearDuplicateIs409NamingTheEarlierRun) {
  RunResult original = test::site_result("original");
  ASSERT_EQ(upload(original).status, 201);
  RunResult moved = original;
  moved.run_id = "copy-1";
  moved.started_at = test::site_started_at("original", 1);
  moved.finished_at = test::site_started_at("original", 24 * 60 + 15);
  SiteResponse r = upload(moved);
  ASSERT_EQ(r.status, 409) << r.body;
  EXPECT_EQ(body_json(r)["error"]["code"], "near_duplicate");
  EXPECT_EQ(body_json(r)["error"]["duplicate_of"], "original");
  EXPECT_EQ(body_json(r)["error"]["url"], "/runs/original");
  EXPECT_NE(body_json(r)["error"]["message"].get<std::string>().find("0.05%"), std::string::npos);
  // Figures nudged by 0.01%: the same measurement.
  RunResult nudged = moved;
  nudged.run_id = "copy-2";
  for (auto& c : nudged.decode) *c.total_tok_s *= 1.0001;
  EXPECT_EQ(upload(nudged).status, 409);
  // A real repeat spreads wider: one cell 1% off is another measurement.
  RunResult repeat = moved;
  repeat.run_id = "repeat";
  *repeat.decode[1].total_tok_s *= 1.01;
  EXPECT_EQ(upload(repeat).status, 201);
  // Another engine version, or another cell's status, is another setup.
  RunResult upgraded = moved;
  upgraded.run_id = "upgraded";
  upgraded.engine.version = "0.33.0";
  EXPECT_EQ(upload(upgraded).status, 201);
  // The exact measurements under another id stay a retry (200, duplicate_of); the same id a retry.
  RunResult same = original;
  same.run_id = "same-measurements";
  r = upload(same);
  EXPECT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(body_json(r)["duplicate_of"], "original");
  EXPECT_EQ(upload(original).status, 200);
  EXPECT_EQ(store_->list_runs({}, store::RunOrder::Newest, {}).value().total, 3);
}

TEST_F(SiteTest, EveryFigureColumnOfAListHasOneStyle) {
  // Single-stream figures of 14,112.3 and 8,801.4 tok/s: "14.1K" stood beside "8,801.4" before.
  ASSERT_EQ(upload(test::site_result("fast", "M1", "NVIDIA GeForce RTX 3090", 14'112.3)).status, 201);
  ASSERT_EQ(upload(test::site_result("slow", "M2", "NVIDIA GeForce RTX 3090", 8'801.4)).status, 201);
  const std::string page = get("/runs").body;
  EXPECT_NE(page.find(">14,112<"), std::string::npos);
  EXPECT_NE(page.find(">8,801<"), std::string::npos);
  EXPECT_EQ(page.find("14.1K"), std::string::npos);
  EXPECT_EQ(page.find("8,801.4"), std::string::npos);
}

TEST_F(SiteTest, ReadsOfTheApiAreOpenToEveryOriginUploadsAreNot) {
  ASSERT_EQ(upload(test::site_result("run-1")).status, 201);
  for (const char* target : {"/api/v1/runs", "/api/v1/runs/run-1", "/api/v1/leaderboard", "/api/v1/hardware",
                             "/api/v1/models", "/api/v1/health", "/api/v1/dump", "/api/v1/openapi.json",
                             "/api/v1/runs/missing"}) {
    SiteResponse r = get(target);
    EXPECT_EQ(header(r, "Access-Control-Allow-Origin"), "*") << target;
  }
  EXPECT_EQ(header(upload(test::site_result("run-2", "M2")), "Access-Control-Allow-Origin"), "") << "uploads: no CORS";
  EXPECT_EQ(header(get("/"), "Access-Control-Allow-Origin"), "") << "pages: no CORS";
  SiteRequest preflight{.method = HttpMethod::Options, .path = "/api/v1/runs"};
  SiteResponse r = site_->handle(preflight);
  EXPECT_EQ(r.status, 204);
  EXPECT_TRUE(r.body.empty());
  EXPECT_EQ(header(r, "Access-Control-Allow-Methods"), "GET, HEAD") << "never POST: uploads stay same-origin";
  EXPECT_EQ(header(r, "Access-Control-Allow-Origin"), "*");
}

TEST_F(SiteTest, NoUnknownOrRevokedTokenIs401) {
  const std::string body = to_json(test::site_result("run-2")).dump();
  SiteResponse r = post("/api/v1/runs", body, "");
  EXPECT_EQ(r.status, 401);
  EXPECT_EQ(header(r, "WWW-Authenticate"), "Bearer realm=\"speedmatrix\"");
  EXPECT_EQ(post("/api/v1/runs", body, "smt_" + std::string(64, '0')).status, 401);
  SiteRequest basic;
  basic.method = HttpMethod::Post;
  basic.path = "/api/v1/runs";
  basic.body = body;
  basic.authorization = "Basic dXNlcjpwYXNz";
  EXPECT_EQ(site_->handle(basic).status, 401);
  ASSERT_EQ(store_->revoke_token(token_id_, "2026-12-03T10:00:00Z").value(), 1);
  r = post("/api/v1/runs", body, token_);
  EXPECT_EQ(r.status, 401);
  EXPECT_NE(body_json(r)["error"]["message"].get<std::string>().find("revoked"), std::string::npos);
  EXPECT_EQ(store_->list_runs({}, store::RunOrder::Newest, {}).value().total, 0);
}

TEST_F(SiteTest, MalformedJsonIs400NamingWhere) {
  SiteResponse r = post("/api/v1/runs", "{\"run_id\": \"x\",, }", token_);
  ASSERT_EQ(r.status, 400);
  EXPECT_EQ(body_json(r)["error"]["code"], "malformed_json");
  const std::string message = body_json(r)["error"]["message"];
  EXPECT_NE(message.find("line 1, column 16"), std::string::npos) << message;
  EXPECT_EQ(post("/api/v1/runs", "", token_).status, 400);
  EXPECT_EQ(post("/api/v1/runs", std::string(100000, '['), token_).status, 400);
  r = post("/api/v1/runs", "\"\xff\xfe\"", token_);
  EXPECT_EQ(r.status, 400);
}

TEST_F(SiteTest, SchemaViolationIs400NamingTheField) {
  json j = to_json(test::site_result("run-3"));
  j["decode"][1]["status"] = "great";
  SiteResponse r = post("/api/v1/runs", j.dump(), token_);
  ASSERT_EQ(r.status, 400);
  EXPECT_EQ(body_json(r)["error"]["code"], "schema_violation");
  std::string message = body_json(r)["error"]["message"];
  EXPECT_NE(message.find("$.decode[1].status"), std::string::npos) << message;
  EXPECT_NE(message.find("over_capacity"), std::string::npos) << message;

  j = to_json(test::site_result("run-3"));
  j.erase("run_id");
  message = body_json(post("/api/v1/runs", j.dump(), token_))["error"]["message"];
  EXPECT_NE(message.find("run_id"), std::string::npos) << message;

  j = to_json(test::site_result("run-3"));
  j["decode"][0]["total_tok_s"] = "fast";
  message = body_json(post("/api/v1/runs", j.dump(), token_))["error"]["message"];
  EXPECT_NE(message.find("$.decode[0].total_tok_s: expected number or null"), std::string::npos) << message;

  j = to_json(test::site_result("../../etc/passwd"));
  message = body_json(post("/api/v1/runs", j.dump(), token_))["error"]["message"];
  EXPECT_NE(message.find("$.run_id"), std::string::npos) << message;

  j = to_json(test::site_result("run-3"));
  j["schema_version"] = 99;
  EXPECT_EQ(post("/api/v1/runs", j.dump(), token_).status, 400);
  EXPECT_EQ(post("/api/v1/runs", "[1,2,3]", token_).status, 400);
  EXPECT_EQ(store_->list_runs({}, store::RunOrder::Newest, {}).value().total, 0);

  // Fields this version does not know are kept: newer clients may add some.
  j = to_json(test::site_result("run-4"));
  j["future_field"] = {{"x", 1}};
  ASSERT_EQ(post("/api/v1/runs", j.dump(), token_).status, 201);
  EXPECT_NE(get("/api/v1/runs/run-4").body.find("future_field"), std::string::npos);
}

TEST_F(SiteTest, OverTheSizeLimitIs413) {
  SiteConfig config;
  config.max_upload_bytes = 2048;
  make_site(config);
  SiteResponse r = upload(test::site_result("run-big"));  // a few KB
  EXPECT_EQ(r.status, 413) << r.body;
  EXPECT_EQ(body_json(r)["error"]["code"], "too_large");
  SiteRequest head;
  head.method = HttpMethod::Post;
  head.path = "/api/v1/runs";
  head.authorization = "Bearer " + token_;
  auto early = site_->precheck_upload(head, uint64_t{1} << 30);
  ASSERT_TRUE(early);
  EXPECT_EQ(early->status, 413);
  SiteRequest anonymous;
  anonymous.method = HttpMethod::Post;
  anonymous.path = "/api/v1/runs";
  early = site_->precheck_upload(anonymous, 100);
  ASSERT_TRUE(early);
  EXPECT_EQ(early->status, 401);
}

TEST_F(SiteTest, RateLimitPerTokenIs429WithRetryAfter) {
  SiteConfig config;
  config.upload_rate_per_min = 3;
  make_site(config);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(upload(test::site_result(fmt::format("rl-{}", i))).status, 201);
  SiteResponse r = upload(test::site_result("rl-3"));
  ASSERT_EQ(r.status, 429) << r.body;
  EXPECT_EQ(header(r, "Retry-After"), "20");
  EXPECT_EQ(body_json(r)["error"]["retry_after_s"], 20);
  // Another token has its own bucket.
  auto other = generate_upload_token();
  ASSERT_TRUE(store_->create_token({other->token_id, "other", "x", "", 0}, other->sha256_hex));
  EXPECT_EQ(post("/api/v1/runs", to_json(test::site_result("rl-other")).dump(), other->secret).status, 201);
  clock_.advance_ns(20 * kNsPerS);
  EXPECT_EQ(upload(test::site_result("rl-3")).status, 201);
  EXPECT_EQ(upload(test::site_result("rl-4")).status, 429);
}

TEST_F(SiteTest, ApiListsFiltersPagesAndReturnsRuns) {
  ASSERT_EQ(upload(test::site_result("a", "M1", "NVIDIA GeForce RTX 3090", 100)).status, 201);
  ASSERT_EQ(upload(test::site_result("b", "M2", "NVIDIA H100", 300)).status, 201);
  ASSERT_EQ(upload(test::site_result("c", "M1", "NVIDIA H100", 200)).status, 201);
  json page = body_json(get("/api/v1/runs?limit=2"));
  EXPECT_EQ(page["total"], 3);
  ASSERT_EQ(page["runs"].size(), 2u);
  EXPECT_EQ(page["runs"][0]["run_id"], "c");
  EXPECT_TRUE(page["previous"].is_null());
  // Keyset pages: the next link names the last run shown (b), not a row count.
  ASSERT_TRUE(page["next"].is_string());
  EXPECT_TRUE(page["next"].get<std::string>().starts_with("/api/v1/runs?sort=newest&limit=2&cursor=a0~2~0~"));
  EXPECT_TRUE(page["next"].get<std::string>().ends_with("~b")) << page["next"];
  page = body_json(get(page["next"].get<std::string>()));
  ASSERT_EQ(page["runs"].size(), 1u);
  EXPECT_EQ(page["runs"][0]["run_id"], "a");
  EXPECT_EQ(page["runs"][0]["rank"], 3);
  EXPECT_EQ(page["offset"], 2);
  EXPECT_TRUE(page["next"].is_null());
  ASSERT_TRUE(page["previous"].is_string());
  EXPECT_EQ(body_json(get(page["previous"].get<std::string>()))["runs"][0]["run_id"], "c");
  // An old offset link still works; a cursor that is not one, or of another order, is a 400.
  page = body_json(get("/api/v1/runs?limit=2&offset=2"));
  ASSERT_EQ(page["runs"].size(), 1u);
  EXPECT_EQ(page["runs"][0]["run_id"], "a");
  EXPECT_EQ(get("/api/v1/runs?cursor=nonsense").status, 400);
  EXPECT_EQ(get("/api/v1/runs?sort=best_total&cursor=a0~2~0~2026-12-03T10:00:00.000Z~b").status, 400);
  EXPECT_EQ(get("/runs?cursor=nonsense").status, 400);
  // The pages' pagers link by cursor too, and rank from where the page starts.
  const std::string runs_page = get("/runs?limit=2").body;
  EXPECT_NE(runs_page.find("&amp;cursor=a0~2~"), std::string::npos);
  const std::string board_page = get("/?kind=all&limit=1&sort=newest").body;
  EXPECT_NE(board_page.find("&amp;cursor=a0~1~"), std::string::npos);
  page = body_json(get("/api/v1/runs?gpu=H100%20SXM%2080GB&model=M1"));
  ASSERT_EQ(page["total"], 1);
  EXPECT_EQ(page["runs"][0]["run_id"], "c");
  EXPECT_EQ(page["runs"][0]["single_stream_tok_s"], 200.0);
  EXPECT_EQ(page["runs"][0]["best_total_concurrency"], 2);
  EXPECT_FALSE(page["runs"][0].contains("token_id"));
  EXPECT_EQ(body_json(get("/api/v1/runs?engine=vllm&quantization=AWQ%204-bit"))["total"], 3);
  EXPECT_EQ(get("/api/v1/runs?limit=0").status, 400);
  EXPECT_EQ(get("/api/v1/runs?sort=fastest").status, 400);

  SiteResponse one = get("/api/v1/runs/b");
  ASSERT_EQ(one.status, 200);
  auto back = result_from_json(json::parse(one.body));
  ASSERT_TRUE(back);
  EXPECT_EQ(back->engine.model_path, "M2");
  EXPECT_EQ(get("/api/v1/runs/zzz").status, 404);

  json board = body_json(get("/api/v1/leaderboard"));
  EXPECT_EQ(board["sort"], "single_stream");
  EXPECT_EQ(board["runs"][0]["run_id"], "b");
  EXPECT_EQ(board["runs"][0]["rank"], 1);
  EXPECT_EQ(body_json(get("/api/v1/leaderboard?model=M1"))["runs"][0]["run_id"], "c");

  json hw = body_json(get("/api/v1/hardware"));
  ASSERT_EQ(hw["hardware"].size(), 2u);
  EXPECT_EQ(hw["hardware"][0]["name"], "H100 SXM 80GB");
  EXPECT_EQ(hw["hardware"][0]["models"], 2);
  json models = body_json(get("/api/v1/models"));
  ASSERT_EQ(models["models"].size(), 2u);
  EXPECT_EQ(models["models"][0]["gpus"], 2);
  EXPECT_EQ(body_json(get("/api/v1/health"))["schema_version"], store::latest_schema_version());
}

TEST_F(SiteTest, CalcApiPredictsAMatrix) {
  SiteResponse r = post("/api/v1/calc",
                        R"({"gpu":"RTX 3090","model":"Qwen3.5-4B","quant":"AWQ","engine":"vllm","contexts":"0,16K","concurrency":[1,4],"prefill_contexts":[8192]})",
                        "");
  ASSERT_EQ(r.status, 200) << r.body;
  auto result = result_from_json(json::parse(r.body));
  ASSERT_TRUE(result);
  EXPECT_EQ(result->kind, "predicted");
  EXPECT_EQ(result->decode.size(), 4u);
  EXPECT_EQ(result->prefill.size(), 1u);
  r = post("/api/v1/calc", R"({"gpu":"RTX 9999"})", "");
  ASSERT_EQ(r.status, 400);
  EXPECT_NE(body_json(r)["error"]["message"].get<std::string>().find("gpu:"), std::string::npos);
  EXPECT_EQ(post("/api/v1/calc", R"({"concurrency":"1,2,4,8,16,32,64,128,256,512,1024,2048,4096"})", "").status, 400);
  EXPECT_EQ(post("/api/v1/calc", R"({"colour":"blue"})", "").status, 400);
  EXPECT_EQ(post("/api/v1/calc", "nope", "").status, 400);
  EXPECT_EQ(get("/api/v1/calc").status, 405);
}

TEST_F(SiteTest, OpenApiDocumentListsEveryRouteAndTheDocsPageShowsIt) {
  SiteResponse r = get("/api/v1/openapi.json");
  ASSERT_EQ(r.status, 200);
  json doc = json::parse(r.body);
  EXPECT_EQ(doc["openapi"], "3.1.0");
  for (const char* path : {"/api/v1/runs", "/api/v1/runs/{run_id}", "/api/v1/leaderboard", "/api/v1/hardware",
                           "/api/v1/models", "/api/v1/calc"})
    EXPECT_TRUE(doc["paths"].contains(path)) << path;
  EXPECT_TRUE(doc["paths"]["/api/v1/runs"].contains("post"));
  EXPECT_TRUE(json::parse(get("/api/v1/schema/result.json").body)["properties"].contains("decode"));
  SiteResponse page = get("/api");
  ASSERT_EQ(page.status, 200);
  EXPECT_NE(page.body.find("/api/v1/leaderboard"), std::string::npos);
  EXPECT_NE(page.body.find("Upload a run"), std::string::npos);
}

TEST_F(SiteTest, EveryPageRendersAUserWrittenScriptAsText) {
  RunResult evil = test::site_result("evil-run", kXssModel, "<img src=x onerror=alert(1)>");
  evil.submitted_by = "<b>me</b>";
  evil.notes = "</pre><script>alert(2)</script>";
  ASSERT_EQ(upload(evil).status, 201);
  ASSERT_EQ(upload(test::site_result("good-run")).status, 201);
  const std::string gpu_name = "<img src=x onerror=alert(1)> 24GB";
  for (const std::string target :
       {"/", "/?sort=best_total", "/?sort=tokens_per_joule", "/runs", "/runs/evil-run", "/hardware", "/models", "/compare",
        "/compare?run=evil-run&run=good-run", "/hardware?gpu=%3Cimg%20src%3Dx%20onerror%3Dalert(1)%3E%2024GB",
        "/models?model=%3Cscript%3Edocument.title%3D'pwned'", "/?gpu=%3Cscript%3Ealert(3)%3C/script%3E",
        "/calc?gpu=%3Cscript%3Ealert(4)%3C/script%3E", "/getting-started", "/no/such/page%3Cscript%3E"}) {
    SiteResponse r = get(target);
    EXPECT_TRUE(r.status == 200 || r.status == 400 || r.status == 404) << target << " " << r.status;
    EXPECT_EQ(r.content_type, "text/html; charset=utf-8") << target;
    EXPECT_EQ(r.body.find("<script"), std::string::npos) << target;
    EXPECT_EQ(r.body.find("<img"), std::string::npos) << target;
    EXPECT_EQ(r.body.find("<b>me"), std::string::npos) << target;
    EXPECT_NE(header(r, "Content-Security-Policy").find("default-src 'none'"), std::string::npos) << target;
  }
  EXPECT_NE(get("/").body.find("&lt;script&gt;document.title=&#39;pwned&#39;"), std::string::npos);
  EXPECT_NE(get("/").body.find("&lt;img src=x onerror=alert(1)&gt; 24GB"), std::string::npos);
  EXPECT_NE(get("/runs/evil-run").body.find("&lt;script&gt;"), std::string::npos);
  // A Host header is shown on Getting started: escaped too.
  SiteRequest r;
  r.path = "/getting-started";
  r.host = "x\"><script>alert(5)</script>";
  EXPECT_EQ(site_->handle(r).body.find("<script"), std::string::npos);
}

TEST_F(SiteTest, PagesShowRunsFiltersAndTheCalculator) {
  ASSERT_EQ(upload(test::site_result("a", "M1", "NVIDIA GeForce RTX 3090", 100)).status, 201);
  ASSERT_EQ(upload(test::site_result("b", "M2", "NVIDIA H100", 300)).status, 201);
  SiteResponse board = get("/");
  ASSERT_EQ(board.status, 200);
  EXPECT_NE(board.body.find("id=\"runs-table\""), std::string::npos);
  EXPECT_LT(board.body.find("data-run-id=\"b\""), board.body.find("data-run-id=\"a\""));  // 300 before 100
  SiteResponse filtered = get("/?gpu=RTX%203090%2024GB");
  EXPECT_NE(filtered.body.find("data-run-id=\"a\""), std::string::npos);
  EXPECT_EQ(filtered.body.find("data-run-id=\"b\""), std::string::npos);
  EXPECT_NE(filtered.body.find("<option value=\"RTX 3090 24GB\" selected>"), std::string::npos);
  EXPECT_NE(get("/?model=nothing").body.find("No run matches"), std::string::npos);

  SiteResponse run = get("/runs/a");
  ASSERT_EQ(run.status, 200);
  EXPECT_NE(run.body.find("id=\"decode-matrix\""), std::string::npos);
  EXPECT_NE(run.body.find("class=\"site-nav\""), std::string::npos);
  EXPECT_EQ(get("/runs/nope").status, 404);
  EXPECT_NE(get("/compare?run=a&run=b").body.find("M2 on H100 SXM 80GB"), std::string::npos);
  EXPECT_EQ(get("/compare?run=a&run=missing").status, 404);
  EXPECT_NE(get("/hardware").body.find("H100 SXM 80GB"), std::string::npos);
  EXPECT_NE(get("/models?model=M1").body.find("data-run-id=\"a\""), std::string::npos);

  SiteResponse calc_form = get("/calc");
  ASSERT_EQ(calc_form.status, 200);
  EXPECT_NE(calc_form.body.find("id=\"calc-form\""), std::string::npos);
  EXPECT_EQ(calc_form.body.find("decode-matrix"), std::string::npos);
  SiteResponse calc = get("/calc?gpu=rtx3090&model=qwen3.5-4b&quant=awq-4bit&engine=vllm&contexts=0%2C16K&concurrency=1%2C2%2C4&prefill=8K");
  ASSERT_EQ(calc.status, 200) << calc.body.substr(0, 2000);
  EXPECT_NE(calc.body.find("id=\"decode-matrix\""), std::string::npos);
  EXPECT_NE(calc.body.find("80% interval"), std::string::npos);  // the prediction's error interval (issue 13)
  EXPECT_NE(calc.body.find("id=\"calc-form\""), std::string::npos);
  EXPECT_EQ(get("/calc?gpu=nonsense").status, 400);
  EXPECT_EQ(get("/nowhere").status, 404);
  SiteRequest del;
  del.method = HttpMethod::Other;
  del.path = "/runs";
  EXPECT_EQ(site_->handle(del).status, 405);
}

}  // namespace
}  // namespace sm::site
