#include "selftest/loopback_listener.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>
#include <string>

namespace sm {

int listen_loopback_and_announce(int port_fd) {
  int listen_fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  int one = 1;
  setsockopt(listen_fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::bind(listen_fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || ::listen(listen_fd, 8192) != 0) {
    std::perror("selftest streamer: bind/listen");
    return -1;
  }
  socklen_t len = sizeof addr;
  getsockname(listen_fd, reinterpret_cast<sockaddr*>(&addr), &len);
  std::string port_line = std::to_string(ntohs(addr.sin_port)) + "\n";
  if (::write(port_fd, port_line.data(), port_line.size()) < 0) return -1;
  ::close(port_fd);
  return listen_fd;
}

}  // namespace sm
