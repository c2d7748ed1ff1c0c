#include "engines/completion_response.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace sm {

namespace {

std::string string_member(const nlohmann::json& o, const char* key) {
  auto it = o.find(key);
  return it != o.end() && it->is_string() ? it->get<std::string>() : std::string();
}

}  // namespace

Result<CompletionResponse> parse_completion_response(std::string_view body) {
  const nlohmann::json j = nlohmann::json::parse(body, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return fail(ErrorCode::Protocol, "the answer is not a JSON object");
  if (auto e = j.find("error"); e != j.end() && !e->is_null()) {
    const std::string message = e->is_object() ? string_member(*e, "message") : e->is_string() ? e->get<std::string>() : "";
    return fail(ErrorCode::Http, fmt::format("the server answered an error: {}", message.empty() ? e->dump() : message));
  }
  auto choices = j.find("choices");
  if (choices == j.end() || !choices->is_array() || choices->empty() || !(*choices)[0].is_object())
    return fail(ErrorCode::Protocol, "the answer has no choices");
  const nlohmann::json& choice = (*choices)[0];
  CompletionResponse r;
  if (auto m = choice.find("message"); m != choice.end() && m->is_object()) r.text = string_member(*m, "content");
  else r.text = string_member(choice, "text");
  r.finish_reason = string_member(choice, "finish_reason");
  if (auto u = j.find("usage"); u != j.end() && u->is_object())
    if (auto p = u->find("prompt_tokens"); p != u->end() && p->is_number_integer()) r.prompt_tokens = p->get<int64_t>();
  return r;
}

}  // namespace sm
