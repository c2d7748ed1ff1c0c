#include "cli/connection_flags.h"

#include <fmt/format.h>

#include <cstdlib>
#include <fstream>

namespace sm::cli {

void add_connection_flags(CLI::App* cmd, ConnectionFlags& f, bool http2, const std::string& what) {
  cmd->add_option("--cacert", f.cacert,
                  fmt::format("PEM file of the CA certificate(s) to check {}'s https certificate against, instead "
                              "of this machine's (a lab server with its own certificate)",
                              what));
  cmd->add_flag("--insecure", f.insecure,
                fmt::format("Do not check {}'s https certificate at all (anyone on the path could read and change "
                            "the traffic); the result and the report say so",
                            what));
  cmd->add_option("--header", f.headers,
                  fmt::format("'Name: value' header sent on every request to {} (repeatable), e.g. 'api-key: KEY' "
                              "for Azure OpenAI. Only the names are recorded; values never reach result.json, the "
                              "reports or an upload",
                              what));
  f.proxy_option = cmd->add_option(
      "--proxy", f.proxy,
      fmt::format("Reach {} through this proxy, e.g. http://proxy:3128 (https URLs go through CONNECT); '' for "
                  "none. Without it the https_proxy, http_proxy, all_proxy and no_proxy variables apply",
                  what));
  if (http2)
    cmd->add_flag("--http2", f.http2,
                  "Speak HTTP/2 and multiplex the streams over shared connections: negotiated on https (a server "
                  "that declines gets HTTP/1.1); assumed on plain http, falling back to HTTP/1.1 when the server "
                  "does not speak it or libcurl is older than 8.0.0 (it cannot reuse such connections). The result "
                  "records the version used. At hundreds of streams it adds milliseconds of the client's own to each "
                  "chunk's stamp (docs/performance.md). Default: HTTP/1.1, one connection per stream");
}

Result<ConnectionOptions> to_connection_options(const ConnectionFlags& f) {
  ConnectionOptions c;
  if (!f.cacert.empty() && f.insecure)
    return fail(ErrorCode::InvalidArgument,
                "--cacert and --insecure contradict each other: check against a CA, or do not check");
  if (!f.cacert.empty()) {
    std::ifstream in(f.cacert);
    std::string first;
    if (!in || !std::getline(in, first))
      return fail(ErrorCode::InvalidArgument, fmt::format("--cacert {}: cannot read the file", f.cacert));
    std::string text = first;
    for (std::string line; std::getline(in, line);) text += line;
    if (text.find("-----BEGIN CERTIFICATE-----") == std::string::npos)
      return fail(ErrorCode::InvalidArgument,
                  fmt::format("--cacert {}: no PEM certificate in it (-----BEGIN CERTIFICATE-----)", f.cacert));
    c.cacert_file = f.cacert;
  }
  c.insecure = f.insecure;
  for (const auto& h : f.headers) {
    auto line = parse_header_line(h);
    if (!line) return std::unexpected(line.error());
    c.headers.push_back(*line);
  }
  if (f.proxy_option && f.proxy_option->count() > 0) c.proxy = f.proxy;
  c.http2 = f.http2;
  return c;
}

Result<void> apply_target_flags(const TargetFlags& f, TargetConfig& target) {
  if (f.api == "completions") target.api = ApiKind::Completions;
  else if (f.api == "chat") target.api = ApiKind::Chat;
  else return fail(ErrorCode::InvalidArgument, "--api must be 'completions' or 'chat'");
  target.api_key = f.api_key;
  if (target.api_key.empty())
    if (const char* k = std::getenv("SPEEDMATRIX_API_KEY"); k && *k) target.api_key = k;
  if (target.api_key.empty())
    if (const char* k = std::getenv("OPENAI_API_KEY"); k && *k) target.api_key = k;
  target.model = f.model;
  target.read_timeout_s = f.timeout_s;
  target.connect_timeout_s = f.connect_timeout_s;
  target.busy_poll_ns = static_cast<int64_t>(f.busy_poll_us * 1e3);
  auto connection = to_connection_options(*f.connection);
  if (!connection) return std::unexpected(connection.error());
  target.connection = std::move(*connection);
  return {};
}

}  // namespace sm::cli
