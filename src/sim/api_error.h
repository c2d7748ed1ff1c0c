#pragma once
// An HTTP error the simulated server answers with, in vLLM's OpenAI-style error body:
// {"error":{"message":...,"type":...,"param":...,"code":N}}.
#include <string>

namespace sm::sim {

struct ApiError {
  int status = 400;                    ///< HTTP status (400, 404, ...)
  std::string type = "BadRequestError";  ///< OpenAI error type
  std::string message;                 ///< human text, vLLM's wording where vLLM has one
  std::string param;                   ///< offending request field; empty = null

  /// The JSON body.
  std::string body() const;

  static ApiError bad_request(std::string message, std::string param = {}) {
    return ApiError{400, "BadRequestError", std::move(message), std::move(param)};
  }
  static ApiError not_found(std::string message, std::string param = {}) {
    return ApiError{404, "NotFoundError", std::move(message), std::move(param)};
  }
};

}  // namespace sm::sim
