// The upload client reaches a results site the way `upload --header/--cacert/--proxy` says:
// checked on what a scripted server behind a key-checking gateway saw.
#include <gtest/gtest.h>

#include "support/scripted_server.h"
#include "upload/upload_client.h"

namespace sm {
namespace {

TEST(UploadConnection, TheGatewayHeaderIsSentWithEveryTry) {
  test::ScriptedServerOptions opts;
  opts.required_headers = {{"X-Gateway-Key", "gateway-5c1d9e"}};
  test::ScriptedServer site(opts);
  upload::UploadOptions o;
  o.site_url = site.url();
  o.token = "smt_test";
  o.max_attempts = 1;

  auto refused = upload::upload_result_text("{}", o);
  ASSERT_FALSE(refused.has_value());
  EXPECT_NE(refused.error().message.find("401"), std::string::npos) << refused.error().message;

  o.connection.headers = {"X-Gateway-Key: gateway-5c1d9e"};
  auto past_gateway = upload::upload_result_text("{}", o);
  ASSERT_FALSE(past_gateway.has_value()) << "the scripted server has no upload route";
  EXPECT_NE(past_gateway.error().message.find("404"), std::string::npos) << past_gateway.error().message;
  const auto seen = site.all_requests();
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen.back().path, "/api/v1/runs");
  EXPECT_EQ(seen.back().headers.at("x-gateway-key"), "gateway-5c1d9e");
  EXPECT_EQ(seen.back().authorization, "Bearer smt_test") << "the upload token still goes as it did";
}

}  // namespace
}  // namespace sm
