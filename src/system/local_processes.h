#pragma once
// The processes of a server on this machine, so the telemetry can tell the CPU the measurement
// itself uses (speedmatrix and the server) from what other processes take (a busy host). Read
// from /proc; `root` is "/" on this machine and a fixture tree in tests.
#include <filesystem>
#include <vector>

namespace sm {

/// `pid` and every process descended from it (vLLM's engine core, a launch shell's children),
/// from the parent ids in /proc/<pid>/stat. Empty when `pid` is not running.
std::vector<int> process_tree(int pid, const std::filesystem::path& root = "/");

/// The processes holding a TCP socket that listens on `port` (IPv4 or IPv6, any address), from
/// /proc/net/tcp{,6} and each process's /proc/<pid>/fd links. Empty when none can be seen (another
/// user's process without root, no such listener).
std::vector<int> processes_listening_on(int port, const std::filesystem::path& root = "/");

}  // namespace sm
