// The small parts of the site: the JSON Schema subset, query strings, the rate limiter, tokens.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "result/result_json.h"
#include "site/json_schema.h"
#include "site/query_string.h"
#include "site/rate_limiter.h"
#include "site/site_data.h"
#include "site/site_fixtures.h"
#include "site/timestamps.h"
#include "site/upload_token.h"

namespace sm::site {
namespace {

using nlohmann::json;

std::string violation(const JsonSchema& schema, const json& doc) {
  auto ok = schema.validate(doc);
  return ok ? std::string() : ok.error().message;
}

TEST(JsonSchema, ChecksTypesEnumsRequiredRangesPatternsAndRefs) {
  auto schema = JsonSchema::parse(R"({
    "type": "object", "required": ["id", "cells"],
    "properties": {
      "id": {"type": "string", "pattern": "^[a-z]+$", "maxLength": 5},
      "n": {"type": ["integer", "null"], "minimum": 1},
      "cells": {"type": "array", "maxItems": 2, "items": {"$ref": "#/$defs/cell"}},
      "strict": {"type": "object", "additionalProperties": false, "properties": {"a": {"type": "boolean"}}}
    },
    "$defs": {"cell": {"type": "object", "required": ["status"], "properties": {"status": {"enum": ["ok", "bad"]}}}}
  })");
  ASSERT_TRUE(schema) << schema.error().message;
  EXPECT_EQ(violation(*schema, json::parse(R"({"id":"abc","cells":[{"status":"ok"}],"n":null})")), "");
  EXPECT_EQ(violation(*schema, json::parse(R"({"id":"abc","cells":[],"n":2.0})")), "");
  EXPECT_EQ(violation(*schema, json::parse(R"({"cells":[]})")), "$: missing required field \"id\"");
  EXPECT_EQ(violation(*schema, json::parse(R"({"id":"ABC","cells":[]})")), "$.id: \"ABC\" does not match \"^[a-z]+$\"");
  EXPECT_EQ(violation(*schema, json::parse(R"({"id":"abcdef","cells":[]})")), "$.id: longer than 5 characters");
  EXPECT_EQ(violation(*schema, json::parse(R"({"id":"a","cells":[],"n":0})")), "$.n: 0 is below the minimum 1");
  EXPECT_EQ(violation(*schema, json::parse(R"({"id":"a","cells":[],"n":1.5})")),
            "$.n: expected integer or null, got number 1.5");
  EXPECT_EQ(violation(*schema, json::parse(R"({"id":"a","cells":[{"status":"ok"},{"status":"meh"}]})")),
            "$.cells[1].status: \"meh\" is not one of: ok, bad");
  EXPECT_EQ(violation(*schema, json::parse(R"({"id":"a","cells":[{},{},{}]})")), "$.cells: more than 2 items");
  EXPECT_EQ(violation(*schema, json::parse(R"({"id":"a","cells":[],"strict":{"b":1}})")), "$.strict.b: unknown field");
  EXPECT_EQ(violation(*schema, json::parse(R"({"id":"a","cells":[],"strict":{"a b":1}})")), "$.strict[\"a b\"]: unknown field");
  EXPECT_EQ(violation(*schema, json::parse("[]")), "$: expected object, got array []");
}

TEST(JsonSchema, RefusesABrokenSchema) {
  EXPECT_FALSE(JsonSchema::parse("nope"));
  EXPECT_FALSE(JsonSchema::parse(R"({"type":"float"})"));
  EXPECT_FALSE(JsonSchema::parse(R"({"properties":{"a":{"$ref":"#/$defs/none"}}})"));
  EXPECT_FALSE(JsonSchema::parse(R"({"pattern":"(["})"));
}

TEST(JsonSchema, TheEmbeddedResultSchemaAcceptsWhatTheToolWrites) {
  auto text = site_data_file("result-schema.json");
  ASSERT_TRUE(text);
  auto schema = JsonSchema::parse(*text);
  ASSERT_TRUE(schema) << schema.error().message;
  auto rules = JsonSchema::parse(site_data_file("upload-rules.json").value_or(""));
  ASSERT_TRUE(rules) << rules.error().message;
  EXPECT_EQ(violation(*rules, to_json(test::site_result("20261202T143448Z-3f9a2c1e"))), "");
  EXPECT_NE(violation(*rules, to_json(test::site_result("a/b"))), "");
  EXPECT_NE(violation(*rules, to_json(test::site_result(std::string(129, 'a')))), "");
  EXPECT_EQ(violation(*schema, to_json(test::site_result("r1"))), "");
  RunResult empty;
  empty.run_id = "20261202T143448Z-3f9a2c1e";
  EXPECT_EQ(violation(*schema, to_json(empty)), "");
  RunResult all_statuses = test::site_result("r2");
  const CellStatus statuses[] = {CellStatus::Valid, CellStatus::OverCapacity, CellStatus::BeyondModel, CellStatus::Error};
  for (size_t i = 0; i < all_statuses.decode.size(); ++i) all_statuses.decode[i].status = statuses[i % 4];
  all_statuses.decode[0].status = CellStatus::Pending;
  all_statuses.decode[1].status = CellStatus::Interrupted;
  EXPECT_EQ(violation(*schema, to_json(all_statuses)), "");
}

TEST(QueryString, DecodesEncodesAndRoundTrips) {
  QueryParams q("gpu=RTX+3090%2024GB&run=a&run=b&empty=&flag&bad=%zz&pct=100%25");
  EXPECT_EQ(q.get("gpu"), "RTX 3090 24GB");
  EXPECT_EQ(q.all("run"), (std::vector<std::string>{"a", "b"}));
  EXPECT_TRUE(q.has("empty"));
  EXPECT_TRUE(q.has("flag"));
  EXPECT_EQ(q.get("bad"), "%zz");
  EXPECT_EQ(q.get("pct"), "100%");
  EXPECT_EQ(q.get("missing"), "");
  EXPECT_EQ(percent_encode("a b/<c>&é"), "a%20b%2F%3Cc%3E%26%C3%A9");
  EXPECT_EQ(percent_decode("a+b%2F", false), "a+b/");
  EXPECT_EQ(build_query({{"a", "1 2"}, {"b", ""}, {"c", "x&y"}}), "?a=1%202&c=x%26y");
  EXPECT_EQ(build_query({{"b", ""}}), "");
  QueryParams back(build_query({{"model", "<script>'\"&"}}).substr(1));
  EXPECT_EQ(back.get("model"), "<script>'\"&");
}

TEST(RateLimiter, RefillsWithTimeAndKeepsKeysApart) {
  ManualClock clock(0);
  RateLimiter limiter(clock, 60);  // one a second, bursts of 60
  for (int i = 0; i < 60; ++i) EXPECT_TRUE(limiter.allow("a"));
  int64_t retry = 0;
  EXPECT_FALSE(limiter.allow("a", &retry));
  EXPECT_EQ(retry, 1);
  EXPECT_TRUE(limiter.allow("b"));
  clock.advance_ns(kNsPerS);
  EXPECT_TRUE(limiter.allow("a"));
  EXPECT_FALSE(limiter.allow("a"));
  RateLimiter off(clock, 0);
  for (int i = 0; i < 1000; ++i) EXPECT_TRUE(off.allow("a"));
  RateLimiter slow(clock, 2, 1);
  EXPECT_TRUE(slow.allow("x"));
  EXPECT_FALSE(slow.allow("x", &retry));
  EXPECT_EQ(retry, 30);
}

TEST(UploadToken, IsRandomHashedAndParsedFromTheHeader) {
  auto a = generate_upload_token();
  auto b = generate_upload_token();
  ASSERT_TRUE(a && b);
  EXPECT_EQ(a->secret.size(), 4u + 64u);
  EXPECT_TRUE(a->secret.starts_with("smt_"));
  EXPECT_NE(a->secret, b->secret);
  EXPECT_NE(a->token_id, b->token_id);
  EXPECT_EQ(a->sha256_hex, sha256_hex(a->secret));
  EXPECT_EQ(a->sha256_hex.find(a->secret.substr(4)), std::string::npos);
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(bearer_token("Bearer smt_x"), "smt_x");
  EXPECT_EQ(bearer_token("bearer   smt_x  "), "smt_x");
  EXPECT_EQ(bearer_token("Basic abc"), "");
  EXPECT_EQ(bearer_token("Bearer "), "");
  EXPECT_EQ(bearer_token(""), "");
}

TEST(Timestamps, MillisecondIso8601) {
  EXPECT_EQ(iso8601_utc_ms(0), "1970-01-01T00:00:00.000Z");
  EXPECT_EQ(iso8601_utc_ms(1796222088123), "2026-12-02T14:34:48.123Z");
  EXPECT_EQ(display_minutes("2026-12-02T14:34:48.123Z"), "2026-12-02 14:34");
  EXPECT_EQ(display_minutes(""), "");
}

}  // namespace
}  // namespace sm::site
