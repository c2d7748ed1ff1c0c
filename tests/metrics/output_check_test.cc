// The output checks of one stream and of a cell (issue 32): loops and non-text are flagged with an
// excerpt, varied prose and code are not, and a cell is flagged only past a tenth of its requests.
#include "metrics/output_check.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "metrics/request_record.h"

namespace sm {
namespace {

namespace fs = std::filesystem;

struct Checked {
  OutputFlaw flaw = OutputFlaw::None;
  std::string excerpt;
};

// `text` streamed in chunks of `chunk_bytes`, each counted as `tokens_per_chunk` tokens.
Checked check(const std::string& text, size_t chunk_bytes = 4, int64_t tokens_per_chunk = 1) {
  OutputCheck c;
  int64_t tokens = 0;
  for (size_t i = 0; i < text.size(); i += chunk_bytes) {
    c.add("", std::string_view(text).substr(i, chunk_bytes), tokens_per_chunk);
    tokens += tokens_per_chunk;
  }
  Checked out;
  c.finish(tokens, out.flaw, out.excerpt);
  return out;
}

TEST(OutputCheck, ALoopIsARepeatWithItsCycle) {
  const Checked c = check("The answer: " + std::string(3000, ']'), 1);
  EXPECT_EQ(c.flaw, OutputFlaw::Repeat);
  EXPECT_EQ(c.excerpt, "]");
  EXPECT_TRUE(is_loop(c.flaw));
}

TEST(OutputCheck, ReasoningLoopsCountToo) {
  OutputCheck c;
  for (int i = 0; i < 200; ++i) c.add("Wait, let me think again. ", "", 6);
  OutputFlaw flaw;
  std::string excerpt;
  c.finish(1200, flaw, excerpt);
  EXPECT_EQ(flaw, OutputFlaw::Repeat);
  EXPECT_NE(excerpt.find("let me think again"), std::string::npos) << excerpt;
}

TEST(OutputCheck, TokensWithoutVisibleTextAreEmpty) {
  OutputCheck c;
  c.add("", "Hello", 1);
  for (int i = 0; i < 200; ++i) c.add("", i % 50 == 0 ? "\n" : "", 1);  // whitespace is no visible text
  OutputFlaw flaw;
  std::string excerpt;
  c.finish(201, flaw, excerpt);
  EXPECT_EQ(flaw, OutputFlaw::Empty);
}

TEST(OutputCheck, ReplacementAndControlCharactersThroughoutAreNotText) {
  std::string garbage;
  for (int i = 0; i < 100; ++i) garbage += i % 3 ? "\xEF\xBF\xBD" : (i % 2 ? "\x01" : "\xC2\x85");  // U+FFFD, SOH, NEL
  garbage += " and a few words at the end";
  const Checked c = check(garbage, 3);
  EXPECT_EQ(c.flaw, OutputFlaw::NotText);
  EXPECT_FALSE(c.excerpt.empty());
  EXPECT_LE(c.excerpt.size(), kLoopExcerptBytes);
  // A few of them in real text are not a flaw: tabs, newlines and carriage returns are text.
  std::string text;
  for (int i = 0; i < 40; ++i) text += "line " + std::to_string(i) + "\tvalue\r\n";
  text += "\xEF\xBF\xBD";
  EXPECT_EQ(check(text).flaw, OutputFlaw::None);
}

TEST(OutputCheck, ACountTheTextContradictsByFar) {
  // 30 bytes for 300 tokens: far fewer bytes than any tokenizer makes.
  EXPECT_EQ(check(std::string("0123456789abcdefghijklmnopqrst"), 1, 10).flaw, OutputFlaw::CountMismatch);
  // 6,400 bytes for 64 tokens: 100 bytes a token.
  std::string words;
  for (int i = 0; words.size() < 6400; ++i) words += "word" + std::to_string(i * 7919 % 10007) + " ";
  EXPECT_EQ(check(words, 100, 1).flaw, OutputFlaw::CountMismatch);
  // Short answers are not judged on their count.
  EXPECT_EQ(check("ok", 1, 30).flaw, OutputFlaw::None);
}

// Varied text raises no alarm: prose and code, each file a stream in token-sized chunks.
TEST(OutputCheck, NoFlawOnTheProjectsProseAndCode) {
  size_t files = 0;
  for (const char* dir : {"docs", "src"})
    for (const auto& entry : fs::recursive_directory_iterator(fs::path(SPEEDMATRIX_SOURCE_DIR) / dir)) {
      const auto ext = entry.path().extension();
      if (ext != ".md" && ext != ".cc" && ext != ".h") continue;
      std::ifstream in(entry.path());
      std::stringstream text;
      text << in.rdbuf();
      const Checked c = check(text.str(), 4, 1);
      EXPECT_EQ(c.flaw, OutputFlaw::None) << entry.path() << ": " << to_string(c.flaw) << ": " << c.excerpt;
      ++files;
    }
  EXPECT_GT(files, 300u);
}

RequestRecord request(RequestEnd end, OutputFlaw flaw, std::string excerpt = {}) {
  RequestRecord r;
  r.end = end;
  r.tokens = 100;
  r.output_flaw = flaw;
  r.output_excerpt = std::move(excerpt);
  return r;
}

TEST(SummarizeOutput, ACellLoopsPastATenthOfItsRequests) {
  std::vector<RequestRecord> records(9, request(RequestEnd::Finished, OutputFlaw::None));
  records.push_back(request(RequestEnd::Cut, OutputFlaw::Repeat, "]"));
  OutputCheckSummary s = summarize_output(records);
  EXPECT_EQ(s.requests, 10);
  EXPECT_EQ(s.repeat, 1);
  EXPECT_EQ(s.verdict, "ok");  // one in ten: not more than a tenth
  EXPECT_TRUE(s.excerpt.empty());

  records.push_back(request(RequestEnd::Finished, OutputFlaw::Empty));
  s = summarize_output(records);
  EXPECT_EQ(s.verdict, "loop");
  EXPECT_EQ(s.empty, 1);
  EXPECT_EQ(s.flaw, "repeat");  // the example with a cycle to show
  EXPECT_EQ(s.excerpt, "]");
}

TEST(SummarizeOutput, FailedAndEmptyRequestsAreNotChecked) {
  std::vector<RequestRecord> records{request(RequestEnd::Failed, OutputFlaw::Repeat, "x"),
                                     request(RequestEnd::Finished, OutputFlaw::NotText, "\x01\x02"),
                                     request(RequestEnd::Finished, OutputFlaw::None)};
  records.push_back(request(RequestEnd::EndedEarly, OutputFlaw::None));
  records.back().tokens = 0;
  const OutputCheckSummary s = summarize_output(records);
  EXPECT_EQ(s.requests, 2);
  EXPECT_EQ(s.repeat, 0);
  EXPECT_EQ(s.verdict, "not_text");
  EXPECT_EQ(s.flaw, "not_text");
}

}  // namespace
}  // namespace sm
