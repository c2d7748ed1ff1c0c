// The loop guard's detector (issue 32): loops are found — one character over and over as the
// synthetic GGUF models answer ("]]]]"), a sentence repeated, tokens without text — and varied
// text is not: every document and source file of this project, fed as a stream, raises nothing.
#include "metrics/loop_detector.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace sm {
namespace {

namespace fs = std::filesystem;

std::string prose_of(size_t bytes) {
  std::string out;
  for (int i = 0; out.size() < bytes; ++i) out += "word" + std::to_string(i * 7919 % 10007) + " ";
  return out;
}

LoopVerdict stream(const std::string& text, size_t chunk_bytes = 3) {
  LoopDetector d;
  for (size_t i = 0; i < text.size(); i += chunk_bytes) d.add(std::string_view(text).substr(i, chunk_bytes), 1);
  d.finish();
  return d.verdict();
}

TEST(LoopDetector, OneCharacterOverAndOverAsTheSyntheticModelsAnswer) {
  const LoopVerdict v = stream("Sure. " + std::string(2000, ']'), 1);
  EXPECT_EQ(v.kind, LoopKind::Repeat);
  EXPECT_EQ(v.period_bytes, 1u);
  EXPECT_EQ(v.excerpt, "]");
  EXPECT_GE(v.repeated_bytes, 1024u);
  // Fewer than kLoopMinSpanBytes of it after longer varied text: not (yet) a loop.
  std::string prose;
  for (int i = 0; prose.size() < 1500; ++i) prose += "word" + std::to_string(i * 7919 % 10007) + " ";
  EXPECT_EQ(stream(prose + std::string(700, ']'), 1).kind, LoopKind::None);
}

// A run of one byte needs kLoopMinRunBytes: real answers pad tables with runs of 1,230 dashes
// (tests/fixtures/real_output); a cycle of two bytes or more needs kLoopMinSpanBytes as before.
TEST(LoopDetector, ARunOfOneByteNeedsLonger) {
  const std::string prose = prose_of(3000);
  EXPECT_EQ(stream(prose + std::string(kLoopMinRunBytes - 100, '-') + "|\n" + prose, 1).kind, LoopKind::None);
  const LoopVerdict run = stream(prose + std::string(kLoopMinRunBytes + 10, '-'), 1);
  EXPECT_EQ(run.kind, LoopKind::Repeat);
  EXPECT_EQ(run.period_bytes, 1u);
  EXPECT_GE(run.repeated_bytes, kLoopMinRunBytes);
  std::string two;
  for (size_t i = 0; two.size() < kLoopMinSpanBytes + 100; ++i) two += "-=";
  EXPECT_EQ(stream(prose + two, 1).kind, LoopKind::Repeat);
  // A varied cycle that ends in a run still counts: "ab----" four times is a repeat of 6 bytes.
  std::string mixed;
  for (int i = 0; i < 200; ++i) mixed += "ab----";
  const LoopVerdict m = stream(prose + mixed, 1);
  EXPECT_EQ(m.kind, LoopKind::Repeat);
  EXPECT_EQ(m.period_bytes, 6u);
  // The run of one byte is measured whole: trailing_repeat with and without the floor.
  EXPECT_EQ(trailing_repeat(prose + std::string(1500, '-'), kLoopMaxPeriodBytes, 4, 1024, 0).first, 1u);
  EXPECT_EQ(trailing_repeat(prose + std::string(1500, '-'), kLoopMaxPeriodBytes, 4, 1024, 2048).first, 0u);
}

TEST(LoopDetector, AShortAnswerThatIsMostlyALoop) {
  // 128 tokens of "]": what a 128-token request to the synthetic models brings back.
  const LoopVerdict v = stream(std::string(128, ']'), 1);
  EXPECT_EQ(v.kind, LoopKind::Repeat);
  EXPECT_EQ(v.excerpt, "]");
  EXPECT_EQ(stream("Sure, here it is: " + std::string(100, ']'), 1).kind, LoopKind::Repeat);
  // A rule of 40 "=" in a short answer, or a loop over less than half of it, is not.
  EXPECT_EQ(stream("Title\n" + std::string(40, '=') + "\n", 1).kind, LoopKind::None);
  EXPECT_EQ(stream(prose_of(300) + std::string(100, '-'), 2).kind, LoopKind::None);
}

TEST(LoopDetector, ASentenceRepeatedBackToBack) {
  std::string text = "Once upon a time there was a model. ";
  for (int i = 0; i < 60; ++i) text += "The answer is 42, as I said before. ";
  const LoopVerdict v = stream(text);
  EXPECT_EQ(v.kind, LoopKind::Repeat);
  EXPECT_EQ(v.period_bytes, 36u);
  EXPECT_NE(v.excerpt.find("The answer is 42"), std::string::npos) << v.excerpt;
}

TEST(LoopDetector, ALoopSeenOnceStaysThoughTheTextMovesOn) {
  std::string text;
  for (int i = 0; i < 120; ++i) text += "again and ";
  for (int i = 0; i < 300; ++i) text += "then " + std::to_string(i * 7919 % 1000) + " varied words; ";
  EXPECT_EQ(stream(text).kind, LoopKind::Repeat);
}

TEST(LoopDetector, TokensWithoutVisibleText) {
  LoopDetector d;
  for (int i = 0; i < 127; ++i) d.add("", 1);
  EXPECT_EQ(d.verdict().kind, LoopKind::None);
  d.add(" ", 1);
  EXPECT_EQ(d.verdict().kind, LoopKind::Empty);
  LoopDetector some;
  for (int i = 0; i < 100; ++i) some.add("", 1);
  some.add("x", 1);  // visible text resets the count
  for (int i = 0; i < 100; ++i) some.add("", 1);
  EXPECT_EQ(some.verdict().kind, LoopKind::None);
}

TEST(LoopDetector, AnExcerptNeverStartsOrEndsInsideAUtf8Character) {
  std::string text;
  for (int i = 0; i < 400; ++i) text += "é—";  // 5 bytes a cycle
  const LoopVerdict v = stream(text, 2);
  ASSERT_EQ(v.kind, LoopKind::Repeat);
  ASSERT_FALSE(v.excerpt.empty());
  EXPECT_NE(static_cast<unsigned char>(v.excerpt.front()) & 0xC0, 0x80);
}

TEST(LoopDetector, MemoryStaysBounded) {
  LoopDetector d;
  std::string chunk;
  for (int i = 0; i < 200'000; ++i) {
    chunk = std::to_string(i * 2654435761u % 100000) + " ";
    d.add(chunk, 1);
  }
  EXPECT_LE(d.buffered_bytes(), 2 * kLoopTailBytes);
  EXPECT_EQ(d.verdict().kind, LoopKind::None);
}

// Varied text raises no alarm: prose (the project's documents) and code (its sources), each file
// fed as one stream, in chunks of the size a token has.
TEST(LoopDetector, NoAlarmOnTheProjectsProseAndCode) {
  size_t files = 0;
  for (const char* dir : {"docs", "src"})
    for (const auto& entry : fs::recursive_directory_iterator(fs::path(SPEEDMATRIX_SOURCE_DIR) / dir)) {
      const auto ext = entry.path().extension();
      if (ext != ".md" && ext != ".cc" && ext != ".h") continue;
      std::ifstream in(entry.path());
      std::stringstream text;
      text << in.rdbuf();
      const LoopVerdict v = stream(text.str(), 4);
      EXPECT_EQ(v.kind, LoopKind::None) << entry.path() << ": period " << v.period_bytes << " over "
                                        << v.repeated_bytes << " bytes: " << v.excerpt;
      ++files;
    }
  EXPECT_GT(files, 300u);
}

}  // namespace
}  // namespace sm
