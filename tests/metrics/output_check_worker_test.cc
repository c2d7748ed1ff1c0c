// The output checks off the measuring thread (metrics/output_check_worker.h): a stream's text in
// batches reaches the same verdict as checked inline, several streams at once keep apart, and
// drain() hands over every finished stream's verdict once.
#include "metrics/output_check_worker.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace sm {
namespace {

struct Checked {
  OutputFlaw flaw = OutputFlaw::None;
  std::string excerpt;
};

std::vector<std::string> chunks_of(const std::string& text, size_t bytes) {
  std::vector<std::string> out;
  for (size_t i = 0; i < text.size(); i += bytes) out.push_back(text.substr(i, bytes));
  return out;
}

Checked inline_check(const std::vector<std::string>& chunks) {
  OutputCheck c;
  for (const auto& t : chunks) c.add("", t, 1);
  Checked out;
  c.finish(static_cast<int64_t>(chunks.size()), out.flaw, out.excerpt);
  return out;
}

// As bench/stream_recording does: batches handed over when full, the rest at the end.
void stream(OutputCheckWorker& w, uint64_t id, const std::vector<std::string>& chunks, int* handed_over = nullptr) {
  OutputBatch batch;
  for (const auto& t : chunks) {
    batch.add("", t, 1);
    if (batch.full()) {
      w.submit(id, batch.take());
      if (handed_over) ++*handed_over;
      EXPECT_TRUE(batch.empty());
    }
  }
  w.finish(id, batch.take(), static_cast<int64_t>(chunks.size()));
}

std::string varied_text(size_t bytes) {
  std::string s;
  for (uint64_t i = 0; s.size() < bytes; ++i) {
    const uint64_t x = (i * 0x9E3779B97F4A7C15ull) ^ (i >> 3);
    s += " w" + std::to_string(x % 100000);
  }
  return s;
}

TEST(OutputCheckWorker, BatchesReachTheVerdictOfTheInlineCheck) {
  // A loop that starts after 40 KiB of varied text: three batches, the loop in the last ones.
  std::string text = varied_text(40 * 1024);
  for (int i = 0; i < 400; ++i) text += " and then the same words again";
  const auto chunks = chunks_of(text, 5);
  const Checked expected = inline_check(chunks);
  ASSERT_EQ(expected.flaw, OutputFlaw::Repeat);
  OutputCheckWorker w;
  int handed_over = 0;
  stream(w, 7, chunks, &handed_over);
  EXPECT_GE(handed_over, 3);  // the text went over in full batches, not at the end only
  const std::vector<OutputVerdict> got = w.drain();
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].stream, 7u);
  EXPECT_EQ(got[0].flaw, expected.flaw);
  EXPECT_EQ(got[0].excerpt, expected.excerpt);
  EXPECT_TRUE(w.drain().empty());  // each verdict once
}

TEST(OutputCheckWorker, StreamsInterleavedKeepApart) {
  OutputCheckWorker w;
  const auto loop = chunks_of(std::string(3000, ']'), 1);
  const auto fine = chunks_of(varied_text(30 * 1024), 4);
  // Interleaved as a loop thread sees them: every stream's batches in turn.
  OutputBatch a, b;
  for (size_t i = 0; i < std::max(loop.size(), fine.size()); ++i) {
    if (i < loop.size()) a.add("", loop[i], 1);
    if (i < fine.size()) b.add("", fine[i], 1);
    if (a.full()) w.submit(1, a.take());
    if (b.full()) w.submit(2, b.take());
  }
  w.finish(2, b.take(), static_cast<int64_t>(fine.size()));
  w.finish(1, a.take(), static_cast<int64_t>(loop.size()));
  std::vector<OutputVerdict> got = w.drain();
  ASSERT_EQ(got.size(), 2u);
  std::sort(got.begin(), got.end(), [](auto& x, auto& y) { return x.stream < y.stream; });
  EXPECT_EQ(got[0].flaw, OutputFlaw::Repeat);
  EXPECT_EQ(got[0].excerpt, "]");
  EXPECT_EQ(got[1].flaw, OutputFlaw::None);
}

TEST(OutputCheckWorker, ReasoningAndTokensSurviveTheBatch) {
  OutputBatch batch;
  batch.add("think ", "", 3);
  batch.add("", "", 0);
  batch.add("", "answer", 2);
  OutputCheck replayed;
  OutputBatch::replay(batch.take(), replayed);
  OutputCheck direct;
  direct.add("think ", "", 3);
  direct.add("", "", 0);
  direct.add("", "answer", 2);
  Checked r, d;
  replayed.finish(5, r.flaw, r.excerpt);
  direct.finish(5, d.flaw, d.excerpt);
  EXPECT_EQ(r.flaw, d.flaw);
  // Tokens without visible text, many of them: the count travels with each chunk.
  OutputBatch empty;
  empty.add("", "Hi", 1);
  for (int i = 0; i < 200; ++i) empty.add("", "", 1);
  OutputCheckWorker w;
  w.finish(3, empty.take(), 201);
  const auto got = w.drain();
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].flaw, OutputFlaw::Empty);
}

TEST(OutputCheckWorker, ForgottenAndUnfinishedStreamsGiveNoVerdict) {
  OutputCheckWorker w;
  EXPECT_TRUE(w.drain().empty());  // nothing handed over: returns at once
  OutputBatch batch;
  batch.add("", "some text", 2);
  w.submit(4, batch.take());
  w.forget(4);
  batch.add("", "more", 1);
  w.submit(5, batch.take());  // never finished
  EXPECT_TRUE(w.drain().empty());
}

}  // namespace
}  // namespace sm
