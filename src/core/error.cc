#include "core/error.h"

namespace sm {

std::string_view to_string(ErrorCode code) {
  switch (code) {
    case ErrorCode::InvalidArgument: return "invalid_argument";
    case ErrorCode::Io: return "io";
    case ErrorCode::Network: return "network";
    case ErrorCode::Timeout: return "timeout";
    case ErrorCode::Http: return "http";
    case ErrorCode::Protocol: return "protocol";
    case ErrorCode::Unsupported: return "unsupported";
    case ErrorCode::Interrupted: return "interrupted";
    case ErrorCode::Internal: return "internal";
  }
  return "unknown";
}

std::string Error::describe() const { return std::string(to_string(code)) + ": " + message; }

void check_failed(const char* expr, const char* file, int line, const char* msg) {
  std::fprintf(stderr, "speedmatrix: internal check failed: %s (%s) at %s:%d\n", msg, expr, file, line);
  std::abort();
}

}  // namespace sm
