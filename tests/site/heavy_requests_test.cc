// Issue 15: a huge run cannot stall the site. Heavy requests (a run page, a comparison, the
// calculator) go to the server's worker pool; the cheap ones (health, leaderboard, listings)
// stay on the I/O threads. Deterministic: the heavy requests are held inside the store until
// released, and every cheap request must complete while all sixteen are still held.
#include <gtest/gtest.h>

#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/write.hpp>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "net/http_fetch.h"
#include "result/result_json.h"
#include "site/site.h"
#include "site/site_fixtures.h"
#include "site/site_server.h"
#include "site/upload_token.h"
#include "site/worker_pool.h"
#include "store/result_store.h"
#include "support/temp_dir.h"

namespace sm::site {
namespace {

namespace asio = boost::asio;
using namespace sm::store;

// Forwards to a real store; once armed, every get_run_json (what a run page, a run's JSON and a
// comparison read) waits until released. Counts the calls held.
class HeldRunStore final : public ResultStore {
 public:
  explicit HeldRunStore(ResultStore& inner) : inner_(inner) {}

  void arm() {
    std::lock_guard lock(mutex_);
    armed_ = true;
  }
  void release() {
    std::lock_guard lock(mutex_);
    armed_ = false;
    changed_.notify_all();
  }
  void wait_held(int n) {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return held_ >= n; });
  }
  int held() {
    std::lock_guard lock(mutex_);
    return held_;
  }

  Result<std::optional<std::string>> get_run_json(std::string_view id) override {
    {
      std::unique_lock lock(mutex_);
      if (armed_) {
        ++held_;
        changed_.notify_all();
        changed_.wait(lock, [&] { return !armed_; });
        --held_;
      }
    }
    return inner_.get_run_json(id);
  }

  std::string_view backend() const override { return inner_.backend(); }
  Result<int64_t> schema_version() override { return inner_.schema_version(); }
  Result<PutStatus> put_run(const RunRecord& r) override { return inner_.put_run(r); }
  Result<std::vector<PutStatus>> put_runs(const std::vector<RunRecord>& r) override { return inner_.put_runs(r); }
  Result<std::optional<RunSummary>> get_run_summary(std::string_view id) override { return inner_.get_run_summary(id); }
  Result<RunPage> list_runs(const RunFilter& f, RunOrder o, const PageRequest& p) override {
    return inner_.list_runs(f, o, p);
  }
  Result<std::vector<GroupSummary>> hardware_summary(std::string_view k) override { return inner_.hardware_summary(k); }
  Result<std::vector<GroupSummary>> model_summary(std::string_view k) override { return inner_.model_summary(k); }
  Result<FilterValues> filter_values() override { return inner_.filter_values(); }
  Result<std::vector<RunSummary>> list_runs_for_setup(const SetupKey& k, int64_t n) override {
    return inner_.list_runs_for_setup(k, n);
  }
  Result<RunPage> list_runs_for_moderation(const ModerationFilter& f, int64_t n) override {
    return inner_.list_runs_for_moderation(f, n);
  }
  Result<std::optional<std::string>> find_run_by_measurements(std::string_view h) override {
    return inner_.find_run_by_measurements(h);
  }
  Result<std::vector<StoredRun>> runs_checked_otherwise(std::string_view w, std::string_view after, int64_t n) override {
    return inner_.runs_checked_otherwise(w, after, n);
  }
  Result<int64_t> update_checks(const std::vector<RunSummary>& s) override { return inner_.update_checks(s); }
  Result<int64_t> set_hidden(std::string_view id, bool h) override { return inner_.set_hidden(id, h); }
  Result<int64_t> delete_run(std::string_view id) override { return inner_.delete_run(id); }
  Result<int64_t> generation() override { return inner_.generation(); }
  Result<RateDecision> take_rate_token(std::string_view k, double r, double b, int64_t t) override {
    return inner_.take_rate_token(k, r, b, t);
  }
  Result<void> create_token(const TokenInfo& t, std::string_view h) override { return inner_.create_token(t, h); }
  Result<std::optional<TokenInfo>> find_token(std::string_view h) override { return inner_.find_token(h); }
  Result<int64_t> revoke_token(std::string_view k, std::string_view t) override { return inner_.revoke_token(k, t); }
  Result<std::vector<TokenInfo>> list_tokens() override { return inner_.list_tokens(); }

 private:
  ResultStore& inner_;
  std::mutex mutex_;
  std::condition_variable changed_;
  bool armed_ = false;
  int held_ = 0;
};

// One request on its own connection (Connection: close), the whole answer with its headers.
std::string raw_get(uint16_t port, const std::string& target) {
  asio::io_context io;
  asio::ip::tcp::socket socket(io);
  socket.connect({asio::ip::make_address("127.0.0.1"), port});
  const std::string request = "GET " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";
  asio::write(socket, asio::buffer(request));
  std::string out;
  char buf[16384];
  boost::system::error_code ec;
  while (!ec) out.append(buf, socket.read_some(asio::buffer(buf), ec));
  return out;
}

class HeavyRequestsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto s = open_store("sqlite:" + dir_.file("site.db"));
    ASSERT_TRUE(s) << s.error().message;
    inner_ = std::move(*s);
    held_ = std::make_unique<HeldRunStore>(*inner_);
    auto t = generate_upload_token();
    ASSERT_TRUE(inner_->create_token({t->token_id, "test", "2026-12-04T09:00:00Z", "", 0}, t->sha256_hex));
    SiteConfig config;
    config.log_line = [this](const std::string& line) {
      std::lock_guard lock(log_mutex_);
      log_.push_back(line);
    };
    auto site = Site::create(*held_, config);
    ASSERT_TRUE(site);
    site_ = std::move(*site);
    SiteRequest up;
    up.method = HttpMethod::Post;
    up.path = "/api/v1/runs";
    up.authorization = "Bearer " + t->secret;
    up.client = "127.0.0.1";
    for (const char* id : {"heavy-1", "heavy-2"}) {
      up.body = to_json(test::site_result(id)).dump();
      ASSERT_EQ(site_->handle(up).status, 201) << id;
    }
  }

  void start(const SiteServerConfig& config) {
    auto server = SiteServer::start(*site_, config);
    ASSERT_TRUE(server) << server.error().message;
    server_ = std::move(*server);
  }

  // A cheap request over HTTP; libcurl's 30 s limit turns a request stuck behind the held
  // ones into a failure rather than a hang.
  HttpResponse fetch(const std::string& target) {
    HttpRequest r;
    r.url = server_->base_url() + target;
    auto got = http_fetch(r);
    EXPECT_TRUE(got) << target << ": " << got.error().message;
    return got ? *got : HttpResponse{};
  }

  // Every cheap route answers while the heavy ones are held.
  void expect_cheap_routes_answer() {
    for (const char* target : {"/api/v1/health", "/", "/leaderboard", "/api/v1/leaderboard", "/runs", "/api/v1/runs",
                               "/hardware", "/models", "/api/v1/openapi.json"}) {
      const HttpResponse r = fetch(target);
      EXPECT_EQ(r.status, 200) << target;
    }
    EXPECT_NE(fetch("/").body.find("heavy-1"), std::string::npos) << "the leaderboard lists the run";
  }

  std::vector<std::string> log() {
    std::lock_guard lock(log_mutex_);
    return log_;
  }

  test::TempDir dir_;
  std::mutex log_mutex_;
  std::vector<std::string> log_;
  std::unique_ptr<ResultStore> inner_;
  std::unique_ptr<HeldRunStore> held_;
  std::unique_ptr<Site> site_;
  std::unique_ptr<SiteServer> server_;
};

TEST_F(HeavyRequestsTest, HealthAndTheLeaderboardAnswerWhileSixteenHeavyPagesAreHeld) {
  // Two I/O threads: without the pool, two held heavy requests would already stall the site.
  start({.host = "127.0.0.1", .port = 0, .threads = 2, .heavy_threads = 2, .heavy_queue = 64});
  held_->arm();
  constexpr int kHeavy = 16;
  const char* targets[] = {"/runs/heavy-1", "/api/v1/runs/heavy-1", "/compare?run=heavy-1&run=heavy-2"};
  std::vector<std::string> answers(kHeavy);
  std::atomic<int> answered{0};
  std::vector<std::thread> clients;
  for (int i = 0; i < kHeavy; ++i)
    clients.emplace_back([&, i] {
      answers[static_cast<size_t>(i)] = raw_get(server_->port(), targets[i % 3]);
      ++answered;
    });
  // Two on the workers, inside the store; fourteen queued behind them.
  server_->wait_for_heavy([](const HeavyCounts& c) { return c.running == 2 && c.queued == kHeavy - 2; });
  held_->wait_held(2);

  expect_cheap_routes_answer();

  // Still all held: the cheap answers did not wait for any of them.
  EXPECT_EQ(answered.load(), 0);
  EXPECT_EQ(held_->held(), 2);
  const HeavyCounts during = server_->heavy_counts();
  EXPECT_EQ(during.running, 2u);
  EXPECT_EQ(during.queued, static_cast<size_t>(kHeavy - 2));
  EXPECT_EQ(during.refused, 0u);

  held_->release();
  for (auto& c : clients) c.join();
  for (int i = 0; i < kHeavy; ++i) {
    const std::string& a = answers[static_cast<size_t>(i)];
    EXPECT_TRUE(a.starts_with("HTTP/1.1 200")) << targets[i % 3] << ": " << a.substr(0, 200);
    EXPECT_NE(a.find("heavy-1"), std::string::npos) << targets[i % 3];
  }
  // A worker counts itself out just after its answer is written, so the client may read the
  // answer first: wait for the pool to empty (it must; a task that never ended would hang here
  // until CTest's timeout).
  server_->wait_for_heavy([](const HeavyCounts& c) { return c.running == 0 && c.queued == 0; });
  EXPECT_EQ(server_->heavy_counts().refused, 0u);
  EXPECT_TRUE(log().empty()) << log().front();
}

// 150 concurrent run pages (about 0.1 s of work) got 26-38 "busy" answers with the old queue of
// 64: with the defaults (a queue of 1,024, a 5 s wait) every one is made, none refused.
TEST_F(HeavyRequestsTest, ABurstOf150RunPagesIsQueuedNotRefused) {
  SiteServerConfig config;
  config.port = 0;
  config.threads = 2;
  start(config);
  held_->arm();
  constexpr int kBurst = 150;
  std::vector<std::string> answers(kBurst);
  std::vector<std::thread> clients;
  for (int i = 0; i < kBurst; ++i)
    clients.emplace_back([&, i] { answers[static_cast<size_t>(i)] = raw_get(server_->port(), "/runs/heavy-1"); });
  // Held inside the store while the rest of the burst arrives: all of it is queued.
  // (Counting the refused too, so a pool that refuses fails here rather than hangs.)
  server_->wait_for_heavy([](const HeavyCounts& c) { return c.running + c.queued + c.refused == kBurst; });
  EXPECT_EQ(server_->heavy_counts().refused, 0u);
  held_->release();
  for (auto& c : clients) c.join();
  int ok = 0;
  for (const auto& a : answers) ok += a.starts_with("HTTP/1.1 200");
  EXPECT_EQ(ok, kBurst);
  server_->wait_for_heavy([](const HeavyCounts& c) { return c.running == 0 && c.queued == 0; });
  EXPECT_EQ(server_->heavy_counts().refused, 0u);
  EXPECT_EQ(server_->heavy_counts().expired, 0u);
}

TEST_F(HeavyRequestsTest, HeavyRequestsOverTheQueueBoundAre503WithRetryAfterAtOnce) {
  start({.host = "127.0.0.1", .port = 0, .threads = 2, .heavy_threads = 2, .heavy_queue = 4,
         .busy_retry_after_s = 3});
  held_->arm();
  constexpr int kHeavy = 16;
  std::vector<std::string> answers(kHeavy);
  std::mutex mutex;
  std::condition_variable changed;
  int answered = 0;
  std::vector<std::thread> clients;
  for (int i = 0; i < kHeavy; ++i)
    clients.emplace_back([&, i] {
      // Pages and the API: the refusal is a page for a page, JSON for the API.
      std::string a = raw_get(server_->port(), i % 2 ? "/runs/heavy-1" : "/api/v1/runs/heavy-1");
      std::lock_guard lock(mutex);
      answers[static_cast<size_t>(i)] = std::move(a);
      ++answered;
      changed.notify_all();
    });
  // Two running and four queued hold every place; the other ten are refused while those six
  // are still held — so their answers arrive before the release.
  server_->wait_for_heavy([](const HeavyCounts& c) { return c.running == 2 && c.queued == 4 && c.refused == 10; });
  {
    std::unique_lock lock(mutex);
    changed.wait(lock, [&] { return answered == 10; });
  }
  EXPECT_EQ(held_->held(), 2);
  expect_cheap_routes_answer();

  held_->release();
  for (auto& c : clients) c.join();
  int ok = 0, busy = 0;
  for (int i = 0; i < kHeavy; ++i) {
    const std::string& a = answers[static_cast<size_t>(i)];
    if (a.starts_with("HTTP/1.1 200")) {
      ++ok;
      continue;
    }
    ASSERT_TRUE(a.starts_with("HTTP/1.1 503")) << a.substr(0, 300);
    ++busy;
    EXPECT_NE(a.find("Retry-After: 3\r\n"), std::string::npos) << a.substr(0, 400);
    if (i % 2) {
      EXPECT_NE(a.find("Content-Type: text/html"), std::string::npos);
      EXPECT_NE(a.find("retry in 3 s"), std::string::npos) << "the page says when to retry";
    } else {
      EXPECT_NE(a.find("\"code\":\"busy\""), std::string::npos) << a.substr(0, 400);
      EXPECT_NE(a.find("\"retry_after_s\":3"), std::string::npos) << a.substr(0, 400);
    }
    EXPECT_EQ(a.find("store is unavailable"), std::string::npos) << "busy is not a store failure";
  }
  EXPECT_EQ(ok, 6);
  EXPECT_EQ(busy, 10);
  EXPECT_EQ(server_->heavy_counts().refused, 10u);
  // Each refusal is logged like every 5xx, with its reason.
  int logged = 0;
  for (const auto& line : log()) logged += line.find("status=503 reason=\"busy") != std::string::npos;
  EXPECT_EQ(logged, 10);
}

TEST_F(HeavyRequestsTest, WithoutHeavyWorkersEveryRouteIsAnsweredOnTheIoThreads) {
  start({.host = "127.0.0.1", .port = 0, .threads = 2, .heavy_threads = 0});
  EXPECT_EQ(fetch("/runs/heavy-1").status, 200);
  EXPECT_EQ(fetch("/api/v1/runs/heavy-1").status, 200);
  const HeavyCounts c = server_->heavy_counts();
  EXPECT_EQ(c.running + c.queued + c.refused, 0u);
}

TEST(HeavyRoutes, RunPagesCompareAndTheCalculatorAreHeavyListingsAreNot) {
  auto req = [](HttpMethod m, std::string path) {
    SiteRequest r;
    r.method = m;
    r.path = std::move(path);
    return r;
  };
  using enum HttpMethod;
  for (const char* p : {"/runs/abc", "/api/v1/runs/abc", "/compare", "/calc"}) {
    EXPECT_TRUE(Site::is_heavy(req(Get, p))) << p;
    EXPECT_TRUE(Site::is_heavy(req(Head, p))) << p;
  }
  EXPECT_TRUE(Site::is_heavy(req(Post, "/api/v1/calc")));
  for (const char* p : {"/", "/leaderboard", "/runs", "/runs/", "/api/v1/runs", "/api/v1/runs/", "/api/v1/health",
                        "/api/v1/leaderboard", "/hardware", "/models", "/getting-started", "/api/v1/openapi.json",
                        "/favicon.ico", "/benchmarks"})
    EXPECT_FALSE(Site::is_heavy(req(Get, p))) << p;
  // Uploads stay on the I/O threads (rate-limited per token; a 503 would cost a client its run).
  EXPECT_FALSE(Site::is_heavy(req(Post, "/api/v1/runs")));
}

// A gate the first task waits at, so the others queue behind it; then opened.
class Gate {
 public:
  void wait() {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return open_; });
  }
  void open() {
    {
      std::lock_guard lock(mutex_);
      open_ = true;
    }
    changed_.notify_all();
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  bool open_ = false;
};

// 60 comparisons from one client delayed another's run page by 12 s: the workers now take each
// client's line in turn, so the other client's task runs right after the one running.
TEST(WorkerPool, ClientsAreServedInTurnSoABurstCannotStarveAnother) {
  WorkerPool pool(1, 100);
  Gate gate;
  std::mutex mutex;
  std::vector<std::string> ran;
  ASSERT_TRUE(pool.try_submit("busy-client", [&] { gate.wait(); }));
  pool.wait_until([](const WorkerPool::Counts& c) { return c.running == 1; });
  for (int i = 0; i < 60; ++i)
    ASSERT_TRUE(pool.try_submit("busy-client", [&, i] {
      std::lock_guard lock(mutex);
      ran.push_back("compare-" + std::to_string(i));
    }));
  ASSERT_TRUE(pool.try_submit("other-client", [&] {
    std::lock_guard lock(mutex);
    ran.push_back("run-page");
  }));
  EXPECT_EQ(pool.counts().queued, 61u);
  gate.open();
  pool.wait_until([](const WorkerPool::Counts& c) { return c.running == 0 && c.queued == 0; });
  ASSERT_EQ(ran.size(), 61u);
  EXPECT_EQ(ran[0], "compare-0");
  EXPECT_EQ(ran[1], "run-page") << "the other client's turn comes after one of the busy client's";
  EXPECT_EQ(ran[60], "compare-59") << "each client's own tasks keep their order";
}

// A queue is a short wait: a task that waited past max_wait_ns is answered by its expire (the
// server's 503), not made; one within the wait is made.
TEST(WorkerPool, ATaskThatWaitedTooLongIsExpiredNotRun) {
  ManualClock clock(0);
  WorkerPool pool(1, WorkerPool::Options{.max_queued = 10, .max_wait_ns = 5'000'000'000, .clock = &clock});
  Gate gate;
  std::vector<std::string> outcome;
  ASSERT_TRUE(pool.try_submit("a", [&] { gate.wait(); }));
  pool.wait_until([](const WorkerPool::Counts& c) { return c.running == 1; });
  ASSERT_TRUE(pool.try_submit("a", [&] { outcome.push_back("old ran"); }, [&] { outcome.push_back("old expired"); }));
  clock.advance_ns(4'000'000'000);
  ASSERT_TRUE(pool.try_submit("b", [&] { outcome.push_back("new ran"); }, [&] { outcome.push_back("new expired"); }));
  clock.advance_ns(2'000'000'000);  // the first waited 6 s, the second 2 s
  gate.open();
  pool.wait_until([](const WorkerPool::Counts& c) { return c.running == 0 && c.queued == 0; });
  EXPECT_EQ(outcome, (std::vector<std::string>{"old expired", "new ran"}));
  EXPECT_EQ(pool.counts().expired, 1u);
  EXPECT_EQ(pool.counts().refused, 0u);
}

TEST(WorkerPool, RefusesBeyondItsQueueDropsQueuedTasksOnStopAndFinishesRunningOnes) {
  WorkerPool pool(1, 2);
  std::mutex mutex;
  std::condition_variable changed;
  bool open = false;
  std::vector<int> ran;
  auto record = [&](int n) {
    return [&, n] {
      std::unique_lock lock(mutex);
      changed.wait(lock, [&] { return open || n != 1; });
      ran.push_back(n);
    };
  };
  ASSERT_TRUE(pool.try_submit(record(1)));
  pool.wait_until([](const WorkerPool::Counts& c) { return c.running == 1; });
  EXPECT_TRUE(pool.try_submit(record(2)));
  EXPECT_TRUE(pool.try_submit(record(3)));
  EXPECT_FALSE(pool.try_submit(record(4))) << "two already wait";
  WorkerPool::Counts c = pool.counts();
  EXPECT_EQ(c.running, 1u);
  EXPECT_EQ(c.queued, 2u);
  EXPECT_EQ(c.refused, 1u);
  {
    std::lock_guard lock(mutex);
    open = true;
  }
  changed.notify_all();
  pool.wait_until([](const WorkerPool::Counts& k) { return k.running == 0 && k.queued == 0; });
  EXPECT_EQ(ran, (std::vector<int>{1, 2, 3})) << "one worker runs them in order";

  // Stop: the running task finishes, a queued one is destroyed unrun, later ones are refused.
  open = false;
  bool dropped = false;
  struct SaysWhenDestroyed {
    std::mutex& m;
    std::condition_variable& cv;
    bool& flag;
    ~SaysWhenDestroyed() {
      std::lock_guard lock(m);
      flag = true;
      cv.notify_all();
    }
  };
  ASSERT_TRUE(pool.try_submit(record(1)));
  pool.wait_until([](const WorkerPool::Counts& k) { return k.running == 1; });
  {
    auto witness = std::make_shared<SaysWhenDestroyed>(mutex, changed, dropped);
    ASSERT_TRUE(pool.try_submit([&, witness] { ran.push_back(99); }));
  }  // now only the queued task holds the witness
  std::thread stopper([&] { pool.stop(); });
  {
    // stop() drops the queued task (destroying what it holds) before it waits for the running one.
    std::unique_lock lock(mutex);
    changed.wait(lock, [&] { return dropped; });
    open = true;
  }
  changed.notify_all();
  stopper.join();
  EXPECT_EQ(ran, (std::vector<int>{1, 2, 3, 1}));
  EXPECT_FALSE(pool.try_submit([] {}));
}

}  // namespace
}  // namespace sm::site
