#include "net/sse_decoder.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace sm {
namespace {

std::vector<std::string> decode_in_pieces(std::string_view input, size_t piece) {
  SseDecoder dec;
  std::vector<std::string> events;
  auto sink = [&](std::string_view d) { events.emplace_back(d); };
  for (size_t i = 0; i < input.size(); i += piece) {
    EXPECT_EQ(dec.feed(input.substr(i, piece), sink), SseDecoder::Status::Ok);
  }
  dec.finish(sink);
  return events;
}

TEST(SseDecoder, DataWithAndWithoutSpace) {
  auto ev = decode_in_pieces("data: {\"a\":1}\n\ndata:{\"b\":2}\n\n", 1000);
  ASSERT_EQ(ev.size(), 2u);
  EXPECT_EQ(ev[0], "{\"a\":1}");
  EXPECT_EQ(ev[1], "{\"b\":2}");
}

TEST(SseDecoder, CommentsAndOtherFieldsIgnored) {
  auto ev = decode_in_pieces(": ping\n\nevent: message\nid: 7\ndata: x\nretry: 10\n\n:\n\n", 1000);
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0], "x");
}

TEST(SseDecoder, CrLfAndLoneCr) {
  auto ev = decode_in_pieces("data: a\r\n\r\ndata: b\r\rdata: c\n\n", 1000);
  ASSERT_EQ(ev.size(), 3u);
  EXPECT_EQ(ev[0], "a");
  EXPECT_EQ(ev[1], "b");
  EXPECT_EQ(ev[2], "c");
}

TEST(SseDecoder, EverySplitPointGivesSameEvents) {
  const std::string input =
      "data: {\"choices\":[{\"text\":\"hi\"}]}\r\n\r\n: ping\r\ndata:{\"x\":1}\n\ndata: [DONE]\r\n\r\n";
  for (size_t piece = 1; piece <= input.size(); ++piece) {
    auto ev = decode_in_pieces(input, piece);
    ASSERT_EQ(ev.size(), 3u) << "piece " << piece;
    EXPECT_EQ(ev[0], "{\"choices\":[{\"text\":\"hi\"}]}");
    EXPECT_EQ(ev[1], "{\"x\":1}");
    EXPECT_EQ(ev[2], "[DONE]");
  }
}

TEST(SseDecoder, MultiLineDataJoinedWithNewline) {
  auto ev = decode_in_pieces("data: a\ndata: b\n\n", 3);
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0], "a\nb");
}

TEST(SseDecoder, MissingFinalBlankLineFlushedByFinish) {
  auto ev = decode_in_pieces("data: a\n\ndata: last", 4);
  ASSERT_EQ(ev.size(), 2u);
  EXPECT_EQ(ev[1], "last");
}

TEST(SseDecoder, OversizedLineIsRejectedAndDecoderRecovers) {
  SseDecoder dec(64);
  std::vector<std::string> events;
  auto sink = [&](std::string_view d) { events.emplace_back(d); };
  std::string huge = "data: " + std::string(100, 'x');
  EXPECT_EQ(dec.feed(huge, sink), SseDecoder::Status::EventTooLarge);
  EXPECT_EQ(dec.buffered_bytes(), 0u);
  EXPECT_EQ(dec.feed("data: ok\n\n", sink), SseDecoder::Status::Ok);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0], "ok");
}

TEST(SseDecoder, ManyEventsPerRead) {
  std::string input;
  for (int i = 0; i < 1000; ++i) input += "data: " + std::to_string(i) + "\n\n";
  auto ev = decode_in_pieces(input, input.size());
  ASSERT_EQ(ev.size(), 1000u);
  EXPECT_EQ(ev[999], "999");
}

}  // namespace
}  // namespace sm
