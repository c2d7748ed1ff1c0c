// Load check of the simulated server over real loopback sockets: N streams at once (4,096 by
// default), each on its own keep-alive connection asking for `tokens` output tokens, driven by a
// single-threaded asio client in this process. Reports whether every stream was held at once,
// the server's CPU per step (chunk formatting and socket writes included) and its late steps.
#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include <boost/asio.hpp>

#include <array>
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "sim/linear_cost_model.h"
#include "sim/sim_server.h"

namespace {

namespace asio = boost::asio;
using asio::ip::tcp;
using namespace sm::sim;

constexpr std::string_view kTokenMark = "\"text\":\"";
constexpr std::string_view kDoneMark = "data: [DONE]";

struct Stream : std::enable_shared_from_this<Stream> {
  explicit Stream(asio::io_context& io) : socket(io) {}
  tcp::socket socket;
  std::string request;
  std::array<char, 16384> buf{};
  std::string window;   ///< last bytes of the previous read + this read (patterns across reads)
  int64_t tokens = 0;
  bool done = false;
  bool failed = false;

  void start(const tcp::endpoint& server) {
    socket.async_connect(server, [self = shared_from_this()](const boost::system::error_code& ec) {
      if (ec) return self->fail();
      asio::async_write(self->socket, asio::buffer(self->request),
                        [self](const boost::system::error_code& wec, size_t) {
                          if (wec) return self->fail();
                          self->read();
                        });
    });
  }
  void read() {
    socket.async_read_some(asio::buffer(buf), [self = shared_from_this()](const boost::system::error_code& ec, size_t n) {
      if (ec) return self->fail();
      self->scan(std::string_view(self->buf.data(), n));
      if (!self->done) self->read();
    });
  }
  void scan(std::string_view data) {
    const size_t carry = window.size();
    window.append(data);
    for (size_t p = window.find(kTokenMark); p != std::string::npos; p = window.find(kTokenMark, p + 1))
      if (p + kTokenMark.size() > carry) ++tokens;
    if (window.find(kDoneMark) != std::string::npos) {
      done = true;
      boost::system::error_code ec;
      socket.close(ec);
    }
    if (window.size() > 32) window.erase(0, window.size() - 32);
  }
  void fail() {
    failed = true;
    done = true;
  }
};

void BM_ServerStreams(benchmark::State& state) {
  const int streams = static_cast<int>(state.range(0));
  const int tokens = static_cast<int>(state.range(1));
  rlimit lim{};
  getrlimit(RLIMIT_NOFILE, &lim);
  lim.rlim_cur = lim.rlim_max;
  setrlimit(RLIMIT_NOFILE, &lim);
  if (lim.rlim_cur < static_cast<rlim_t>(2 * streams + 64)) {
    state.SkipWithError("open-file limit too low for the streams");
    return;
  }
  for (auto _ : state) {
    SimConfig c;
    c.model_name = "bench";
    c.max_num_seqs = streams;
    c.max_num_batched_tokens = 16384;
    c.kv_capacity_tokens = int64_t{streams} * 128;
    c.max_model_len = 128;
    LinearCostParams p;
    p.fixed_s = 0.020;  // 20 ms steps: 50 tokens/s per stream
    p.per_stream_s = 0;
    p.per_context_token_s = 0;
    p.per_prefill_token_s = 0;
    c.cost_model = std::make_shared<LinearCostModel>(p);
    auto server = SimServer::start(c);
    if (!server) {
      state.SkipWithError(server.error().message.c_str());
      return;
    }
    asio::io_context io;
    const tcp::endpoint endpoint(asio::ip::make_address("127.0.0.1"), (*server)->port());
    std::vector<std::shared_ptr<Stream>> all;
    for (int i = 0; i < streams; ++i) {
      auto s = std::make_shared<Stream>(io);
      std::string body = "{\"prompt\":\"stream " + std::to_string(i) + " of the load check\",\"max_tokens\":" +
                         std::to_string(tokens) + ",\"ignore_eos\":true,\"stream\":true}";
      s->request = "POST /v1/completions HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n"
                   "content-length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
      s->start(endpoint);
      all.push_back(std::move(s));
    }
    const auto t0 = std::chrono::steady_clock::now();
    io.run();
    const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    SimStats st = (*server)->stats();
    (*server)->stop();
    int64_t received = 0, failed = 0;
    for (const auto& s : all) {
      received += s->tokens;
      failed += s->failed;
    }
    state.SetIterationTime(wall_s);
    state.counters["streams"] = streams;
    state.counters["max_running"] = st.scheduler.max_running;
    state.counters["failed"] = static_cast<double>(failed);
    state.counters["tokens_expected"] = static_cast<double>(streams) * tokens;
    state.counters["tokens_received"] = static_cast<double>(received);
    state.counters["steps"] = static_cast<double>(st.scheduler.steps);
    state.counters["late_steps"] = static_cast<double>(st.late_steps);
    state.counters["lag_ms_per_late_step"] = st.late_steps ? st.lag_s * 1e3 / static_cast<double>(st.late_steps) : 0;
    state.counters["cpu_ms_per_step"] = st.step_cpu_s * 1e3 / static_cast<double>(std::max<int64_t>(1, st.scheduler.steps));
    state.counters["modelled_s"] = st.scheduler.busy_s;
    state.counters["client_tok/s"] = static_cast<double>(received) / wall_s;
  }
}
BENCHMARK(BM_ServerStreams)
    ->Args({1024, 64})
    ->Args({4096, 64})
    ->Unit(benchmark::kMillisecond)
    ->UseManualTime()
    ->Iterations(1);

}  // namespace
