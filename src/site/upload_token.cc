#include "site/upload_token.h"

#include <sys/random.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

namespace sm::site {

namespace {

constexpr size_t kSecretBytes = 32;
constexpr size_t kIdBytes = 6;

std::string to_hex(const unsigned char* data, size_t n) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out(n * 2, '0');
  for (size_t i = 0; i < n; ++i) {
    out[2 * i] = kHex[data[i] >> 4];
    out[2 * i + 1] = kHex[data[i] & 0xf];
  }
  return out;
}

Result<void> random_bytes(unsigned char* out, size_t n) {
  size_t done = 0;
  while (done < n) {
    ssize_t got = ::getrandom(out + done, n - done, 0);
    if (got < 0) {
      if (errno == EINTR) continue;
      return fail(ErrorCode::Internal, fmt::format("getrandom: {}", std::strerror(errno)));
    }
    done += static_cast<size_t>(got);
  }
  return {};
}

}  // namespace

Result<NewUploadToken> generate_upload_token() {
  unsigned char secret[kSecretBytes];
  unsigned char id[kIdBytes];
  if (auto ok = random_bytes(secret, sizeof secret); !ok) return std::unexpected(ok.error());
  if (auto ok = random_bytes(id, sizeof id); !ok) return std::unexpected(ok.error());
  NewUploadToken t;
  t.secret = "smt_" + to_hex(secret, sizeof secret);
  t.sha256_hex = sha256_hex(t.secret);
  t.token_id = "tk_" + to_hex(id, sizeof id);
  return t;
}

std::string_view bearer_token(std::string_view authorization) {
  constexpr std::string_view kScheme = "bearer ";
  if (authorization.size() <= kScheme.size()) return {};
  for (size_t i = 0; i < kScheme.size(); ++i) {
    char c = authorization[i];
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    if (c != kScheme[i]) return {};
  }
  std::string_view token = authorization.substr(kScheme.size());
  while (!token.empty() && token.front() == ' ') token.remove_prefix(1);
  while (!token.empty() && (token.back() == ' ' || token.back() == '\t')) token.remove_suffix(1);
  return token;
}

}  // namespace sm::site
