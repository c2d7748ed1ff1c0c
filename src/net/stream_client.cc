#include "net/stream_client.h"

#include <curl/curl.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fmt/format.h>
#include <unordered_map>

#include "net/busy_poll.h"
#include "net/curl_global.h"
#include "net/sse_decoder.h"

namespace sm {

namespace {

struct Transfer {
  StreamClient::Impl* impl = nullptr;
  uint64_t id = 0;
  CURL* easy = nullptr;
  curl_slist* headers = nullptr;
  HttpRequest request;
  SseDecoder decoder;
  bool status_checked = false;      ///< the response code has been read
  bool error_status = false;        ///< the response code is not 2xx
  long http_status = 0;
  std::string error_body;           ///< start of a non-2xx body
  int64_t bytes_rx = 0;
  std::string abort_reason;         ///< set when we stopped the transfer from the write callback
  char curl_error[CURL_ERROR_SIZE] = {0};

  explicit Transfer(size_t max_event_bytes) : decoder(max_event_bytes) {}
};

}  // namespace

struct StreamClient::Impl {
  const Clock& clock;
  StreamHandler& handler;
  StreamClientOptions options;
  CURLM* multi = nullptr;
  int epoll_fd = -1;
  int wake_fd = -1;
  std::unordered_map<uint64_t, std::unique_ptr<Transfer>> transfers;
  int64_t curl_timer_deadline_ns = -1;  ///< when libcurl wants CURL_SOCKET_TIMEOUT; -1 = never
  int callback_depth = 0;               ///< >0 while libcurl or a handler callback is on the stack
  std::vector<std::unique_ptr<Transfer>> pending_starts;
  std::vector<uint64_t> pending_cancels;
  bool stop_requested = false;
  BusyPoll busy_poll;

  Impl(const Clock& c, StreamHandler& h, StreamClientOptions o)
      : clock(c), handler(h), options(o), busy_poll(o.busy_poll_ns) {}

  /// Waits for events until `wait_until_ns`: polls first while BusyPoll says reads are close
  /// together, then sleeps in epoll_wait.
  int wait_events(epoll_event* events, int max_events, int64_t wait_until_ns) {
    int n = 0;
    const int64_t poll_until_ns = std::min(busy_poll.poll_until_ns(), wait_until_ns);
    // Bounded in polls too, so a clock that does not move (tests) cannot make this spin forever.
    for (int polls = 0; polls < kMaxPolls && clock.now_ns() < poll_until_ns; ++polls) {
      n = epoll_wait(epoll_fd, events, max_events, 0);
      if (n != 0) break;
    }
    if (n == 0) {
      const int64_t wait_ns = std::max<int64_t>(0, wait_until_ns - clock.now_ns());
      n = epoll_wait(epoll_fd, events, max_events, static_cast<int>((wait_ns + kNsPerMs - 1) / kNsPerMs));
    }
    if (n > 0) busy_poll.on_events(clock.now_ns());
    return n;
  }
  static constexpr int kMaxPolls = 100'000;

  static int socket_cb(CURL*, curl_socket_t fd, int what, void* userp, void* socketp) {
    auto* self = static_cast<Impl*>(userp);
    if (what == CURL_POLL_REMOVE) {
      epoll_ctl(self->epoll_fd, EPOLL_CTL_DEL, fd, nullptr);
      curl_multi_assign(self->multi, fd, nullptr);
      return 0;
    }
    epoll_event ev{};
    ev.data.fd = fd;
    if (what == CURL_POLL_IN || what == CURL_POLL_INOUT) ev.events |= EPOLLIN;
    if (what == CURL_POLL_OUT || what == CURL_POLL_INOUT) ev.events |= EPOLLOUT;
    if (socketp == nullptr) {
      if (epoll_ctl(self->epoll_fd, EPOLL_CTL_ADD, fd, &ev) != 0 && errno == EEXIST)
        epoll_ctl(self->epoll_fd, EPOLL_CTL_MOD, fd, &ev);
      curl_multi_assign(self->multi, fd, self);  // any non-null marker: "registered"
    } else {
      if (epoll_ctl(self->epoll_fd, EPOLL_CTL_MOD, fd, &ev) != 0 && errno == ENOENT)
        epoll_ctl(self->epoll_fd, EPOLL_CTL_ADD, fd, &ev);
    }
    return 0;
  }

  static int timer_cb(CURLM*, long timeout_ms, void* userp) {
    auto* self = static_cast<Impl*>(userp);
    self->curl_timer_deadline_ns = timeout_ms < 0 ? -1 : self->clock.now_ns() + timeout_ms * kNsPerMs;
    return 0;
  }

  static size_t write_cb(char* ptr, size_t size, size_t nmemb, void* userdata) {
    auto* t = static_cast<Transfer*>(userdata);
    Impl* self = t->impl;
    const size_t n = size * nmemb;
    const int64_t now_ns = self->clock.now_ns();  // one stamp per read: when the bytes reached us
    if (!t->status_checked) {
      t->status_checked = true;
      curl_easy_getinfo(t->easy, CURLINFO_RESPONSE_CODE, &t->http_status);
      t->error_status = t->http_status < 200 || t->http_status >= 300;
    }
    t->bytes_rx += static_cast<int64_t>(n);
    if (t->error_status) {
      size_t room = self->options.max_error_body_bytes - std::min(self->options.max_error_body_bytes, t->error_body.size());
      t->error_body.append(ptr, std::min(room, n));
      return n;
    }
    bool keep = true;
    auto status = t->decoder.feed(std::string_view(ptr, n), [&](std::string_view data) {
      if (keep && !self->handler.on_event(t->id, now_ns, data)) keep = false;
    });
    if (status == SseDecoder::Status::EventTooLarge) {
      t->abort_reason = fmt::format("stream line or event longer than {} bytes", self->options.max_event_bytes);
      return 0;
    }
    if (!keep) {
      if (t->abort_reason.empty()) t->abort_reason = "stream rejected by the client";
      return 0;
    }
    return n;
  }

  void add_transfer(std::unique_ptr<Transfer> t) {
    CURL* easy = curl_easy_init();
    SM_CHECK(easy != nullptr, "curl_easy_init failed");
    t->easy = easy;
    t->impl = this;
    curl_easy_setopt(easy, CURLOPT_URL, t->request.url.c_str());
    curl_easy_setopt(easy, CURLOPT_PRIVATE, t.get());
    curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, &Impl::write_cb);
    curl_easy_setopt(easy, CURLOPT_WRITEDATA, t.get());
    curl_easy_setopt(easy, CURLOPT_ERRORBUFFER, t->curl_error);
    curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(easy, CURLOPT_TCP_NODELAY, 1L);
    curl_easy_setopt(easy, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(options.connect_timeout_s * 1000));
    // Stall detection: fewer than 1 byte/s for read_timeout seconds fails the transfer.
    curl_easy_setopt(easy, CURLOPT_LOW_SPEED_LIMIT, 1L);
    curl_easy_setopt(easy, CURLOPT_LOW_SPEED_TIME, std::max(1L, static_cast<long>(options.read_timeout_s)));
    if (options.verbose) curl_easy_setopt(easy, CURLOPT_VERBOSE, 1L);
    apply_connection_options(easy, t->request.url, options.connection);
    // HTTP/2: a stream started while the first connection is still being set up waits for it
    // and joins it, instead of opening a connection of its own.
    if (options.connection.http2) curl_easy_setopt(easy, CURLOPT_PIPEWAIT, 1L);
    // "Expect:" off: a large prompt must not wait a second for "100 Continue".
    t->headers = curl_slist_append(t->headers, "Expect:");
    if (!t->request.body.empty()) {
      t->headers = curl_slist_append(t->headers, "Content-Type: application/json");
      t->headers = curl_slist_append(t->headers, "Accept: text/event-stream");
      curl_easy_setopt(easy, CURLOPT_POSTFIELDS, t->request.body.data());
      curl_easy_setopt(easy, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(t->request.body.size()));
    }
    for (const auto& h : t->request.headers) t->headers = curl_slist_append(t->headers, h.c_str());
    t->headers = append_connection_headers(t->headers, options.connection);
    curl_easy_setopt(easy, CURLOPT_HTTPHEADER, t->headers);
    uint64_t id = t->id;
    transfers[id] = std::move(t);
    curl_multi_add_handle(multi, easy);
  }

  std::unique_ptr<Transfer> detach(uint64_t id) {
    auto it = transfers.find(id);
    if (it == transfers.end()) return nullptr;
    auto t = std::move(it->second);
    transfers.erase(it);
    curl_multi_remove_handle(multi, t->easy);
    curl_easy_cleanup(t->easy);
    curl_slist_free_all(t->headers);
    t->easy = nullptr;
    t->headers = nullptr;
    return t;
  }

  void end_transfer(uint64_t id, CURLcode code) {
    auto t = detach(id);
    if (!t) return;
    TransferEnd end;
    end.http_status = t->http_status;
    end.bytes_rx = t->bytes_rx;
    if (!t->abort_reason.empty()) {
      end.error_code = ErrorCode::Protocol;
      end.error = t->abort_reason;
    } else if (code == CURLE_OK && t->error_status) {
      end.error_code = ErrorCode::Http;
      end.error = fmt::format("HTTP {}", t->http_status);
      end.error_body = std::move(t->error_body);
    } else if (code == CURLE_OK) {
      bool keep = true;
      const int64_t now_ns = clock.now_ns();
      t->decoder.finish([&](std::string_view data) {
        if (keep && !handler.on_event(id, now_ns, data)) keep = false;
      });
      if (!keep) {
        end.error_code = ErrorCode::Protocol;
        end.error = t->abort_reason.empty() ? "stream rejected by the client" : t->abort_reason;
      } else {
        end.ok = true;
      }
    } else {
      end.error_code = (code == CURLE_OPERATION_TIMEDOUT) ? ErrorCode::Timeout : ErrorCode::Network;
      const char* detail = t->curl_error[0] ? t->curl_error : curl_easy_strerror(code);
      end.error = transfer_error_text(code, detail, t->request.url, options.connection);
      if (code == CURLE_OPERATION_TIMEDOUT && t->bytes_rx > 0)
        end.error = fmt::format("stream stalled: nothing received for {:.0f} s ({})", options.read_timeout_s, detail);
    }
    ++callback_depth;
    handler.on_end(id, clock.now_ns(), end);
    --callback_depth;
  }

  void drain_done() {
    int left = 0;
    while (CURLMsg* msg = curl_multi_info_read(multi, &left)) {
      if (msg->msg != CURLMSG_DONE) continue;
      Transfer* t = nullptr;
      curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, &t);
      CURLcode code = msg->data.result;
      if (t && !t->status_checked) {
        curl_easy_getinfo(t->easy, CURLINFO_RESPONSE_CODE, &t->http_status);
        t->status_checked = true;
        t->error_status = code == CURLE_OK && (t->http_status < 200 || t->http_status >= 300);
      }
      if (t) end_transfer(t->id, code);
    }
  }

  void cancel_now(uint64_t id) {
    auto t = detach(id);
    if (!t) return;
    TransferEnd end;
    end.cancelled = true;
    end.http_status = t->http_status;
    end.bytes_rx = t->bytes_rx;
    ++callback_depth;
    handler.on_end(id, clock.now_ns(), end);
    --callback_depth;
  }

  void apply_pending() {
    while (!pending_starts.empty() || !pending_cancels.empty()) {
      auto starts = std::move(pending_starts);
      pending_starts.clear();
      for (auto& t : starts) add_transfer(std::move(t));
      auto cancels = std::move(pending_cancels);
      pending_cancels.clear();
      for (uint64_t id : cancels) cancel_now(id);
    }
  }

  void socket_action(curl_socket_t fd, int mask) {
    int running = 0;
    ++callback_depth;
    curl_multi_socket_action(multi, fd, mask, &running);
    --callback_depth;
  }
};

StreamClient::StreamClient(const Clock& clock, StreamHandler& handler, StreamClientOptions options)
    : impl_(std::make_unique<Impl>(clock, handler, options)) {
  ensure_curl_global_init();
  impl_->multi = curl_multi_init();
  SM_CHECK(impl_->multi != nullptr, "curl_multi_init failed");
  impl_->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
  SM_CHECK(impl_->epoll_fd >= 0, "epoll_create1 failed");
  impl_->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  SM_CHECK(impl_->wake_fd >= 0, "eventfd failed");
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.fd = impl_->wake_fd;
  epoll_ctl(impl_->epoll_fd, EPOLL_CTL_ADD, impl_->wake_fd, &ev);
  curl_multi_setopt(impl_->multi, CURLMOPT_SOCKETFUNCTION, &Impl::socket_cb);
  curl_multi_setopt(impl_->multi, CURLMOPT_SOCKETDATA, impl_.get());
  curl_multi_setopt(impl_->multi, CURLMOPT_TIMERFUNCTION, &Impl::timer_cb);
  curl_multi_setopt(impl_->multi, CURLMOPT_TIMERDATA, impl_.get());
  // Keep a connection per stream alive for the closed loop's next request.
  curl_multi_setopt(impl_->multi, CURLMOPT_MAXCONNECTS, 8192L);
  // HTTP/2 (--http2): streams share a connection up to the server's own stream limit (its
  // SETTINGS_MAX_CONCURRENT_STREAMS), not libcurl's default of 100. Without it: no sharing.
  curl_multi_setopt(impl_->multi, CURLMOPT_PIPELINING,
                    impl_->options.connection.http2 ? CURLPIPE_MULTIPLEX : CURLPIPE_NOTHING);
  curl_multi_setopt(impl_->multi, CURLMOPT_MAX_CONCURRENT_STREAMS, 100000L);
}

StreamClient::~StreamClient() {
  std::vector<uint64_t> ids;
  for (auto& [id, t] : impl_->transfers) ids.push_back(id);
  for (uint64_t id : ids) impl_->detach(id);
  curl_multi_cleanup(impl_->multi);
  close(impl_->epoll_fd);
  close(impl_->wake_fd);
}

int64_t StreamClient::start(uint64_t id, HttpRequest request) {
  auto t = std::make_unique<Transfer>(impl_->options.max_event_bytes);
  t->id = id;
  t->request = std::move(request);
  const int64_t now_ns = impl_->clock.now_ns();
  if (impl_->callback_depth > 0) {
    impl_->pending_starts.push_back(std::move(t));
  } else {
    impl_->add_transfer(std::move(t));
  }
  return now_ns;
}

void StreamClient::cancel(uint64_t id) {
  if (impl_->callback_depth > 0) {
    impl_->pending_cancels.push_back(id);
  } else {
    impl_->cancel_now(id);
    impl_->apply_pending();
  }
}

void StreamClient::cancel_all() {
  // Requests queued during a callback never reached libcurl: end them directly.
  auto queued = std::move(impl_->pending_starts);
  impl_->pending_starts.clear();
  for (auto& t : queued) {
    TransferEnd end;
    end.cancelled = true;
    ++impl_->callback_depth;
    impl_->handler.on_end(t->id, impl_->clock.now_ns(), end);
    --impl_->callback_depth;
  }
  std::vector<uint64_t> ids;
  for (auto& [id, t] : impl_->transfers) ids.push_back(id);
  for (uint64_t id : ids) cancel(id);
}

size_t StreamClient::active() const { return impl_->transfers.size() + impl_->pending_starts.size(); }

void StreamClient::wake() {
  uint64_t one = 1;
  ssize_t r = ::write(impl_->wake_fd, &one, sizeof one);
  (void)r;
}

void StreamClient::stop() {
  impl_->stop_requested = true;
  wake();
}

void StreamClient::run_until(int64_t deadline_ns) {
  Impl& s = *impl_;
  s.stop_requested = false;
  epoll_event events[256];
  s.apply_pending();
  while (!s.stop_requested && !s.transfers.empty()) {
    int64_t now_ns = s.clock.now_ns();
    if (now_ns >= deadline_ns) break;
    int64_t wait_ns = deadline_ns - now_ns;
    if (s.curl_timer_deadline_ns >= 0) wait_ns = std::min(wait_ns, std::max<int64_t>(0, s.curl_timer_deadline_ns - now_ns));
    wait_ns = std::min<int64_t>(wait_ns, kNsPerS);
    int n = s.wait_events(events, 256, now_ns + wait_ns);
    if (n < 0 && errno != EINTR) SM_CHECK(false, "epoll_wait failed");
    for (int i = 0; i < n; ++i) {
      int fd = events[i].data.fd;
      if (fd == s.wake_fd) {
        uint64_t v;
        while (::read(s.wake_fd, &v, sizeof v) > 0) {
        }
        continue;
      }
      int mask = 0;
      if (events[i].events & EPOLLIN) mask |= CURL_CSELECT_IN;
      if (events[i].events & EPOLLOUT) mask |= CURL_CSELECT_OUT;
      if (events[i].events & (EPOLLERR | EPOLLHUP)) mask |= CURL_CSELECT_ERR;
      s.socket_action(fd, mask);
      // One socket_action also runs every transfer libcurl has marked "run now" (those with
      // data still waiting). When streams arrive faster than we read, that is all of them, so
      // a call can take long: stop at the deadline and leave the rest of the batch to the next
      // call (the epoll set is level-triggered, so nothing is lost).
      if (s.stop_requested || s.clock.now_ns() >= deadline_ns) break;
    }
    if (s.curl_timer_deadline_ns >= 0 && s.clock.now_ns() >= s.curl_timer_deadline_ns) {
      s.curl_timer_deadline_ns = -1;
      s.socket_action(CURL_SOCKET_TIMEOUT, 0);
    }
    s.drain_done();
    s.apply_pending();
  }
}

}  // namespace sm
