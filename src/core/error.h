#pragma once
// Expected failures are values (Result<T>); broken invariants abort (SM_CHECK).
#include <cstdio>
#include <cstdlib>
#include <expected>
#include <string>
#include <string_view>

namespace sm {

/// Kind of an expected failure. Per-request failures are data, counted by kind.
enum class ErrorCode {
  InvalidArgument,  ///< bad flag, bad file content, bad request from the user
  Io,               ///< file system: open, write, rename, disk full
  Network,          ///< connect refused, DNS, reset, TLS
  Timeout,          ///< connect or read timeout
  Http,             ///< the server answered with a non-2xx status
  Protocol,         ///< malformed stream, bad JSON, oversized line
  Unsupported,      ///< the engine cannot do what was asked
  Interrupted,      ///< Ctrl-C or SIGTERM
  Internal,         ///< a bug in speedmatrix
};

std::string_view to_string(ErrorCode code);

/// An error: a code plus human context ("GET /props: HTTP 401: ...").
struct Error {
  ErrorCode code = ErrorCode::Internal;
  std::string message;

  std::string describe() const;
};

template <class T>
using Result = std::expected<T, Error>;

/// Shorthand for returning an error: `return fail(ErrorCode::Io, "cannot open " + path);`
inline std::unexpected<Error> fail(ErrorCode code, std::string message) {
  return std::unexpected<Error>(Error{code, std::move(message)});
}

[[noreturn]] void check_failed(const char* expr, const char* file, int line, const char* msg);

}  // namespace sm

/// Invariant check that stays on in release builds. Never use it on what a server sends.
#define SM_CHECK(expr, msg)                                      \
  do {                                                           \
    if (!(expr)) ::sm::check_failed(#expr, __FILE__, __LINE__, msg); \
  } while (0)
