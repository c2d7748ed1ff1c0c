#pragma once
// A site on a fresh SQLite store with one upload token, for the site's tests: requests go straight
// to Site::handle (no sockets). A test fixture derives from SiteHarness and may pick its own
// SiteConfig (site_config()).
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "core/clock.h"
#include "result/result_json.h"
#include "site/site.h"
#include "site/upload_token.h"
#include "store/result_store.h"
#include "support/temp_dir.h"

namespace sm::test {

class SiteHarness : public ::testing::Test {
 protected:
  /// The site's configuration; the default has no upload rate limit.
  virtual site::SiteConfig site_config() const { return {.upload_rate_per_min = 0}; }

  void SetUp() override {
    auto s = store::open_store("sqlite:" + dir_.file("site.db"));
    ASSERT_TRUE(s) << s.error().message;
    store_ = std::move(*s);
    auto t = site::generate_upload_token();
    ASSERT_TRUE(t);
    token_ = t->secret;
    ASSERT_TRUE(store_->create_token({t->token_id, "test", "2026-12-03T09:00:00Z", "", 0}, t->sha256_hex));
    auto site = site::Site::create(*store_, site_config(), clock_);
    ASSERT_TRUE(site) << site.error().message;
    site_ = std::move(*site);
  }

  /// `target` is a path with an optional query ("/runs?sort=newest"); a POST carries the token.
  site::SiteResponse request(site::HttpMethod method, const std::string& target, std::string body = "") {
    site::SiteRequest r;
    r.method = method;
    const size_t q = target.find('?');
    r.path = target.substr(0, q);
    if (q != std::string::npos) r.query = target.substr(q + 1);
    r.host = "results.test:8080";
    r.client = "127.0.0.1";
    r.body = std::move(body);
    if (method == site::HttpMethod::Post) r.authorization = "Bearer " + token_;
    return site_->handle(r);
  }
  site::SiteResponse get(const std::string& target) { return request(site::HttpMethod::Get, target); }
  /// Uploads `result` to /api/v1/runs; the answer's status.
  int upload(const RunResult& result) { return request(site::HttpMethod::Post, "/api/v1/runs", to_json(result).dump()).status; }

  TempDir dir_;
  ManualClock clock_{1'000'000'000};
  std::unique_ptr<store::ResultStore> store_;
  std::unique_ptr<site::Site> site_;
  std::string token_;
};

}  // namespace sm::test
