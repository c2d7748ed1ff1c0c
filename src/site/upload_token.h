#pragma once
// Upload tokens: 32 random bytes shown once as "smt_" + 64 hex digits; the store keeps only
// their SHA-256, so a copy of the database grants no upload rights.
//
//   auto token = sm::site::generate_upload_token();      // Result<NewUploadToken>
//   store.create_token({.token_id = token->token_id, ...}, token->sha256_hex);
//   std::puts(token->secret.c_str());                      // the only time it is shown
#include <string>
#include <string_view>

#include "core/error.h"
#include "core/sha256.h"  // sha256_hex: what the store keeps of a token

namespace sm::site {

using sm::sha256_hex;

/// A freshly made token.
struct NewUploadToken {
  std::string secret;      ///< "smt_" + 64 hex digits: what the uploader sends as Bearer token
  std::string sha256_hex;  ///< SHA-256 of `secret`, lower-case hex: what the store keeps
  std::string token_id;    ///< public id "tk_" + 12 hex digits, for listing and revoking
};

/// Makes a token from the kernel's random source (getrandom). Fails only if that fails.
Result<NewUploadToken> generate_upload_token();

/// The token of an "Authorization: Bearer TOKEN" header value; empty when it has none.
std::string_view bearer_token(std::string_view authorization);

}  // namespace sm::site
