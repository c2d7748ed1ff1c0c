// Item 7's server side: a closed-loop client against the simulated engine configured from the
// calculator measures the decode throughput the calculator predicts for the same cell. The
// measurement follows design.md's definition of a sustained decode cell (warm-up, N streams kept
// in flight, window opening when every stream has produced a first token).
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "calc/catalog.h"
#include "calc/predict.h"
#include "sim/calc_cost_model.h"
#include "sim/calc_sim_config.h"
#include "sim/sim_server.h"
#include "sim_http_client.h"

namespace sm::sim {
namespace {

struct CellMeasurement {
  double total_tok_s = 0;
  int64_t tokens_in_window = 0;
  int64_t requests = 0;
};

// N closed-loop streams of `prompt` for `duration_s` after all have produced a first token.
CellMeasurement run_cell(const std::string& url, const std::string& body, int streams, double duration_s) {
  struct Stream {
    CURL* easy = nullptr;
    SseDecoder decoder;
    ChunkParser parser;
    std::vector<int64_t> token_ns;
  };
  ensure_curl_global_init();
  CURLM* multi = curl_multi_init();
  curl_slist* headers = curl_slist_append(nullptr, "content-type: application/json");
  std::vector<std::unique_ptr<Stream>> all;  // every request made, in start order
  std::vector<Stream*> first_wave;
  auto start_stream = [&]() {
    auto s = std::make_unique<Stream>();
    s->easy = test::detail::make_easy(url, &body, headers);
    curl_easy_setopt(s->easy, CURLOPT_PRIVATE, s.get());
    curl_easy_setopt(s->easy, CURLOPT_WRITEDATA, s.get());
    curl_easy_setopt(s->easy, CURLOPT_WRITEFUNCTION, +[](char* p, size_t size, size_t n, void* user) -> size_t {
      auto* st = static_cast<Stream*>(user);
      const int64_t now = test::steady_ns();
      st->decoder.feed(std::string_view(p, size * n), [&](std::string_view data) {
        ChunkInfo info;
        st->parser.parse(data, info);
        if (info.has_token) st->token_ns.push_back(now);
      });
      return size * n;
    });
    curl_multi_add_handle(multi, s->easy);
    all.push_back(std::move(s));
    return all.back().get();
  };
  for (int i = 0; i < streams; ++i) first_wave.push_back(start_stream());
  int64_t window_open_ns = -1;
  int64_t window_end_ns = INT64_MAX;
  int running = 1;
  while (test::steady_ns() < window_end_ns) {
    curl_multi_perform(multi, &running);
    int left = 0;
    while (CURLMsg* msg = curl_multi_info_read(multi, &left)) {
      if (msg->msg != CURLMSG_DONE) continue;
      curl_multi_remove_handle(multi, msg->easy_handle);
      start_stream();  // closed loop: a finished request is replaced at once
    }
    if (window_open_ns < 0) {
      bool all_started = true;
      int64_t last_first = 0;
      for (Stream* s : first_wave) {
        if (s->token_ns.empty()) all_started = false;
        else last_first = std::max(last_first, s->token_ns.front());
      }
      if (all_started) {
        window_open_ns = last_first;
        window_end_ns = window_open_ns + static_cast<int64_t>(duration_s * 1e9);
      }
    }
    curl_multi_poll(multi, nullptr, 0, 2, nullptr);
  }
  CellMeasurement m;
  for (auto& s : all) {
    for (int64_t t : s->token_ns)
      if (t > window_open_ns && t <= window_end_ns) ++m.tokens_in_window;
    curl_multi_remove_handle(multi, s->easy);
    curl_easy_cleanup(s->easy);
  }
  m.requests = static_cast<int64_t>(all.size());
  m.total_tok_s = static_cast<double>(m.tokens_in_window) / duration_s;
  curl_multi_cleanup(multi);
  curl_slist_free_all(headers);
  return m;
}

TEST(SimCalcConsistency, DecodeThroughputMatchesTheCalculatorWithin3Percent) {
  auto catalog = calc::Catalog::builtin();
  ASSERT_TRUE(catalog.has_value()) << catalog.error().message;
  auto config = sim_config_from_calc(SimTarget::seed(), *catalog);
  ASSERT_TRUE(config.has_value()) << config.error().message;
  auto server = SimServer::start(*config);
  ASSERT_TRUE(server.has_value()) << server.error().message;
  const auto* cost = dynamic_cast<const CalcCostModel*>((*server)->config().cost_model.get());
  ASSERT_NE(cost, nullptr);

  constexpr int64_t kContext = 2048;
  constexpr int kStreams = 4;
  constexpr int64_t kMaxOutput = 96;
  constexpr double kDurationS = 3.0;
  std::string prompt;
  for (int64_t i = 0; i < kContext; ++i) prompt += "c" + std::to_string(i) + " ";
  const std::string url = (*server)->base_url() + "/v1/completions";
  // Warm-up: the cell's prompt once, so the streams find it in the prefix cache.
  auto warm = test::http_post(url, nlohmann::json{{"prompt", prompt}, {"max_tokens", 1}}.dump());
  ASSERT_EQ(warm.status, 200) << warm.body;
  ASSERT_EQ(nlohmann::json::parse(warm.body)["usage"]["prompt_tokens"], kContext);

  const std::string body = nlohmann::json{{"prompt", prompt}, {"max_tokens", kMaxOutput}, {"min_tokens", kMaxOutput},
                                          {"ignore_eos", true}, {"stream", true}}
                               .dump();
  CellMeasurement measured = run_cell(url, body, kStreams, kDurationS);
  calc::CellPrediction predicted = calc::predict_decode_cell(cost->model(), kContext, kStreams, kMaxOutput, kDurationS);
  SimStats stats = (*server)->stats();
  ASSERT_GT(predicted.total_tok_s, 0);
  RecordProperty("measured_tok_s", std::to_string(measured.total_tok_s));
  RecordProperty("predicted_tok_s", std::to_string(predicted.total_tok_s));
  RecordProperty("late_steps", std::to_string(stats.late_steps));
  EXPECT_GT(measured.requests, kStreams) << "streams restarted during the window";
  EXPECT_EQ(stats.clock_resyncs, 0) << "the server fell too far behind to be faithful";
  EXPECT_NEAR(measured.total_tok_s / predicted.total_tok_s, 1.0, 0.03)
      << "measured " << measured.total_tok_s << " tok/s, predicted " << predicted.total_tok_s << " tok/s ("
      << measured.tokens_in_window << " tokens in the window, " << stats.late_steps << " late steps)";
}

}  // namespace
}  // namespace sm::sim
