#include "result/redact_result.h"

#include <string>

namespace sm {

namespace {

void add_host(std::vector<std::string>& hosts, const std::string& host) {
  if (host.empty() || is_redacted(host)) return;
  hosts.push_back(host);
  // "gpu1.lab.example.com" is also "gpu1" in a prompt or a log line (not for an IP address).
  const size_t dot = host.find('.');
  const bool numeric = host.find_first_not_of("0123456789.") == std::string::npos;
  if (dot != std::string::npos && dot > 0 && !numeric) hosts.push_back(host.substr(0, dot));
}

}  // namespace

void redact_result(RunResult& r, const RedactOptions& given) {
  RedactOptions options = given;
  if (options.drop_host) {
    add_host(options.hosts, url_host(r.target_url));
    add_host(options.hosts, r.hardware.hostname);
  }
  auto text = [&](std::string& s) { s = redact_text(s, options); };

  // A URL as given; anything else (a hand-edited file) as text.
  r.target_url = r.target_url.find("://") != std::string::npos ? redact_url(r.target_url, options)
                                                               : redact_text(r.target_url, options);
  r.launch_command = redact_command(r.launch_command, options);
  text(r.submitted_by);
  text(r.notes);
  for (auto& w : r.warnings) text(w);

  text(r.engine.model);
  text(r.engine.model_path);
  text(r.engine.version);
  text(r.engine.build);
  text(r.engine.kv_capacity_source);

  if (options.drop_host && !r.hardware.hostname.empty()) r.hardware.hostname = std::string(kRedactedHost);

  for (auto& row : r.prefill) text(row.error);
  for (auto& cell : r.decode) {
    text(cell.error);
    for (auto& w : cell.warnings) text(w);
  }
}

RunResult redacted(RunResult result, const RedactOptions& options) {
  redact_result(result, options);
  return result;
}

}  // namespace sm
