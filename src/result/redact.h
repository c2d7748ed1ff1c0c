#pragma once
// Secrets never leave the machine: pure functions that blank credentials out of free text,
// URLs and command lines before anything is written or uploaded (docs/ARCHITECTURE.md, "Secrets").
//
//   redact_command("HF_TOKEN=hf_abc... vllm serve Qwen/Qwen3-4B --api-key sk-1 --port 8000")
//     -> "HF_TOKEN=<redacted> vllm serve Qwen/Qwen3-4B --api-key <redacted> --port 8000"
//   redact_url("http://user:pw@gpu1:8000/?api_key=x")  -> "http://<redacted>@gpu1:8000/?api_key=<redacted>"
//   with drop_host (--redact-host)                     -> "http://<redacted>@<redacted-host>:8000/?api_key=<redacted>"
//
// What counts as a secret:
//  - the value of a flag, environment assignment, header, JSON/YAML key or query parameter whose
//    name's last word is key, token, secret, password (and a few spellings: apikey, passwd, ...),
//    or that contains "password" anywhere: `--api-key X`, `--hf-token=X`, `HF_TOKEN=X`,
//    `export OPENAI_API_KEY="X"`, `x-api-key: X`, `"api_key": "X"`. Names ending in another word
//    (`--max-num-batched-tokens 8192`, `--tokenizer`, `--api-key-file`) are left alone, and so
//    are `$VAR` references;
//  - the credentials of `Authorization:` / `Proxy-Authorization:` (the scheme word is kept:
//    `Authorization: Bearer <redacted>`);
//  - well-known key shapes anywhere in text: hf_…, sk-…, ghp_…, github_pat_…, glpat-…, xoxb-…,
//    AIza… (prefix kept: `sk-<redacted>`), only as whole words ("task-…" is not a key);
//  - URL user info (`http://<redacted>@host`) and key-like query or fragment parameters (the
//    names above plus key, sig, signature, auth, ...; case-insensitive).
//  - any of RedactOptions::secrets, wherever it appears (a server that echoes a header back);
// With drop_host also:
//  - the host of every URL (`http://<redacted-host>:8000`, the port is kept), every name in
//    `hosts` wherever it appears as a word, and
//  - local paths: an absolute path of two or more parts, or one under ~/, keeps only its last
//    part: `/home/alice/models/qwen.gguf` -> `<dir>/qwen.gguf` (API routes such as
//    /v1/completions are kept).
// Every function is idempotent: redacting redacted text changes nothing.
#include <string>
#include <string_view>
#include <vector>

namespace sm {

inline constexpr std::string_view kRedacted = "<redacted>";
inline constexpr std::string_view kRedactedHost = "<redacted-host>";
inline constexpr std::string_view kRedactedDir = "<dir>";

/// Literal secrets shorter than this are not searched for (a header value "1" is no secret, and
/// blanking every "1" would ruin the text).
inline constexpr size_t kMinLiteralSecretBytes = 6;

struct RedactOptions {
  bool drop_host = false;          ///< --redact-host: hostnames and local paths go too
  std::vector<std::string> hosts;  ///< with drop_host: names to remove wherever they appear as words
  /// Values known to be secret wherever they appear (the run's --header values): each becomes
  /// <redacted>, from free text and URLs alike (kMinLiteralSecretBytes or longer).
  std::vector<std::string> secrets;
};

/// The user information of a URL ("alice:hunter2" of "http://alice:hunter2@host/"); "" when none.
std::string url_user_info(std::string_view url);

/// Free text (a note, a warning, an error message, a command line): every rule above. Quotes
/// around a redacted value are kept (`--api-key '<redacted>'`), and a flag's value may follow a
/// `\`-newline continuation.
std::string redact_text(std::string_view text, const RedactOptions& options = {});

/// A URL: user info, key-like query and fragment parameters, and with drop_host its host. Text
/// without "://" is read as host[:port][/path...].
std::string redact_url(std::string_view url, const RedactOptions& options = {});

/// A shell command line (--launch, "starting the server: ..."): the rules of free text.
std::string redact_command(std::string_view command, const RedactOptions& options = {});

/// The host of a URL ("gpu1" in "http://u@gpu1:8000/x", "::1" in "http://[::1]:80"); empty when none.
std::string url_host(std::string_view url);

/// The port of a URL: the one written, else 80 (http) or 443 (https); 0 when it is not a number.
int url_port(std::string_view url);

/// True when `text` holds a placeholder left by redaction (it cannot be used as it was typed).
bool is_redacted(std::string_view text);

}  // namespace sm
