#pragma once
// What a run or a sweep must never write or print (docs/ARCHITECTURE.md, "Secrets"): every
// literal secret it was given — the API key (--api-key, SPEEDMATRIX_API_KEY, OPENAI_API_KEY),
// each --header's value and the credential inside it ("Bearer KEY": KEY too), the URL's user
// information and password — and, with --redact-host, the server's and this machine's names.
// One implementation for `run` and `sweep`.
//
//   const RedactOptions secrets = run_redact_options(config.target, base_url, config.redact_host);
//   std::fprintf(stderr, "%s\n", redact_text(message, secrets).c_str());
#include <string_view>

#include "bench/run_config.h"
#include "result/redact.h"

namespace sm {

/// The redaction of everything a run against `target` (at `base_url`, which may differ from
/// target.base_url for an embedded server) writes or prints.
RedactOptions run_redact_options(const TargetConfig& target, std::string_view base_url, bool redact_host);

}  // namespace sm
