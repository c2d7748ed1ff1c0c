#include "result/redact.h"

#include <algorithm>
#include <array>
#include <cctype>

namespace sm {

namespace {

// ---- characters and words --------------------------------------------------------------------

bool is_alnum(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }
bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
bool is_quote(char c) { return c == '"' || c == '\''; }
// Characters of a flag, variable, header or parameter name.
bool is_name_char(char c) { return is_alnum(c) || c == '_' || c == '-'; }

char lower(char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); }

std::string lowered(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = lower(c);
  return out;
}

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) { return lower(x) == lower(y); });
}

// "--hf-token" -> {hf, token}; "OPENAI_API_KEY" -> {openai, api, key}; "sessionToken" -> {session, token}.
std::vector<std::string> name_words(std::string_view name) {
  std::vector<std::string> words;
  std::string word;
  auto flush = [&] {
    if (!word.empty()) words.push_back(lowered(word));
    word.clear();
  };
  for (size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    if (!is_alnum(c)) {
      flush();
      continue;
    }
    const bool camel_break = i > 0 && std::isupper(static_cast<unsigned char>(c)) &&
                             std::islower(static_cast<unsigned char>(name[i - 1]));
    if (camel_break) flush();
    word += c;
  }
  flush();
  return words;
}

constexpr std::array kSecretWords{"key",      "keys",   "apikey",     "token",      "secret", "secrets",
                                  "password", "passwd", "passphrase", "credential", "credentials"};

bool contains(const auto& list, std::string_view word) {
  return std::find(list.begin(), list.end(), word) != list.end();
}

// A flag, variable, header or key whose value is a secret.
bool is_secret_name(std::string_view name) {
  const std::string low = lowered(name);
  if (low.find("password") != std::string::npos || low.find("passwd") != std::string::npos) return true;
  const auto words = name_words(name);
  return !words.empty() && contains(kSecretWords, words.back());
}

bool is_authorization_header(std::string_view name) {
  return iequals(name, "authorization") || iequals(name, "proxy-authorization");
}

// Query and fragment parameters that carry credentials besides the secret names above.
constexpr std::array kSecretParams{"sig",          "signature",   "auth",  "pass", "pwd",
                                   "access_token", "id_token",    "jwt",   "session",
                                   "x-amz-credential", "x-amz-signature", "x-amz-security-token",
                                   "x-goog-credential", "x-goog-signature"};

bool is_secret_param(std::string_view name) {
  return is_secret_name(name) || contains(kSecretParams, lowered(name));
}

// Authorization schemes: the word kept in front of the redacted credentials.
constexpr std::array kAuthSchemes{"bearer", "basic", "token", "digest", "apikey", "api-key", "key", "hmac",
                                  "negotiate", "ntlm", "dpop", "aws4-hmac-sha256"};

constexpr std::array<std::string_view, 3> kPlaceholders{kRedactedHost, kRedacted, kRedactedDir};

// The placeholder starting at `at`, or 0.
size_t placeholder_at(std::string_view s, size_t at) {
  for (std::string_view p : kPlaceholders)
    if (s.substr(at, p.size()) == p) return p.size();
  return 0;
}

// ---- URLs ------------------------------------------------------------------------------------

struct Authority {
  size_t begin = 0, end = 0;            ///< [begin, end): user info, host and port
  size_t host_begin = 0, host_end = 0;  ///< the host inside it (without [] for IPv6)
  bool user_info = false;               ///< "user:pass@" before the host
  bool bracketed = false;               ///< an IPv6 host in []
};

Authority find_authority(std::string_view url) {
  Authority a;
  const size_t scheme = url.find("://");
  a.begin = scheme == std::string_view::npos ? 0 : scheme + 3;
  a.end = url.find_first_of("/?#", a.begin);
  if (a.end == std::string_view::npos) a.end = url.size();
  // The user info ends at the last '@' (passwords may hold '@').
  a.host_begin = a.begin;
  for (size_t i = a.begin; i < a.end; ++i)
    if (url[i] == '@') a.host_begin = i + 1;
  a.user_info = a.host_begin > a.begin;
  if (a.host_begin < a.end && url[a.host_begin] == '[') {
    a.bracketed = true;
    a.host_begin += 1;
    const size_t close = url.find(']', a.host_begin);
    a.host_end = close == std::string_view::npos || close > a.end ? a.end : close;
  } else if (url.substr(a.host_begin, kRedactedHost.size()) == kRedactedHost) {
    a.host_end = a.host_begin + kRedactedHost.size();
  } else {
    const size_t colon = url.find(':', a.host_begin);
    a.host_end = colon == std::string_view::npos || colon > a.end ? a.end : colon;
  }
  return a;
}

// "?a=1&api_key=x#token=y" -> "?a=1&api_key=<redacted>#token=<redacted>": the query and the
// fragment, each pair after a '?', '#', '&' or ';'.
std::string redact_params(std::string_view params) {
  std::string out;
  size_t i = 0;
  while (i < params.size()) {
    out += params[i];  // the separator
    const size_t begin = i + 1;
    size_t end = params.find_first_of("#&;", begin);
    if (end == std::string_view::npos) end = params.size();
    std::string_view pair = params.substr(begin, end - begin);
    const size_t eq = pair.find('=');
    if (eq != std::string_view::npos && eq + 1 < pair.size() && is_secret_param(pair.substr(0, eq))) {
      out.append(pair.substr(0, eq + 1));
      out.append(kRedacted);
    } else {
      out.append(pair);
    }
    i = end;
  }
  return out;
}

std::string redact_paths(std::string_view s);

std::string redact_one_url(std::string_view url, const RedactOptions& options) {
  // file:///home/alice/x names a local path, not a host.
  if (url.size() > 7 && iequals(url.substr(0, 7), "file://"))
    return options.drop_host ? std::string(url.substr(0, 7)) + redact_paths(url.substr(7)) : std::string(url);
  const Authority a = find_authority(url);
  std::string out(url.substr(0, a.begin));
  if (a.user_info) {
    out.append(kRedacted);
    out += '@';
  }
  if (a.bracketed) out += '[';
  std::string_view host = url.substr(a.host_begin, a.host_end - a.host_begin);
  out.append(options.drop_host && !host.empty() ? kRedactedHost : host);
  out.append(url.substr(a.host_end, a.end - a.host_end));  // "]" and the port
  // The path, then query and fragment parameters.
  std::string_view rest = url.substr(a.end);
  const size_t q = rest.find_first_of("?#");
  out.append(rest.substr(0, q));
  if (q != std::string_view::npos) out.append(redact_params(rest.substr(q)));
  return out;
}

bool ends_url(char c) { return is_space(c) || is_quote(c) || c == '`' || c == '<' || c == '>' || c == '\\'; }

// Pass 1: every scheme://... in the text goes through redact_one_url.
std::string redact_urls(std::string_view text, const RedactOptions& options) {
  std::string out;
  size_t copied = 0;
  size_t search = 0;
  while (true) {
    const size_t sep = text.find("://", search);
    if (sep == std::string_view::npos) break;
    size_t begin = sep;
    while (begin > copied && (is_alnum(text[begin - 1]) || text[begin - 1] == '+' || text[begin - 1] == '.' ||
                              text[begin - 1] == '-'))
      --begin;
    if (begin == sep || !std::isalpha(static_cast<unsigned char>(text[begin]))) {
      search = sep + 3;
      continue;
    }
    size_t end = sep + 3;
    while (end < text.size()) {
      if (const size_t p = placeholder_at(text, end)) {
        end += p;
        continue;
      }
      if (ends_url(text[end])) break;
      ++end;
    }
    // Sentence punctuation after a URL is not part of it.
    while (end > sep + 3 && std::string_view(".,;:!?)").find(text[end - 1]) != std::string_view::npos) --end;
    out.append(text.substr(copied, begin - copied));
    out.append(redact_one_url(text.substr(begin, end - begin), options));
    copied = end;
    search = end;
  }
  out.append(text.substr(copied));
  return out;
}

// ---- name = value --------------------------------------------------------------------------

bool ends_value(char c) {
  return is_space(c) || is_quote(c) || c == ';' || c == '&' || c == '|' || c == ',' || c == ')' || c == '<' ||
         c == '>' || c == '`';
}

size_t skip_blanks(std::string_view s, size_t i, bool follow_continuations) {
  while (i < s.size()) {
    if (s[i] == ' ' || s[i] == '\t') {
      ++i;
    } else if (follow_continuations && s[i] == '\\' && i + 1 < s.size() && s[i + 1] == '\n') {
      i += 2;
    } else if (follow_continuations && s[i] == '\n' && i > 0 && s[i - 1] == '\\') {
      ++i;
    } else {
      break;
    }
  }
  return i;
}

// The value at `v`: appends its redacted form to `out` and returns where it ends, or npos when
// there is no value there (nothing appended).
size_t redact_value(std::string_view s, size_t v, bool authorization, std::string& out) {
  if (v >= s.size()) return std::string_view::npos;
  if (const size_t p = placeholder_at(s, v)) {
    out.append(s.substr(v, p));
    return v + p;
  }
  size_t begin = v, end;
  const bool quoted = is_quote(s[v]);
  if (quoted) {
    begin = v + 1;
    end = s.find(s[v], begin);
    if (end == std::string_view::npos) end = s.size();
  } else {
    end = begin;
    while (end < s.size() && !ends_value(s[end])) ++end;
    // Authorization: the scheme word, blanks, then the credentials.
    if (authorization && end < s.size() && (s[end] == ' ' || s[end] == '\t') &&
        contains(kAuthSchemes, lowered(s.substr(begin, end - begin)))) {
      const size_t cred = skip_blanks(s, end, false);
      size_t cred_end = cred + placeholder_at(s, cred);
      while (cred_end < s.size() && !ends_value(s[cred_end])) ++cred_end;
      if (cred_end > cred) end = cred_end;
    }
  }
  std::string_view value = s.substr(begin, end - begin);
  if (value.empty() && !quoted) return std::string_view::npos;
  if (quoted) out += s[v];
  if (value.starts_with('$') || value.empty()) {
    out.append(value);  // a reference to a variable, not the secret itself
  } else if (authorization) {
    // Keep a leading scheme word: "Bearer abc" -> "Bearer <redacted>".
    const size_t blank = value.find_first_of(" \t");
    if (blank != std::string_view::npos && contains(kAuthSchemes, lowered(value.substr(0, blank)))) {
      const size_t cred = value.find_first_not_of(" \t", blank);
      out.append(value.substr(0, cred));
      if (cred != std::string_view::npos && placeholder_at(value, cred) == 0) out.append(kRedacted);
      else if (cred != std::string_view::npos) out.append(value.substr(cred));
    } else {
      out.append(kRedacted);
    }
  } else {
    out.append(kRedacted);
  }
  if (quoted && end < s.size()) {
    out += s[end];
    return end + 1;
  }
  return end;
}

// Pass 2: `--flag value`, `--flag=value`, `NAME=value`, `Name: value`, `"name": "value"`.
std::string redact_assignments(std::string_view s) {
  std::string out;
  size_t i = 0;
  while (i < s.size()) {
    if (const size_t p = placeholder_at(s, i)) {
      out.append(s.substr(i, p));
      i += p;
      continue;
    }
    const bool boundary = i == 0 || (!is_name_char(s[i - 1]) && s[i - 1] != '/');
    if (!boundary || !is_name_char(s[i])) {
      out += s[i++];
      continue;
    }
    size_t j = i;
    while (j < s.size() && is_name_char(s[j])) ++j;
    std::string_view name = s.substr(i, j - i);
    out.append(name);
    std::string_view bare = name.substr(std::min(name.find_first_not_of('-'), name.size()));
    const bool flag = name.size() > bare.size() && name.size() - bare.size() <= 2 && !bare.empty();
    const bool authorization = !flag && is_authorization_header(bare);
    if (bare.empty() || !(authorization || is_secret_name(bare))) {
      i = j;
      continue;
    }
    size_t k = j;
    if (i > 0 && is_quote(s[i - 1]) && k < s.size() && s[k] == s[i - 1]) out += s[k++];  // "api_key":
    size_t value_at = std::string_view::npos;
    if (k < s.size() && s[k] == '=') {
      value_at = k + 1;
    } else if (!flag && k < s.size() && s[k] == ':' && (k + 1 >= s.size() || s[k + 1] != '/')) {
      value_at = skip_blanks(s, k + 1, false);
    } else if (flag && k < s.size() && (s[k] == ' ' || s[k] == '\t' || s[k] == '\\')) {
      value_at = skip_blanks(s, k, true);
      if (value_at < s.size() && s[value_at] == '-') value_at = std::string_view::npos;  // another flag
      if (value_at == k) value_at = std::string_view::npos;
    }
    if (value_at == std::string_view::npos || value_at >= s.size()) {
      i = k;
      continue;
    }
    std::string redacted;
    const size_t end = redact_value(s, value_at, authorization, redacted);
    if (end == std::string_view::npos) {
      i = k;
      continue;
    }
    out.append(s.substr(k, value_at - k));
    out.append(redacted);
    i = end;
  }
  return out;
}

// ---- well-known key shapes -------------------------------------------------------------------

struct KeyShape {
  std::string_view prefix;
  size_t min_body;  ///< characters after the prefix
};

constexpr std::array<KeyShape, 14> kKeyShapes{{{"hf_", 16},
                                               {"sk-", 16},
                                               {"sk_live_", 16},
                                               {"sk_test_", 16},
                                               {"rk_live_", 16},
                                               {"ghp_", 20},
                                               {"gho_", 20},
                                               {"ghs_", 20},
                                               {"ghu_", 20},
                                               {"github_pat_", 20},
                                               {"glpat-", 16},
                                               {"xoxb-", 16},
                                               {"xoxp-", 16},
                                               {"AIza", 30}}};

bool is_key_char(char c) { return is_alnum(c) || c == '-' || c == '_'; }

// Pass 3: hf_..., sk-..., ... as whole words keep their prefix: "sk-<redacted>".
std::string redact_key_shapes(std::string_view s) {
  std::string out;
  size_t i = 0;
  while (i < s.size()) {
    const bool boundary = i == 0 || !(is_alnum(s[i - 1]) || s[i - 1] == '_' || s[i - 1] == '-');
    bool matched = false;
    if (boundary) {
      for (const KeyShape& shape : kKeyShapes) {
        if (s.substr(i, shape.prefix.size()) != shape.prefix) continue;
        size_t end = i + shape.prefix.size();
        while (end < s.size() && is_key_char(s[end])) ++end;
        if (end - i - shape.prefix.size() < shape.min_body) continue;
        out.append(shape.prefix);
        out.append(kRedacted);
        i = end;
        matched = true;
        break;
      }
    }
    if (!matched) out += s[i++];
  }
  return out;
}

// ---- hosts and paths (drop_host) -------------------------------------------------------------

bool starts_path(std::string_view s, size_t i) {
  const bool boundary = i == 0 || is_space(s[i - 1]) || is_quote(s[i - 1]) ||
                        std::string_view("=:(,[").find(s[i - 1]) != std::string_view::npos;
  if (!boundary || i + 1 >= s.size()) return false;
  if (s[i] == '~') return s[i + 1] == '/';
  return s[i] == '/' && s[i + 1] != '/';
}

bool ends_path(char c) {
  return is_space(c) || is_quote(c) || std::string_view(":,;)]<>|&`").find(c) != std::string_view::npos;
}

// Pass 4: /home/alice/models/qwen.gguf -> <dir>/qwen.gguf; ~/x/y -> <dir>/y.
std::string redact_paths(std::string_view s) {
  std::string out;
  size_t i = 0;
  while (i < s.size()) {
    if (!starts_path(s, i)) {
      out += s[i++];
      continue;
    }
    size_t end = i;
    while (end < s.size() && !ends_path(s[end])) ++end;
    std::string_view path = s.substr(i, end - i);
    std::vector<std::string_view> parts;
    for (size_t p = 0; p <= path.size();) {
      size_t slash = path.find('/', p);
      if (slash == std::string_view::npos) slash = path.size();
      if (slash > p) parts.push_back(path.substr(p, slash - p));
      p = slash + 1;
    }
    const bool home = path.starts_with("~");
    if (home) parts.erase(parts.begin());  // "~"
    const bool route = !home && !parts.empty() && (parts[0] == "v1" || parts[0] == "v2" || parts[0] == "api");
    if (route || parts.empty() || (!home && parts.size() < 2)) {
      out.append(path);
    } else {
      out.append(kRedactedDir);
      out += '/';
      out.append(parts.back());
    }
    i = end;
  }
  return out;
}

bool host_char(char c) { return is_alnum(c) || c == '-' || c == '_' || c == '.' || c == ':'; }

// Pass 5: every named host, as a whole word.
std::string redact_host_names(std::string s, const std::vector<std::string>& hosts) {
  for (const std::string& host : hosts) {
    if (host.size() < 2 || placeholder_at(host, 0) != 0) continue;
    std::string out;
    size_t copied = 0;
    for (size_t at = s.find(host); at != std::string::npos; at = s.find(host, at + 1)) {
      if (at < copied) continue;
      const size_t end = at + host.size();
      const bool before_ok = at == 0 || !host_char(s[at - 1]);
      // A trailing '.' or ':' ends a sentence or starts a port; a letter or digit after it does not.
      const char next = end + 1 < s.size() ? s[end + 1] : ' ';
      const bool after_ok = end == s.size() || !host_char(s[end]) ||
                            ((s[end] == '.' || s[end] == ':') && !is_alnum(next)) ||
                            (s[end] == ':' && std::isdigit(static_cast<unsigned char>(next)));
      if (!before_ok || !after_ok) continue;
      out.append(s, copied, at - copied);
      out.append(kRedactedHost);
      copied = end;
    }
    out.append(s, copied);
    s = std::move(out);
  }
  return s;
}

}  // namespace

// Every occurrence of a value the run knows is secret (a --header value) becomes <redacted>.
static std::string redact_literals(std::string out, const std::vector<std::string>& secrets) {
  for (const auto& secret : secrets) {
    if (secret.size() < kMinLiteralSecretBytes) continue;
    for (size_t at = out.find(secret); at != std::string::npos; at = out.find(secret, at + kRedacted.size()))
      out.replace(at, secret.size(), kRedacted);
  }
  return out;
}

std::string url_user_info(std::string_view url) {
  const Authority a = find_authority(url);
  if (!a.user_info) return "";
  size_t at = a.host_begin - 1;
  if (a.bracketed) at -= 1;  // "[" follows the '@'
  return std::string(url.substr(a.begin, at - a.begin));
}

std::string redact_text(std::string_view text, const RedactOptions& options) {
  std::string out = redact_literals(std::string(text), options.secrets);
  out = redact_urls(out, options);
  out = redact_assignments(out);
  out = redact_key_shapes(out);
  if (options.drop_host) {
    out = redact_paths(out);
    out = redact_host_names(std::move(out), options.hosts);
  }
  return out;
}

std::string redact_command(std::string_view command, const RedactOptions& options) {
  return redact_text(command, options);
}

std::string redact_url(std::string_view url, const RedactOptions& options) {
  std::string out = redact_one_url(redact_literals(std::string(url), options.secrets), options);
  out = redact_key_shapes(out);
  if (options.drop_host) out = redact_host_names(std::move(out), options.hosts);
  return out;
}

std::string url_host(std::string_view url) {
  const Authority a = find_authority(url);
  return std::string(url.substr(a.host_begin, a.host_end - a.host_begin));
}

int url_port(std::string_view url) {
  const Authority a = find_authority(url);
  size_t colon = a.host_end + (a.bracketed ? 1 : 0);
  if (colon >= a.end || url[colon] != ':') return url.starts_with("https://") ? 443 : 80;
  int port = 0;
  for (size_t i = colon + 1; i < a.end; ++i) {
    if (url[i] < '0' || url[i] > '9' || port > 65535) return 0;
    port = port * 10 + (url[i] - '0');
  }
  return port <= 65535 ? port : 0;
}

bool is_redacted(std::string_view text) {
  for (size_t i = text.find('<'); i != std::string_view::npos; i = text.find('<', i + 1))
    if (placeholder_at(text, i)) return true;
  return false;
}

}  // namespace sm
