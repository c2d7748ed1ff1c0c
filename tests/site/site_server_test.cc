// The site over real sockets: uploads through libcurl, early answers (401, 413) that the client
// still reads although it was sending a body, keep-alive, HEAD, and the upload client's retries
// and pending marker.
#include <gtest/gtest.h>

#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/write.hpp>

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

namespace sm::site {
namespace {

namespace asio = boost::asio;
using nlohmann::json;

class SiteServerTest : public ::testing::Test {
 protected:
  void start(SiteConfig config = {}) {
    server_.reset();
    site_.reset();
    if (!store_) {
      auto s = store::open_store("sqlite:" + dir_.file("site.db"));
      ASSERT_TRUE(s) << s.error().message;
      store_ = std::move(*s);
      auto t = generate_upload_token();
      token_ = t->secret;
      ASSERT_TRUE(store_->create_token({t->token_id, "test", "2026-12-03T09:00:00Z", "", 0}, t->sha256_hex));
    }
    auto site = Site::create(*store_, config);
    ASSERT_TRUE(site);
    site_ = std::move(*site);
    auto server = SiteServer::start(*site_, {.host = "127.0.0.1", .port = 0, .threads = 2});
    ASSERT_TRUE(server) << server.error().message;
    server_ = std::move(*server);
  }

  Result<HttpResponse> post_run(const std::string& body, const std::string& token) {
    HttpRequest r;
    r.url = server_->base_url() + "/api/v1/runs";
    r.body = body;
    if (!token.empty()) r.headers.push_back("Authorization: Bearer " + token);
    return http_fetch(r);
  }

  // Sends raw bytes on one connection and reads until the server closes or `until` appears.
  std::string raw(const std::string& bytes, const std::string& until = "") {
    asio::io_context io;
    asio::ip::tcp::socket socket(io);
    socket.connect({asio::ip::make_address("127.0.0.1"), server_->port()});
    asio::write(socket, asio::buffer(bytes));
    std::string out;
    char buf[4096];
    boost::system::error_code ec;
    while (!ec) {
      size_t n = socket.read_some(asio::buffer(buf), ec);
      out.append(buf, n);
      if (!until.empty() && out.find(until) != std::string::npos) break;
    }
    return out;
  }

  test::TempDir dir_;
  std::unique_ptr<store::ResultStore> store_;
  std::unique_ptr<Site> site_;
  std::unique_ptr<SiteServer> server_;
  std::string token_;
};

TEST_F(SiteServerTest, UploadsAndReadsBackOverHttp) {
  start();
  auto r = post_run(to_json(test::site_result("http-1")).dump(), token_);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->status, 201) << r->body;
  HttpRequest get;
  get.url = server_->base_url() + "/api/v1/runs/http-1";
  auto back = http_fetch(get);
  ASSERT_TRUE(back);
  EXPECT_EQ(back->status, 200);
  EXPECT_EQ(back->content_type, "application/json");
  EXPECT_EQ(json::parse(back->body)["run_id"], "http-1");
  get.url = server_->base_url() + "/runs/http-1";
  back = http_fetch(get);
  ASSERT_TRUE(back);
  EXPECT_EQ(back->status, 200);
  EXPECT_NE(back->body.find("decode-matrix"), std::string::npos);
}

TEST_F(SiteServerTest, EarlyAnswersReachAClientThatIsStillSendingItsBody) {
  SiteConfig config;
  config.max_upload_bytes = 64 * 1024;
  start(config);
  const std::string big(4 << 20, ' ');  // 4 MiB: far more than the socket buffers hold
  auto r = post_run(big, "");
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->status, 401);
  r = post_run(big, token_);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->status, 413);
  EXPECT_NE(r->body.find("too_large"), std::string::npos);
  // Chunked, so no Content-Length to refuse up front: the limit stops it while reading.
  std::string chunked = "POST /api/v1/runs HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + token_ +
                        "\r\nTransfer-Encoding: chunked\r\n\r\n";
  for (int i = 0; i < 40; ++i) chunked += "1000\r\n" + std::string(4096, ' ') + "\r\n";
  chunked += "0\r\n\r\n";
  std::string answer = raw(chunked);
  EXPECT_TRUE(answer.starts_with("HTTP/1.1 413")) << answer.substr(0, 200);
}

TEST_F(SiteServerTest, KeepAliveHeadAndBadRequests) {
  start();
  std::string two = raw(
      "GET /api/v1/health HTTP/1.1\r\nHost: x\r\n\r\nGET /api/v1/runs HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  EXPECT_EQ(two.find("HTTP/1.1 200"), 0u);
  EXPECT_NE(two.find("HTTP/1.1 200", 10), std::string::npos) << two;
  std::string head = raw("HEAD / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  EXPECT_TRUE(head.starts_with("HTTP/1.1 200")) << head;
  EXPECT_NE(head.find("Content-Length: "), std::string::npos);
  EXPECT_EQ(head.find("<!DOCTYPE"), std::string::npos);
  std::string garbage = raw("NOT HTTP AT ALL\r\n\r\n");
  EXPECT_EQ(garbage.find("HTTP/1.1 200"), std::string::npos);
  std::string encoded = raw("GET /runs/%3Cscript%3E HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  EXPECT_TRUE(encoded.starts_with("HTTP/1.1 404")) << encoded.substr(0, 100);
  EXPECT_EQ(encoded.find("<script>"), std::string::npos);
}

TEST_F(SiteServerTest, ACorsPreflightIsAnsweredOverHttp) {
  start();
  std::string answer = raw("OPTIONS /api/v1/leaderboard HTTP/1.1\r\nHost: x\r\nOrigin: https://notebook.example\r\n"
                           "Access-Control-Request-Method: GET\r\nConnection: close\r\n\r\n");
  EXPECT_TRUE(answer.starts_with("HTTP/1.1 204")) << answer;
  EXPECT_NE(answer.find("Access-Control-Allow-Origin: *"), std::string::npos) << answer;
  EXPECT_NE(answer.find("Access-Control-Allow-Methods: GET, HEAD"), std::string::npos) << answer;
  EXPECT_EQ(answer.find("\r\nContent-Type:"), std::string::npos) << "a 204 has no body and no type: " << answer;
  EXPECT_EQ(answer.find("\r\nContent-Length:"), std::string::npos) << "nor a length (RFC 9110, 8.6): " << answer;
}

TEST_F(SiteServerTest, OverLimitHeadersAndUrlsAreAnsweredNotDropped) {
  start();
  // A URL over the 8 KiB target limit, whole head under the header limit: 414 from the parsed head.
  std::string long_url = raw("GET /runs?model=" + std::string(9000, 'a') + " HTTP/1.1\r\nHost: x\r\n\r\n");
  EXPECT_TRUE(long_url.starts_with("HTTP/1.1 414")) << long_url.substr(0, 200);
  EXPECT_NE(long_url.find("uri_too_long"), std::string::npos);
  // A URL past the whole header limit: no line end in sight, still 414.
  std::string huge_url = raw("GET /runs?model=" + std::string(40000, 'a') + " HTTP/1.1\r\nHost: x\r\n\r\n");
  EXPECT_TRUE(huge_url.starts_with("HTTP/1.1 414")) << huge_url.substr(0, 200);
  // Headers over the limit: 431.
  std::string headers = "GET / HTTP/1.1\r\nHost: x\r\n";
  for (int i = 0; i < 40; ++i) headers += "X-Filler-" + std::to_string(i) + ": " + std::string(1000, 'b') + "\r\n";
  std::string big_headers = raw(headers + "\r\n");
  EXPECT_TRUE(big_headers.starts_with("HTTP/1.1 431")) << big_headers.substr(0, 200);
  EXPECT_NE(big_headers.find("headers_too_large"), std::string::npos);
  // The server still answers.
  EXPECT_TRUE(raw("GET /api/v1/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").starts_with("HTTP/1.1 200"));
}

TEST_F(SiteServerTest, UploadClientSendsRemovesTheMarkerAndKeepsAFailedRunPending) {
  start();
  test::TempDir runs;
  const auto folder = runs.path() / "20261202-143448-qwen";
  std::filesystem::create_directories(folder);
  const std::string result_file = (folder / kResultFile).string();
  ASSERT_TRUE(write_result_file(result_file, test::site_result("pending-1")));

  // A site that is not there: every try fails, the marker names the site and the error.
  std::vector<double> sleeps;
  upload::UploadOptions down;
  down.site_url = "http://127.0.0.1:1";
  down.token = token_;
  down.max_attempts = 4;
  down.jitter_seed = 7;
  down.sleep = [&](double s) { sleeps.push_back(s); };
  auto failed = upload::upload_result_file(folder.string(), down);
  ASSERT_FALSE(failed);
  ASSERT_EQ(sleeps.size(), 3u);
  for (size_t i = 0; i < sleeps.size(); ++i) {
    const double full = std::min(down.max_backoff_s, down.initial_backoff_s * (1 << i));
    EXPECT_GE(sleeps[i], full / 2);
    EXPECT_LE(sleeps[i], full);
  }
  const auto marker = folder / upload::kPendingFile;
  ASSERT_TRUE(std::filesystem::exists(marker));
  json m = json::parse(test::read_file(marker));
  EXPECT_EQ(m["url"], "http://127.0.0.1:1");
  EXPECT_EQ(m["run_id"], "pending-1");
  EXPECT_EQ(test::read_file(marker).find(token_), std::string::npos) << "the token must not be written to disk";

  auto pending = upload::find_pending_uploads(runs.path().string());
  ASSERT_TRUE(pending);
  ASSERT_EQ(pending->size(), 1u);
  EXPECT_EQ((*pending)[0].result_path, result_file);

  // Sent again to the real site: stored, marker gone; again: already stored, not a duplicate.
  upload::UploadOptions up = down;
  up.site_url = server_->base_url();
  auto sent = upload::upload_result_file(result_file, up);
  ASSERT_TRUE(sent) << sent.error().message;
  EXPECT_EQ(sent->http_status, 201);
  EXPECT_EQ(sent->run_url, server_->base_url() + "/runs/pending-1");
  EXPECT_FALSE(std::filesystem::exists(marker));
  sent = upload::upload_result_file(result_file, up);
  ASSERT_TRUE(sent);
  EXPECT_TRUE(sent->already_stored);
  EXPECT_EQ(upload::find_pending_uploads(runs.path().string())->size(), 0u);
}

TEST_F(SiteServerTest, UploadClientRetriesRateLimitsButNotRefusals) {
  SiteConfig config;
  config.upload_rate_per_min = 1;
  start(config);
  std::vector<double> sleeps;
  upload::UploadOptions o;
  o.site_url = server_->base_url() + "/";
  o.token = token_;
  o.max_attempts = 3;
  o.jitter_seed = 1;
  o.sleep = [&](double s) { sleeps.push_back(s); };
  ASSERT_TRUE(upload::upload_result_text(to_json(test::site_result("rl-1")).dump(), o));
  EXPECT_TRUE(sleeps.empty());
  auto limited = upload::upload_result_text(to_json(test::site_result("rl-2")).dump(), o);
  ASSERT_FALSE(limited);
  EXPECT_NE(limited.error().message.find("HTTP 429"), std::string::npos) << limited.error().message;
  ASSERT_EQ(sleeps.size(), 2u);
  EXPECT_GE(sleeps[0], 59.0) << "Retry-After (60 s) is honoured";
  sleeps.clear();
  o.token = "smt_wrong";
  auto refused = upload::upload_result_text(to_json(test::site_result("rl-3")).dump(), o);
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find("HTTP 401"), std::string::npos);
  EXPECT_TRUE(sleeps.empty()) << "a 401 is not retried";
  EXPECT_TRUE(upload::is_retryable(503, ErrorCode::Http));
  EXPECT_TRUE(upload::is_retryable(0, ErrorCode::Timeout));
  EXPECT_FALSE(upload::is_retryable(400, ErrorCode::Http));
  EXPECT_FALSE(upload::is_retryable(413, ErrorCode::Http));
}

}  // namespace
}  // namespace sm::site
