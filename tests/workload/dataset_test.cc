// --dataset FILE: the formats people have (ShareGPT JSON, JSON arrays of prompts, JSON Lines of
// prompts or conversations) read into a corpus of their user turns; bad files say what is wrong.
#include "workload/dataset.h"

#include <gtest/gtest.h>

#include <fstream>

#include "support/temp_dir.h"

namespace sm {
namespace {

std::string text_of(std::string_view content) {
  auto c = parse_dataset(content, "data.json");
  EXPECT_TRUE(c.has_value()) << (c ? "" : c.error().message);
  return c ? (*c)->text : std::string();
}

TEST(Dataset, ShareGptKeepsTheHumanTurns) {
  const char* sharegpt = R"([
    {"id": "a", "conversations": [{"from": "human", "value": "What is KV cache?"},
                                   {"from": "gpt", "value": "A cache of keys and values."},
                                   {"from": "human", "value": "Why does it grow?"}]},
    {"id": "b", "conversations": [{"from": "gpt", "value": "only the model"}]},
    {"id": "c", "conversations": [{"from": "user", "value": "Explain paging."}]}
  ])";
  auto c = parse_dataset(sharegpt, "sg.json");
  ASSERT_TRUE(c.has_value()) << c.error().message;
  EXPECT_EQ((*c)->text, "What is KV cache?\n\nWhy does it grow?\n\nExplain paging.");
  EXPECT_EQ((*c)->texts, 3);
  EXPECT_EQ((*c)->source, "dataset");
  EXPECT_EQ((*c)->name, "sg.json");
  EXPECT_NE((*c)->origin.find("3 prompts of 3 records read, 1 without a prompt"), std::string::npos) << (*c)->origin;
  EXPECT_FALSE((*c)->piece_ends.empty());
}

TEST(Dataset, ArraysAndLinesOfPromptsAndMessages) {
  EXPECT_EQ(text_of(R"(["first prompt", {"prompt": "second"}, {"text": "third"}])"), "first prompt\n\nsecond\n\nthird");
  EXPECT_EQ(text_of("{\"prompt\": \"one\"}\n\n{\"instruction\": \"two\"}\r\n{\"question\": \"three\"}\n"),
            "one\n\ntwo\n\nthree");
  EXPECT_EQ(text_of(R"({"messages": [{"role": "system", "content": "be brief"}, {"role": "user", "content": "hi"}]}
{"messages": [{"role": "user", "content": [{"type": "text", "text": "part one"}, {"type": "text", "text": "part two"}]}]})"),
            "hi\n\npart one\npart two");
  EXPECT_EQ(text_of("\xEF\xBB\xBF[\"after a byte order mark\"]"), "after a byte order mark");
}

TEST(Dataset, BadFilesSayWhatIsWrong) {
  auto empty = parse_dataset("  \n", "e.jsonl");
  ASSERT_FALSE(empty.has_value());
  EXPECT_EQ(empty.error().message, "--dataset e.jsonl: the file is empty");
  auto broken = parse_dataset("{\"prompt\": \"ok\"}\n{\"prompt\": \"no end\n", "b.jsonl");
  ASSERT_FALSE(broken.has_value());
  EXPECT_NE(broken.error().message.find("--dataset b.jsonl line 2: not valid JSON"), std::string::npos)
      << broken.error().message;
  auto none = parse_dataset(R"([{"answer": "x"}, 3])", "n.json");
  ASSERT_FALSE(none.has_value());
  EXPECT_NE(none.error().message.find("no prompt found in its 2 records; expected a JSON array"), std::string::npos)
      << none.error().message;
  EXPECT_EQ(none.error().code, ErrorCode::InvalidArgument);
  auto missing = load_dataset("/nonexistent/prompts.jsonl");
  ASSERT_FALSE(missing.has_value());
  EXPECT_EQ(missing.error().code, ErrorCode::Io);
}

TEST(Dataset, AFileIsNamedWithoutItsDirectories) {
  test::TempDir dir;
  {
    std::ofstream f(dir.file("mine.jsonl"));
    f << "{\"prompt\": \"hello there\"}\n";
  }
  auto c = load_dataset(dir.file("mine.jsonl"));
  ASSERT_TRUE(c.has_value()) << c.error().message;
  EXPECT_EQ((*c)->name, "mine.jsonl");
  EXPECT_EQ((*c)->text, "hello there");
}

}  // namespace
}  // namespace sm
