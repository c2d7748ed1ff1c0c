#pragma once
// The flags that say how to reach a server (--cacert, --insecure, --header, --proxy, --http2),
// shared by run, probe and upload, and their validation into ConnectionOptions.
#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "core/error.h"
#include "bench/run_config.h"
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

/// The flags `run` and `sweep` share about the server: --api, --api-key (else
/// $SPEEDMATRIX_API_KEY, else $OPENAI_API_KEY), --model, the timeouts, busy polling and the
/// connection flags, into `target` (its base URL is the caller's). Errors name the flag.
struct TargetFlags {
  std::string api;
  std::string api_key;
  std::string model;
  double timeout_s = 0;
  double connect_timeout_s = 0;
  double busy_poll_us = 0;
  const ConnectionFlags* connection = nullptr;
};
Result<void> apply_target_flags(const TargetFlags& flags, TargetConfig& target);

}  // namespace sm::cli
