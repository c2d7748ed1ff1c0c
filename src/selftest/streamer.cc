#include "selftest/streamer.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
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
#include <vector>

#include "core/clock.h"
#include "selftest/chunk_template.h"
#include "selftest/loopback_listener.h"
#include "selftest/h2_streamer.h"
#include "selftest/tls_server.h"

namespace sm {

namespace {

constexpr const char kHead[] =
    "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\nConnection: close\r\n\r\n";

struct Conn {
  int fd = -1;
  SSL* ssl = nullptr;       ///< --tls: the connection's TLS session
  bool handshaking = false; ///< --tls: the handshake has not finished
  bool streaming = false;   ///< request read, headers sent
  std::string in;           ///< request bytes until the blank line (+ body, ignored)
  std::string out;          ///< bytes waiting to be written
  uint64_t sent_tokens = 0; ///< cumulative count for the usage field
};

}  // namespace

int run_streamer(const StreamerConfig& config, int port_fd, StreamerStats* stats) {
  if (config.http2) return run_h2_streamer(config, port_fd, stats);
  const Clock& clock = SteadyClock::instance();
  std::unique_ptr<TlsServerContext> tls;
  if (config.tls) {
    auto made = TlsServerContext::create(false);
    if (!made) {
      std::fprintf(stderr, "selftest streamer: %s\n", made.error().message.c_str());
      return 1;
    }
    tls = std::move(*made);
  }
  const int listen_fd = listen_loopback_and_announce(port_fd);
  if (listen_fd < 0) return 1;

  int ep = epoll_create1(EPOLL_CLOEXEC);
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.fd = listen_fd;
  epoll_ctl(ep, EPOLL_CTL_ADD, listen_fd, &ev);
  std::vector<Conn> conns(65536);
  std::vector<int> streaming;  ///< fds of connections that stream
  const ChunkTemplate tmpl = ChunkTemplate::make();
  std::string block;
  const int64_t start_ns = clock.now_ns();
  const int64_t end_ns = start_ns + static_cast<int64_t>(config.run_s * 1e9);
  const bool paced = config.total_tokens_per_s > 0;
  // Streams start together once `hold_streams` requests are in (or after kStreamerHoldLimitNs): a
  // client busy reading the first streams would otherwise connect the rest very slowly.
  bool released = config.hold_streams <= 0;
  int64_t send_errors = 0;  ///< connections closed because a send failed
  int64_t hangups = 0;      ///< connections closed on EPOLLHUP / EPOLLERR
  const double interval_ns = paced ? 1e9 / config.total_tokens_per_s : 0;
  double next_due_ns = static_cast<double>(start_ns);
  size_t rr = 0;  ///< round-robin position among streaming connections (paced mode)
  bool have_pwait2 = true;
  StreamerStats served;

  auto append_chunks = [&](Conn& c, int n, int64_t stamp_ns) { tmpl.append(c.out, n, c.sent_tokens, stamp_ns); };
  auto flush = [&](Conn& c) -> bool {
    while (!c.out.empty()) {
      ssize_t n = c.ssl ? tls_write(c.ssl, c.out.data(), c.out.size())
                        : ::send(c.fd, c.out.data(), c.out.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
      if (n < 0) {
        if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) return true;
        if (errno == ENOBUFS || errno == ENOMEM) return true;  // kernel memory pressure: try again later
        ++send_errors;
        return false;
      }
      c.out.erase(0, static_cast<size_t>(n));
    }
    return true;
  };
  auto close_conn = [&](int fd) {
    epoll_ctl(ep, EPOLL_CTL_DEL, fd, nullptr);
    if (conns[static_cast<size_t>(fd)].ssl) SSL_free(conns[static_cast<size_t>(fd)].ssl);
    ::close(fd);
    conns[static_cast<size_t>(fd)] = Conn{};
    std::erase(streaming, fd);
  };
  // Unpaced: keep the socket full, a block of chunks at a time, until the kernel says EAGAIN
  // (edge-triggered: the next EPOLLOUT comes when there is room again).
  auto fill = [&](Conn& c) {
    bool ok = flush(c);
    while (ok && c.out.empty()) {
      append_chunks(c, config.chunks_per_write, clock.now_ns());
      ok = flush(c);
    }
    if (!ok) close_conn(c.fd);
  };

  epoll_event events[512];
  while (true) {
    const int64_t now_ns = clock.now_ns();
    if (now_ns >= end_ns) break;
    int n = 0;
    if (paced && released && config.tick_ns > 0 && have_pwait2) {
      // Sleep to the tick after the next chunk's due time (ns resolution: epoll_pwait2).
      const int64_t sleep_ns = std::max<int64_t>(0, static_cast<int64_t>(next_due_ns) + config.tick_ns - now_ns);
      timespec timeout{sleep_ns / 1'000'000'000, sleep_ns % 1'000'000'000};
      n = epoll_pwait2(ep, events, 512, &timeout, nullptr);
      if (n < 0 && errno == ENOSYS) have_pwait2 = false;  // kernel before 5.11: poll instead
    } else {
      const int timeout_ms = paced ? (released ? 0 : 1) : 100;  // paced without a tick: poll
      n = epoll_wait(ep, events, 512, timeout_ms);
    }
    for (int i = 0; i < n; ++i) {
      int fd = events[i].data.fd;
      if (fd == listen_fd) {
        while (true) {
          int cfd = ::accept4(listen_fd, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
          if (cfd < 0) break;
          if (static_cast<size_t>(cfd) >= conns.size()) {
            ::close(cfd);
            continue;
          }
          ++served.connections;
          const int one = 1;
          setsockopt(cfd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
          // A bounded send buffer: thousands of unpaced streams with the kernel's autotuned
          // buffers (megabytes each) drive TCP into memory pressure, which is not what is measured.
          setsockopt(cfd, SOL_SOCKET, SO_SNDBUF, &kStreamerSendBufferBytes, sizeof kStreamerSendBufferBytes);
          conns[static_cast<size_t>(cfd)] = Conn{cfd};
          if (tls) {
            conns[static_cast<size_t>(cfd)].ssl = tls->wrap(cfd);
            conns[static_cast<size_t>(cfd)].handshaking = true;
          }
          epoll_event cev{};
          cev.events = EPOLLIN | EPOLLOUT | EPOLLET;
          cev.data.fd = cfd;
          epoll_ctl(ep, EPOLL_CTL_ADD, cfd, &cev);
        }
        continue;
      }
      Conn& c = conns[static_cast<size_t>(fd)];
      if (events[i].events & (EPOLLHUP | EPOLLERR)) {
        ++hangups;
        close_conn(fd);
        continue;
      }
      if (c.handshaking) {
        const int h = tls_handshake(c.ssl);
        if (h < 0) {
          close_conn(fd);
          continue;
        }
        if (h == 0) continue;
        c.handshaking = false;  // the request may have come with the handshake's last bytes: read on
      }
      if (!c.streaming && (c.ssl || (events[i].events & EPOLLIN))) {
        char buf[16384];
        ssize_t r;
        while ((r = c.ssl ? tls_read(c.ssl, buf, sizeof buf) : ::recv(fd, buf, sizeof buf, 0)) > 0)
          c.in.append(buf, static_cast<size_t>(r));
        if (r == 0 || (r < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
          close_conn(fd);
          continue;
        }
        if (c.in.find("\r\n\r\n") != std::string::npos) {
          c.streaming = true;
          c.out = kHead;
          streaming.push_back(fd);
          ++served.streams;
          // The socket is writable now, and its EPOLLOUT edge may have passed already.
          if (!paced && released) fill(c);
          continue;
        }
      }
      if (c.streaming && !paced && released && (events[i].events & EPOLLOUT)) fill(c);
    }
    if (!released && (static_cast<int64_t>(streaming.size()) >= config.hold_streams ||
                      clock.now_ns() - start_ns >= kStreamerHoldLimitNs)) {
      released = true;
      if (!paced)
        for (int fd : std::vector<int>(streaming)) fill(conns[static_cast<size_t>(fd)]);
      next_due_ns = static_cast<double>(clock.now_ns());
    }
    if (paced && released && !streaming.empty()) {
      // Paced: one chunk per due slot, round-robin over the streams, stamped at the write.
      const int64_t t_ns = clock.now_ns();
      int budget = 4096;
      while (next_due_ns <= static_cast<double>(t_ns) && budget-- > 0) {
        rr = (rr + 1) % streaming.size();
        Conn& c = conns[static_cast<size_t>(streaming[rr])];
        append_chunks(c, 1, clock.now_ns());
        if (!flush(c)) {
          close_conn(c.fd);
          if (streaming.empty()) break;
        }
        next_due_ns += interval_ns;
      }
      if (next_due_ns < static_cast<double>(t_ns) - 1e8) next_due_ns = static_cast<double>(t_ns);  // fell behind: skip
    }
  }
  for (int fd : std::vector<int>(streaming)) close_conn(fd);
  ::close(listen_fd);
  if (std::getenv("SPEEDMATRIX_STREAMER_DEBUG"))
    std::fprintf(stderr, "selftest streamer: %lld send errors, %lld hangups\n", static_cast<long long>(send_errors),
                 static_cast<long long>(hangups));
  if (stats) *stats = served;
  return 0;
}

}  // namespace sm
