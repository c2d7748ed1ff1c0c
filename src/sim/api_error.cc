#include "sim/api_error.h"

#include "sim/json_text.h"

namespace sm::sim {

std::string ApiError::body() const {
  std::string out = R"({"error":{"message":")";
  append_json_escaped(out, message);
  out += R"(","type":")";
  append_json_escaped(out, type);
  out += R"(","param":)";
  if (param.empty()) {
    out += "null";
  } else {
    out += '"';
    append_json_escaped(out, param);
    out += '"';
  }
  out += R"(,"code":)";
  append_int(out, status);
  out += "}}";
  return out;
}

}  // namespace sm::sim
