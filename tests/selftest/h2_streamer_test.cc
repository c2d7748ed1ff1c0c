// The HTTP/2 streamer (selftest --http2) and the client's --http2 against it. Through the TLS
// front with ALPN "h2": HTTP/2 as remote servers offer it, and the one way this libcurl can reuse
// an HTTP/2 connection if it is older than 8.0.0 (connection_options.h).
#include "selftest/h2_streamer.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <map>
#include <thread>

#include "core/clock.h"
#include "net/round_trip.h"
#include "net/stream_client.h"
#include "support/temp_dir.h"
#include "support/test_certificate.h"
#include "support/tls_front.h"

namespace sm {
namespace {

// The streamer on a thread of this process, for config.run_s; its port read from the pipe.
class StreamerThread {
 public:
  explicit StreamerThread(StreamerConfig config) : config_(config) {
    int fds[2];
    EXPECT_EQ(pipe(fds), 0);
    thread_ = std::thread([this, fd = fds[1]] { code_ = run_streamer(config_, fd, &stats_); });
    char buf[16] = {0};
    EXPECT_GT(::read(fds[0], buf, sizeof buf - 1), 0);
    ::close(fds[0]);
    port_ = static_cast<uint16_t>(std::atoi(buf));
  }
  ~StreamerThread() {
    if (thread_.joinable()) thread_.join();
  }
  StreamerStats join() {
    thread_.join();
    EXPECT_EQ(code_, 0);
    return stats_;
  }
  uint16_t port() const { return port_; }

 private:
  StreamerConfig config_;
  std::thread thread_;
  StreamerStats stats_;
  int code_ = -1;
  uint16_t port_ = 0;
};

class CountingHandler final : public StreamHandler {
 public:
  bool on_event(uint64_t id, int64_t, std::string_view data) override {
    if (data.find("\"completion_tokens\"") != std::string_view::npos) ++events[id];
    return true;
  }
  void on_end(uint64_t, int64_t, const TransferEnd& end) override {
    if (!end.cancelled && !end.ok) errors.push_back(end.error);
  }
  std::map<uint64_t, int64_t> events;  ///< token chunks per stream
  std::vector<std::string> errors;
};

// Starts `streams` streams and drives them until each has produced a chunk (or an error, or the
// deadline: a bound, not a timing assertion).
void stream_until_all_produce(StreamClient& client, CountingHandler& handler, const std::string& url, int streams) {
  const Clock& clock = SteadyClock::instance();
  for (int id = 1; id <= streams; ++id) client.start(static_cast<uint64_t>(id), HttpRequest{url, R"({"prompt":"hi"})", {}});
  const int64_t deadline_ns = clock.now_ns() + 5 * kNsPerS;
  while (handler.events.size() < static_cast<size_t>(streams) && handler.errors.empty() && clock.now_ns() < deadline_ns)
    client.run_until(clock.now_ns() + 20 * kNsPerMs);
  client.cancel_all();
}

#define SKIP_WITHOUT_CERTIFICATE(cert)                                                      \
  if (!(cert)) GTEST_SKIP() << "the openssl command is not installed (scripts/setup installs it)"

TEST(H2Streamer, Http2MultiplexesEveryStreamOnOneConnection) {
  test::TempDir dir;
  auto cert = test::make_test_certificate(dir.path().string());
  SKIP_WITHOUT_CERTIFICATE(cert);
  StreamerConfig config;
  config.http2 = true;
  config.run_s = 3;
  config.hold_streams = 16;  // nothing is sent until all 16 are in: they must all be open at once
  StreamerThread streamer(config);
  test::TlsFront front(*cert, streamer.port(), /*offer_h2=*/true);
  CountingHandler handler;
  StreamClientOptions options;
  options.connection.http2 = true;
  options.connection.cacert_file = cert->cert_file;
  options.connection.proxy = "";
  StreamClient client(SteadyClock::instance(), handler, options);
  stream_until_all_produce(client, handler, front.url() + "/v1/completions", 16);
  EXPECT_TRUE(handler.errors.empty()) << handler.errors.front();
  EXPECT_EQ(handler.events.size(), 16u);
  const StreamerStats stats = streamer.join();
  EXPECT_EQ(stats.streams, 16);
  EXPECT_EQ(front.handshakes(), 1) << "one TLS connection";
  EXPECT_EQ(stats.connections, 1) << "carried every stream";
}

TEST(H2Streamer, WithoutHttp2EachStreamHasItsOwnConnection) {
  StreamerConfig config;
  config.run_s = 3;
  config.hold_streams = 4;
  StreamerThread streamer(config);
  CountingHandler handler;
  StreamClientOptions options;
  options.connection.proxy = "";
  StreamClient client(SteadyClock::instance(), handler, options);
  stream_until_all_produce(client, handler, "http://127.0.0.1:" + std::to_string(streamer.port()) + "/v1/completions", 4);
  EXPECT_EQ(handler.events.size(), 4u);
  EXPECT_EQ(streamer.join().connections, 4);
}

TEST(H2Streamer, RoundTripNegotiatesHttp2) {
  test::TempDir dir;
  auto cert = test::make_test_certificate(dir.path().string());
  SKIP_WITHOUT_CERTIFICATE(cert);
  StreamerConfig config;
  config.http2 = true;
  config.run_s = 2;
  StreamerThread streamer(config);
  ConnectionOptions h2;
  h2.http2 = true;
  h2.cacert_file = cert->cert_file;
  h2.proxy = "";
  test::TlsFront offers_h2(*cert, streamer.port(), /*offer_h2=*/true);
  auto rt = measure_round_trip(HttpRequest{offers_h2.url() + "/v1/models", "", {}}, h2, 3);
  ASSERT_TRUE(rt.has_value()) << rt.error().message;
  EXPECT_EQ(rt->http_version, "2");
  EXPECT_EQ(rt->samples_ms.size(), 3u);
  EXPECT_EQ(rt->http_status, 200);
  EXPECT_EQ(offers_h2.handshakes(), 1) << "every request on the one connection";
  streamer.join();
}

TEST(H2Streamer, OverItsOwnTlsTheStreamersServeBothVersions) {
  for (bool http2 : {false, true}) {
    StreamerConfig config;
    config.http2 = http2;
    config.tls = true;
    config.run_s = 3;
    config.hold_streams = 8;
    StreamerThread streamer(config);
    CountingHandler handler;
    StreamClientOptions options;
    options.connection.http2 = http2;
    options.connection.insecure = true;  // the streamer's throwaway certificate
    options.connection.proxy = "";
    StreamClient client(SteadyClock::instance(), handler, options);
    stream_until_all_produce(client, handler, "https://127.0.0.1:" + std::to_string(streamer.port()) + "/v1/completions", 8);
    EXPECT_TRUE(handler.errors.empty()) << handler.errors.front();
    EXPECT_EQ(handler.events.size(), 8u) << (http2 ? "HTTP/2" : "HTTP/1.1");
    const StreamerStats stats = streamer.join();
    EXPECT_EQ(stats.streams, 8);
    EXPECT_EQ(stats.connections, http2 ? 1 : 8) << (http2 ? "HTTP/2" : "HTTP/1.1");
  }
}

}  // namespace
}  // namespace sm
