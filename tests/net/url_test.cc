#include "net/url.h"

#include <gtest/gtest.h>

namespace sm {
namespace {

TEST(Url, JoinPutsTheRouteBeforeTheQuery) {
  EXPECT_EQ(join_url("http://h:8000", "/v1/models"), "http://h:8000/v1/models");
  EXPECT_EQ(join_url("http://u:p@h:8000?api_key=k", "/v1/models"), "http://u:p@h:8000/v1/models?api_key=k");
  EXPECT_EQ(join_url("https://gw/openai?api-version=1#x", "/health"), "https://gw/openai/health?api-version=1#x");
  EXPECT_EQ(join_url("", "/health"), "/health");
}

TEST(Url, TrimRemovesSlashesAndV1BeforeTheQuery) {
  EXPECT_EQ(trim_base_url("http://h:8000/"), "http://h:8000");
  EXPECT_EQ(trim_base_url("http://h:8000/v1"), "http://h:8000");
  EXPECT_EQ(trim_base_url("http://h:8000/v1/?key=k"), "http://h:8000?key=k");
  EXPECT_EQ(trim_base_url("http://h:8000/api/v1x"), "http://h:8000/api/v1x");
  EXPECT_EQ(trim_base_url("http://h:8000?next=/v1/"), "http://h:8000?next=/v1/");
}

}  // namespace
}  // namespace sm
