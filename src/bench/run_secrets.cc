#include "bench/run_secrets.h"

#include <algorithm>
#include <unistd.h>

#include "core/text.h"
#include "net/connection_options.h"

namespace sm {

RedactOptions run_redact_options(const TargetConfig& target, std::string_view base_url, bool redact_host) {
  RedactOptions options;
  options.drop_host = redact_host;
  auto add = [&](std::string_view secret) {
    secret = trim_blanks(secret);
    if (secret.size() < kMinLiteralSecretBytes) return;
    if (std::find(options.secrets.begin(), options.secrets.end(), secret) == options.secrets.end())
      options.secrets.emplace_back(secret);
  };
  add(target.api_key);
  for (const auto& header : target.connection.headers) {
    const std::string value = header_value(header);
    add(value);
    // "Bearer KEY", "Basic BASE64": a server may echo the credential without its scheme.
    if (size_t space = value.find(' '); space != std::string::npos) add(std::string_view(value).substr(space + 1));
  }
  for (std::string_view url : {std::string_view(target.base_url), base_url}) {
    const std::string user_info = url_user_info(url);
    add(user_info);
    if (size_t colon = user_info.find(':'); colon != std::string::npos) add(std::string_view(user_info).substr(colon + 1));
  }
  // Longest first: a key that contains another is blanked whole, not around the shorter one.
  std::sort(options.secrets.begin(), options.secrets.end(),
            [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
  if (redact_host) {
    options.hosts.push_back(url_host(base_url));
    char host[256] = {};
    if (gethostname(host, sizeof host - 1) == 0) options.hosts.emplace_back(host);
  }
  return options;
}

}  // namespace sm
