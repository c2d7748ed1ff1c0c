#include "result/redact_result.h"

#include <cctype>
#include <string>

#include <arpa/inet.h>

namespace sm {

namespace {

// "10.0.0.7", "fe80::1%eth0": an IP address as written, with an optional IPv6 zone.
bool is_ip_literal(const std::string& word) {
  std::string body = word.substr(0, word.find('%'));
  unsigned char bytes[16];
  return inet_pton(AF_INET, body.c_str(), bytes) == 1 || inet_pton(AF_INET6, body.c_str(), bytes) == 1;
}

void add_host(std::vector<std::string>& hosts, const std::string& host) {
  if (host.empty() || is_redacted(host)) return;
  hosts.push_back(host);
  // "gpu1.lab.example.com" is also "gpu1" in a prompt or a log line (not for an IP address).
  const size_t dot = host.find('.');
  const bool numeric = host.find_first_not_of("0123456789.") == std::string::npos;
  if (dot != std::string::npos && dot > 0 && !numeric) hosts.push_back(host.substr(0, dot));
}

// The addresses an attribution names ("gpu-box resolves to 10.0.0.7, which is not an address of
// this machine"): with drop_host they go the way of hostnames.
std::string drop_addresses(const std::string& text) {
  std::string out;
  size_t i = 0;
  while (i < text.size()) {
    const bool word_char = !std::isspace(static_cast<unsigned char>(text[i])) && text[i] != ',' && text[i] != '(' &&
                           text[i] != ')' && text[i] != ';';
    if (!word_char) {
      out += text[i++];
      continue;
    }
    size_t end = i;
    while (end < text.size() && !std::isspace(static_cast<unsigned char>(text[end])) && text[end] != ',' &&
           text[end] != '(' && text[end] != ')' && text[end] != ';')
      ++end;
    const std::string word = text.substr(i, end - i);
    out += is_ip_literal(word) ? std::string(kRedactedHost) : word;
    i = end;
  }
  return out;
}

void redact_machine(HardwareInfo& hw, const RedactOptions& options) {
  hw.source_detail = redact_attribution(hw.source_detail, options);
  if (options.drop_host && !hw.hostname.empty()) hw.hostname = std::string(kRedactedHost);
}

}  // namespace

std::string redact_attribution(std::string_view text, const RedactOptions& options) {
  std::string out = redact_text(text, options);
  return options.drop_host ? drop_addresses(out) : out;
}

void redact_result(RunResult& r, const RedactOptions& given) {
  RedactOptions options = given;
  if (options.drop_host) {
    add_host(options.hosts, url_host(r.target_url));
    add_host(options.hosts, r.hardware.hostname);
    if (r.client_hardware) add_host(options.hosts, r.client_hardware->hostname);
  }
  auto text = [&](std::string& s) { s = redact_text(s, options); };

  // A URL as given; anything else (a hand-edited file) as text.
  r.target_url = r.target_url.find("://") != std::string::npos ? redact_url(r.target_url, options)
                                                               : redact_text(r.target_url, options);
  r.launch_command = redact_command(r.launch_command, options);
  text(r.submitted_by);
  text(r.notes);
  text(r.settings.cost.currency);
  for (auto& w : r.warnings) text(w);

  text(r.engine.model);
  text(r.engine.model_path);
  text(r.engine.version);
  text(r.engine.build);
  text(r.engine.kv_capacity_source);

  redact_machine(r.hardware, options);
  if (r.client_hardware) redact_machine(*r.client_hardware, options);
  if (r.telemetry) text(r.telemetry->gpu_unavailable);  // may name an --nvml-lib path
  if (r.connection) {
    // Header values are never kept, whatever the file said: only the names.
    for (auto& h : r.connection->headers) {
      const size_t colon = h.find(':');
      h = (colon == std::string::npos ? h : h.substr(0, colon)) + ": " + std::string(kRedacted);
    }
    r.connection->proxy = redact_url(r.connection->proxy, options);
    text(r.connection->cacert);
  }

  for (auto& row : r.prefill) text(row.error);
  for (auto& cell : r.decode) {
    text(cell.error);
    for (auto& w : cell.warnings) text(w);
    if (cell.output_check) text(cell.output_check->excerpt);  // what the server wrote
  }
  if (r.sweep)
    for (auto& point : r.sweep->points) {
      text(point.error);
      if (point.output_check) text(point.output_check->excerpt);
    }
  for (auto& check : r.retrieval) {  // a server's answer can echo anything
    text(check.excerpt);
    text(check.finish_reason);
  }
  for (auto& search : r.slo_search)  // a failed probe's error, like a cell's
    for (auto& point : search.points) text(point.error);
  for (auto& row : r.mixed_prefill) {
    text(row.error);
    for (auto& w : row.warnings) text(w);
  }
}

RunResult redacted(RunResult result, const RedactOptions& options) {
  redact_result(result, options);
  return result;
}

}  // namespace sm
