#pragma once
// The flags that say how to reach a server (--cacert, --insecure, --header, --proxy, --http2),
// shared by run, probe and upload, and their validation into ConnectionOptions.
#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "core/error.h"
#include "net/connection_options.h"

namespace sm::cli {

struct ConnectionFlags {
  std::string cacert;                 ///< --cacert FILE
  bool insecure = false;              ///< --insecure
  std::vector<std::string> headers;   ///< --header 'Name: value', repeatable
  std::string proxy;                  ///< --proxy URL
  CLI::Option* proxy_option = nullptr;  ///< to tell "--proxy ''" (no proxy) from no flag (environment)
  bool http2 = false;                 ///< --http2 (run only)
};

/// Adds the flags to `cmd`; `http2` adds --http2 too (commands that stream). `what` names the
/// server in the help text ("the server", "the results site").
void add_connection_flags(CLI::App* cmd, ConnectionFlags& flags, bool http2, const std::string& what);

/// Checks the flags (a readable --cacert, not with --insecure; well-formed headers) and turns
/// them into options. Errors name the flag.
Result<ConnectionOptions> to_connection_options(const ConnectionFlags& flags);

}  // namespace sm::cli
