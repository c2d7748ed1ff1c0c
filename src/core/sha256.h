#pragma once
// SHA-256 as lower-case hex (OpenSSL's EVP): upload tokens, content hashes, prediction ids.
#include <string>
#include <string_view>

namespace sm {

std::string sha256_hex(std::string_view data);

}  // namespace sm
