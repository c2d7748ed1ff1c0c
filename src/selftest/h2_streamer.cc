#include "selftest/h2_streamer.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <nghttp2/nghttp2.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/clock.h"
#include "selftest/chunk_template.h"
#include "selftest/loopback_listener.h"
#include "selftest/tls_server.h"

namespace sm {

namespace {

constexpr uint32_t kMaxConcurrentStreams = 100'000;
constexpr std::string_view kModelsBody = R"({"object":"list","data":[{"id":"selftest","object":"model"}]})";

struct H2Stream {
  int32_t id = 0;
  bool post = false;         ///< :method POST: answered with an endless stream
  bool fixed = false;        ///< answered with kModelsBody, ended when it is sent
  std::string pending;       ///< bytes not yet handed to nghttp2
  size_t pending_at = 0;     ///< of those, already handed over
  uint64_t sent_tokens = 0;  ///< cumulative count for the usage field
  size_t waiting() const { return pending.size() - pending_at; }
};

struct Streamer;

struct H2Conn {
  Streamer* server = nullptr;
  int fd = -1;
  SSL* ssl = nullptr;        ///< --tls: the connection's TLS session ("h2" negotiated)
  bool handshaking = false;  ///< --tls: the handshake has not finished
  nghttp2_session* session = nullptr;
  std::string out;  ///< frames waiting for the socket
  std::unordered_map<int32_t, std::unique_ptr<H2Stream>> streams;
  ~H2Conn() {
    if (session) nghttp2_session_del(session);
    if (ssl) SSL_free(ssl);
  }
};

struct Streamer {
  const StreamerConfig& config;
  const Clock& clock;
  const ChunkTemplate tmpl = ChunkTemplate::make();
  int ep = -1;
  std::unordered_map<int, std::unique_ptr<H2Conn>> conns;
  std::vector<std::pair<int, int32_t>> streaming;  ///< (connection fd, stream id) of endless streams
  bool paced = false;
  bool released = false;
  StreamerStats served;
  nghttp2_session_callbacks* callbacks = nullptr;
  std::unique_ptr<TlsServerContext> tls;  ///< --tls

  Streamer(const StreamerConfig& c, const Clock& k) : config(c), clock(k) {}

  static ssize_t read_data(nghttp2_session*, int32_t, uint8_t* buf, size_t length, uint32_t* flags,
                           nghttp2_data_source* source, void*) {
    auto* s = static_cast<H2Stream*>(source->ptr);
    const size_t n = std::min(length, s->waiting());
    if (n == 0 && !s->fixed) return NGHTTP2_ERR_DEFERRED;
    std::memcpy(buf, s->pending.data() + s->pending_at, n);
    s->pending_at += n;
    if (s->waiting() == 0) {
      s->pending.clear();
      s->pending_at = 0;
      if (s->fixed) *flags |= NGHTTP2_DATA_FLAG_EOF;
    }
    return static_cast<ssize_t>(n);
  }

  static int on_begin_headers(nghttp2_session* session, const nghttp2_frame* frame, void* user) {
    if (frame->hd.type != NGHTTP2_HEADERS || frame->headers.cat != NGHTTP2_HCAT_REQUEST) return 0;
    auto* conn = static_cast<H2Conn*>(user);
    auto stream = std::make_unique<H2Stream>();
    stream->id = frame->hd.stream_id;
    nghttp2_session_set_stream_user_data(session, stream->id, stream.get());
    conn->streams[stream->id] = std::move(stream);
    return 0;
  }

  static int on_header(nghttp2_session* session, const nghttp2_frame* frame, const uint8_t* name, size_t namelen,
                       const uint8_t* value, size_t valuelen, uint8_t, void*) {
    if (frame->hd.type != NGHTTP2_HEADERS) return 0;
    auto* s = static_cast<H2Stream*>(nghttp2_session_get_stream_user_data(session, frame->hd.stream_id));
    if (s && std::string_view(reinterpret_cast<const char*>(name), namelen) == ":method")
      s->post = std::string_view(reinterpret_cast<const char*>(value), valuelen) == "POST";
    return 0;
  }

  static int on_frame_recv(nghttp2_session* session, const nghttp2_frame* frame, void* user) {
    if ((frame->hd.type != NGHTTP2_HEADERS && frame->hd.type != NGHTTP2_DATA) ||
        !(frame->hd.flags & NGHTTP2_FLAG_END_STREAM))
      return 0;
    auto* s = static_cast<H2Stream*>(nghttp2_session_get_stream_user_data(session, frame->hd.stream_id));
    if (!s) return 0;
    auto* conn = static_cast<H2Conn*>(user);
    return conn->server->respond(*conn, *s);
  }

  static int on_stream_close(nghttp2_session*, int32_t stream_id, uint32_t, void* user) {
    auto* conn = static_cast<H2Conn*>(user);
    conn->streams.erase(stream_id);  // its entry in `streaming` is dropped when next met
    return 0;
  }

  int respond(H2Conn& conn, H2Stream& s) {
    nghttp2_data_provider provider{};
    provider.source.ptr = &s;
    provider.read_callback = &Streamer::read_data;
    auto nv = [](const char* name, const char* value) {
      return nghttp2_nv{reinterpret_cast<uint8_t*>(const_cast<char*>(name)),
                        reinterpret_cast<uint8_t*>(const_cast<char*>(value)), std::strlen(name), std::strlen(value),
                        NGHTTP2_NV_FLAG_NONE};
    };
    if (!s.post) {
      s.fixed = true;
      s.pending = kModelsBody;
      nghttp2_nv headers[] = {nv(":status", "200"), nv("content-type", "application/json")};
      return nghttp2_submit_response(conn.session, s.id, headers, 2, &provider);
    }
    nghttp2_nv headers[] = {nv(":status", "200"), nv("content-type", "text/event-stream"), nv("cache-control", "no-cache")};
    streaming.emplace_back(conn.fd, s.id);
    ++served.streams;
    return nghttp2_submit_response(conn.session, s.id, headers, 3, &provider);
  }

  // nghttp2's frames into conn.out, then as much of conn.out as the socket takes. False: close.
  bool send(H2Conn& c) {
    if (c.handshaking) return true;
    while (true) {
      const uint8_t* data = nullptr;
      const ssize_t n = nghttp2_session_mem_send(c.session, &data);
      if (n < 0) return false;
      if (n == 0) break;
      c.out.append(reinterpret_cast<const char*>(data), static_cast<size_t>(n));
      if (c.out.size() >= 4 * static_cast<size_t>(kStreamerSendBufferBytes)) break;  // the socket first
    }
    size_t at = 0;
    while (at < c.out.size()) {
      const ssize_t n = c.ssl ? tls_write(c.ssl, c.out.data() + at, c.out.size() - at)
                              : ::send(c.fd, c.out.data() + at, c.out.size() - at, MSG_NOSIGNAL | MSG_DONTWAIT);
      if (n < 0) {
        if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR || errno == ENOBUFS || errno == ENOMEM) break;
        c.out.erase(0, at);
        return false;
      }
      at += static_cast<size_t>(n);
    }
    c.out.erase(0, at);
    return nghttp2_session_want_read(c.session) || nghttp2_session_want_write(c.session) || !c.out.empty();
  }

  void append(H2Conn& c, H2Stream& s, int chunks) {
    tmpl.append(s.pending, chunks, s.sent_tokens, clock.now_ns());
    nghttp2_session_resume_data(c.session, s.id);
  }

  // Unpaced: keep every stream's buffer and the socket full, until the socket says EAGAIN or the
  // client's flow-control window is shut (its WINDOW_UPDATE arrives as EPOLLIN: fill again then).
  bool fill(H2Conn& c) {
    while (true) {
      if (!send(c)) return false;
      if (!c.out.empty()) return true;  // the socket is full: its EPOLLOUT brings us back
      bool added = false;
      for (auto& [id, s] : c.streams)
        if (s->post && s->waiting() == 0) {
          append(c, *s, config.chunks_per_write);
          added = true;
        }
      if (!added) return true;  // every stream still has bytes waiting: the client's window is shut
    }
  }

  void close_conn(int fd) {
    epoll_ctl(ep, EPOLL_CTL_DEL, fd, nullptr);
    ::close(fd);
    conns.erase(fd);
    std::erase_if(streaming, [fd](const auto& e) { return e.first == fd; });
  }

  void accept_all(int listen_fd) {
    int one = 1;
    while (true) {
      int fd = ::accept4(listen_fd, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
      if (fd < 0) return;
      ++served.connections;
      setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
      setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &kStreamerSendBufferBytes, sizeof kStreamerSendBufferBytes);
      auto conn = std::make_unique<H2Conn>();
      conn->server = this;
      conn->fd = fd;
      if (tls) {
        conn->ssl = tls->wrap(fd);
        conn->handshaking = true;
      }
      nghttp2_session_server_new(&conn->session, callbacks, conn.get());
      nghttp2_settings_entry settings[] = {{NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS, kMaxConcurrentStreams}};
      nghttp2_submit_settings(conn->session, NGHTTP2_FLAG_NONE, settings, 1);
      epoll_event ev{};
      ev.events = EPOLLIN | EPOLLOUT | EPOLLET;
      ev.data.fd = fd;
      epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
      H2Conn& c = *conn;
      conns[fd] = std::move(conn);
      if (!send(c)) close_conn(fd);
    }
  }

  // Reads what the client sent (requests, window updates, resets) and answers. False: close.
  bool receive(H2Conn& c) {
    if (c.handshaking) {
      const int h = tls_handshake(c.ssl);
      if (h <= 0) return h == 0;
      c.handshaking = false;
    }
    char buf[16384];
    while (true) {
      const ssize_t r = c.ssl ? tls_read(c.ssl, buf, sizeof buf) : ::recv(c.fd, buf, sizeof buf, 0);
      if (r == 0) return false;
      if (r < 0) return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR;
      const ssize_t used = nghttp2_session_mem_recv(c.session, reinterpret_cast<const uint8_t*>(buf), static_cast<size_t>(r));
      if (used < 0) {
        if (std::getenv("SPEEDMATRIX_STREAMER_DEBUG"))
          std::fprintf(stderr, "selftest streamer: HTTP/2: %s\n", nghttp2_strerror(static_cast<int>(used)));
        return false;
      }
    }
  }
};

}  // namespace

int run_h2_streamer(const StreamerConfig& config, int port_fd, StreamerStats* stats) {
  const Clock& clock = SteadyClock::instance();
  const int listen_fd = listen_loopback_and_announce(port_fd);
  if (listen_fd < 0) return 1;

  Streamer s(config, clock);
  if (config.tls) {
    auto made = TlsServerContext::create(true);
    if (!made) {
      std::fprintf(stderr, "selftest streamer: %s\n", made.error().message.c_str());
      return 1;
    }
    s.tls = std::move(*made);
  }
  nghttp2_session_callbacks_new(&s.callbacks);
  nghttp2_session_callbacks_set_on_begin_headers_callback(s.callbacks, &Streamer::on_begin_headers);
  nghttp2_session_callbacks_set_on_header_callback(s.callbacks, &Streamer::on_header);
  nghttp2_session_callbacks_set_on_frame_recv_callback(s.callbacks, &Streamer::on_frame_recv);
  nghttp2_session_callbacks_set_on_stream_close_callback(s.callbacks, &Streamer::on_stream_close);
  s.ep = epoll_create1(EPOLL_CLOEXEC);
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.fd = listen_fd;
  epoll_ctl(s.ep, EPOLL_CTL_ADD, listen_fd, &ev);

  const int64_t start_ns = clock.now_ns();
  const int64_t end_ns = start_ns + static_cast<int64_t>(config.run_s * 1e9);
  s.paced = config.total_tokens_per_s > 0;
  s.released = config.hold_streams <= 0;
  const double interval_ns = s.paced ? 1e9 / config.total_tokens_per_s : 0;
  double next_due_ns = static_cast<double>(start_ns);
  size_t rr = 0;
  epoll_event events[512];
  while (clock.now_ns() < end_ns) {
    int n = 0;
    if (s.paced && s.released && config.tick_ns > 0) {
      const int64_t sleep_ns =
          std::max<int64_t>(0, static_cast<int64_t>(next_due_ns) + config.tick_ns - clock.now_ns());
      timespec timeout{sleep_ns / 1'000'000'000, sleep_ns % 1'000'000'000};
      n = epoll_pwait2(s.ep, events, 512, &timeout, nullptr);
    } else {
      n = epoll_wait(s.ep, events, 512, s.paced ? (s.released ? 0 : 1) : 100);
    }
    for (int i = 0; i < n; ++i) {
      const int fd = events[i].data.fd;
      if (fd == listen_fd) {
        s.accept_all(listen_fd);
        continue;
      }
      auto it = s.conns.find(fd);
      if (it == s.conns.end()) continue;
      H2Conn& c = *it->second;
      bool ok = !(events[i].events & (EPOLLHUP | EPOLLERR));
      if (ok && (c.ssl || (events[i].events & EPOLLIN))) ok = s.receive(c);
      if (ok) ok = (!s.paced && s.released) ? s.fill(c) : s.send(c);
      if (!ok) s.close_conn(fd);
    }
    if (!s.released && (static_cast<int64_t>(s.streaming.size()) >= config.hold_streams ||
                        clock.now_ns() - start_ns >= kStreamerHoldLimitNs)) {
      s.released = true;
      if (!s.paced)
        for (auto& [fd, conn] : s.conns) s.fill(*conn);  // a failure shows at its next event
      next_due_ns = static_cast<double>(clock.now_ns());
    }
    if (s.paced && s.released && !s.streaming.empty()) {
      // One chunk per due slot, round-robin over every stream of every connection.
      const int64_t t_ns = clock.now_ns();
      int budget = 4096;
      while (next_due_ns <= static_cast<double>(t_ns) && budget-- > 0 && !s.streaming.empty()) {
        rr = (rr + 1) % s.streaming.size();
        const auto [fd, id] = s.streaming[rr];
        auto conn = s.conns.find(fd);
        H2Stream* stream = nullptr;
        if (conn != s.conns.end())
          if (auto st = conn->second->streams.find(id); st != conn->second->streams.end()) stream = st->second.get();
        if (!stream) {
          s.streaming.erase(s.streaming.begin() + static_cast<std::ptrdiff_t>(rr));
          continue;
        }
        s.append(*conn->second, *stream, 1);
        if (!s.send(*conn->second)) s.close_conn(fd);
        next_due_ns += interval_ns;
      }
      if (next_due_ns < static_cast<double>(t_ns) - 1e8) next_due_ns = static_cast<double>(t_ns);  // fell behind: skip
    }
  }
  std::vector<int> fds;
  for (auto& [fd, conn] : s.conns) fds.push_back(fd);
  for (int fd : fds) s.close_conn(fd);
  ::close(listen_fd);
  ::close(s.ep);
  nghttp2_session_callbacks_del(s.callbacks);
  if (stats) *stats = s.served;
  return 0;
}

}  // namespace sm
