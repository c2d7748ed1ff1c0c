#pragma once
// The streamers' listening socket: loopback, a free port, that port written to the parent.

namespace sm {

/// Listens on 127.0.0.1 at a free port (non-blocking, close-on-exec, backlog 8192), writes
/// "PORT\n" to `port_fd` and closes it. Returns the listening descriptor, or -1 (with a message
/// on stderr) when it cannot.
int listen_loopback_and_announce(int port_fd);

}  // namespace sm
