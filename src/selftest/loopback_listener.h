#pragma once
// The streamers' listening socket (loopback, a free port, that port written to the parent) and
// the settings both streamers (HTTP/1.1 and HTTP/2) share.
#include <cstdint>

namespace sm {

/// Send buffer of every streamer connection.
inline constexpr int kStreamerSendBufferBytes = 256 * 1024;
/// Held streams (the lag probe) are released after this long anyway.
inline constexpr int64_t kStreamerHoldLimitNs = 30'000'000'000;

/// Listens on 127.0.0.1 at a free port (non-blocking, close-on-exec, backlog 8192), writes
/// "PORT\n" to `port_fd` and closes it. Returns the listening descriptor, or -1 (with a message
/// on stderr) when it cannot.
int listen_loopback_and_announce(int port_fd);

}  // namespace sm
