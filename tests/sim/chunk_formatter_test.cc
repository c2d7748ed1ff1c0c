#include "sim/chunk_formatter.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "engines/chunk_parser.h"
#include "sim/json_text.h"
#include "sim/output_vocabulary.h"
#include "sim/sim_tokenizer.h"

namespace sm::sim {
namespace {

using nlohmann::json;

// The JSON of one "data: {...}\n\n" event.
json event_json(const std::string& event) {
  EXPECT_TRUE(event.starts_with("data: "));
  EXPECT_TRUE(event.ends_with("\n\n"));
  return json::parse(event.substr(6, event.size() - 8));
}

TEST(JsonText, EscapesQuotesBackslashesAndControlBytes) {
  std::string out;
  append_json_escaped(out, "a\"b\\c\nd\te\x01 café");
  EXPECT_EQ(out, "a\\\"b\\\\c\\nd\\te\\u0001 café");
  EXPECT_EQ(json::parse("\"" + out + "\"").get<std::string>(), "a\"b\\c\nd\te\x01 café");
}

TEST(ChunkFormatter, CompletionEventsHaveVllmShape) {
  ChunkFormatter f("m\"odel");
  StreamRequest r;
  r.prompt_tokens = 7;
  r.text_seed = 3;
  f.make_head(r, 42, 1700000000, true);
  std::string out;
  f.append_token_event(out, r, 0, 1, FinishKind::None, false);
  json j = event_json(out);
  EXPECT_EQ(j["object"], "text_completion");
  EXPECT_EQ(j["model"], "m\"odel");
  EXPECT_EQ(j["created"], 1700000000);
  EXPECT_TRUE(j["id"].get<std::string>().starts_with("cmpl-"));
  EXPECT_EQ(j["id"].get<std::string>().size(), 5u + 32u);
  EXPECT_EQ(j["choices"][0]["index"], 0);
  EXPECT_EQ(j["choices"][0]["text"], std::string(OutputVocabulary::instance().text(3, 0)));
  EXPECT_TRUE(j["choices"][0]["finish_reason"].is_null());
  EXPECT_FALSE(j.contains("usage"));
}

TEST(ChunkFormatter, EveryOutputWordSurvivesTheRoundTrip) {
  ChunkFormatter f("m");
  StreamRequest r;
  f.make_head(r, 1, 1, true);
  std::string out;
  f.append_token_event(out, r, 0, OutputVocabulary::kSize, FinishKind::Length, false);
  std::string expected;
  for (int i = 0; i < OutputVocabulary::kSize; ++i) expected += OutputVocabulary::instance().text(0, i);
  json j = event_json(out);
  EXPECT_EQ(j["choices"][0]["text"], expected);
  EXPECT_EQ(j["choices"][0]["finish_reason"], "length");
}

TEST(ChunkFormatter, ChatRoleTokenAndUsageEvents) {
  ChunkFormatter f("m");
  StreamRequest r;
  r.chat = true;
  r.continuous_usage = true;
  r.return_token_ids = true;
  r.prompt_tokens = 9;
  f.make_head(r, 5, 1, true);
  std::string role, token, usage;
  f.append_role_event(role, r);
  f.append_token_event(token, r, 2, 4, FinishKind::Stop, true);
  f.append_usage_event(usage, r, 4);
  json jr = event_json(role);
  EXPECT_EQ(jr["object"], "chat.completion.chunk");
  EXPECT_EQ(jr["choices"][0]["delta"]["role"], "assistant");
  EXPECT_EQ(jr["choices"][0]["delta"]["content"], "");
  EXPECT_EQ(jr["usage"]["completion_tokens"], 0);
  json jt = event_json(token);
  EXPECT_EQ(jt["choices"][0]["delta"]["content"], std::string(OutputVocabulary::instance().text(0, 2)))
      << "token 4 is EOS and has no text";
  EXPECT_EQ(jt["choices"][0]["token_ids"].size(), 2u);
  EXPECT_EQ(jt["choices"][0]["finish_reason"], "stop");
  EXPECT_EQ(jt["usage"]["prompt_tokens"], 9);
  EXPECT_EQ(jt["usage"]["completion_tokens"], 4);
  EXPECT_EQ(jt["usage"]["total_tokens"], 13);
  json ju = event_json(usage);
  EXPECT_TRUE(ju["choices"].is_array());
  EXPECT_TRUE(ju["choices"].empty());
  EXPECT_EQ(ju["usage"]["completion_tokens"], 4);

  // The project's own chunk parser reads them as the benchmark will.
  ChunkParser p;
  ChunkInfo info;
  p.parse(std::string_view(role).substr(6), info);
  EXPECT_FALSE(info.has_token);
  p.parse(std::string_view(token).substr(6), info);
  EXPECT_TRUE(info.has_token);
  EXPECT_EQ(info.token_ids, 2);
  EXPECT_EQ(info.finish, FinishReason::Stop);
  p.parse(std::string_view(usage).substr(6), info);
  EXPECT_FALSE(info.has_choices);
  EXPECT_EQ(info.usage_completion_tokens, 4);
}

TEST(ChunkFormatter, NonStreamingBodies) {
  ChunkFormatter f("m");
  StreamRequest r;
  r.prompt_tokens = 3;
  f.make_head(r, 1, 1, false);
  json c = json::parse(f.full_body(r, 3, FinishKind::Length, false));
  EXPECT_EQ(c["object"], "text_completion");
  EXPECT_EQ(c["usage"]["completion_tokens"], 3);
  EXPECT_EQ(c["choices"][0]["finish_reason"], "length");
  r.chat = true;
  f.make_head(r, 2, 1, false);
  json chat = json::parse(f.full_body(r, 2, FinishKind::Length, false));
  EXPECT_EQ(chat["object"], "chat.completion");
  EXPECT_EQ(chat["choices"][0]["message"]["role"], "assistant");
  EXPECT_EQ(chat["choices"][0]["message"]["content"],
            std::string(OutputVocabulary::instance().text(0, 0)) + std::string(OutputVocabulary::instance().text(0, 1)));
}

}  // namespace
}  // namespace sm::sim

namespace sm::sim {
namespace {

TEST(ChunkFormatter, AScriptedAnswerComesFirstThenTheVocabulary) {
  ChunkFormatter f("m");
  StreamRequest r;
  r.prompt_tokens = 7;
  r.text_seed = 3;
  r.return_token_ids = true;
  f.make_head(r, 1, 1700000000, false);
  ChunkFormatter::set_answer(r, " The passkey is 4821937.");
  ASSERT_EQ(r.answer_escaped.size(), 4u);
  // Four answer tokens and EOS: the text is the answer exactly.
  json body = json::parse(f.full_body(r, 5, FinishKind::Stop, true));
  EXPECT_EQ(body["choices"][0]["text"], " The passkey is 4821937.");
  EXPECT_EQ(body["choices"][0]["token_ids"][3], SimTokenizer::piece_id("4821937."));
  // Past the answer, the usual words.
  json longer = json::parse(f.full_body(r, 5, FinishKind::Length, false));
  EXPECT_EQ(longer["choices"][0]["text"].get<std::string>(),
            " The passkey is 4821937." + std::string(OutputVocabulary::instance().text(3, 4)));
  ChunkFormatter::set_answer(r, "");
  EXPECT_TRUE(r.answer_escaped.empty());
}

}  // namespace
}  // namespace sm::sim
