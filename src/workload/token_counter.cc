#include "workload/token_counter.h"

#include <cmath>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "net/url.h"

namespace sm {

using nlohmann::json;

int64_t count_words(std::string_view s) {
  int64_t n = 0;
  bool in_word = false;
  for (char c : s) {
    bool space = c == ' ' || c == '\n' || c == '\t' || c == '\r';
    if (!space && !in_word) ++n;
    in_word = !space;
  }
  return n;
}

Result<int64_t> LinearTokenCounter::count(const std::string& text) {
  return static_cast<int64_t>(std::llround(overhead_tokens_ + tokens_per_word_ * static_cast<double>(count_words(text))));
}

namespace {

class EndpointCounter final : public TokenCounter {
 public:
  EndpointCounter(EngineKind kind, std::string base_url, std::string model, std::vector<std::string> headers,
                  HttpTransport transport)
      : kind_(kind), base_url_(std::move(base_url)), model_(std::move(model)), headers_(std::move(headers)),
        transport_(std::move(transport)) {}

  Result<int64_t> count(const std::string& text) override {
    std::string path;
    json body;
    switch (kind_) {
      case EngineKind::LlamaCpp:
        path = "/tokenize";
        body = {{"content", text}, {"add_special", true}};
        break;
      case EngineKind::Sglang:
        path = "/v1/tokenize";
        body = {{"model", model_}, {"prompt", text}};
        break;
      case EngineKind::Tgi:
        path = "/tokenize";
        body = {{"inputs", text}};
        break;
      case EngineKind::LmDeploy:
        path = "/v1/encode";
        body = {{"input", text}};
        break;
      default:
        path = "/tokenize";
        body = {{"model", model_}, {"prompt", text}};
        break;
    }
    HttpRequest req{join_url(base_url_, path), body.dump(), headers_};
    auto resp = transport_(req);
    if (!resp) return std::unexpected(resp.error());
    if (resp->status != 200)
      return fail(ErrorCode::Http, fmt::format("POST {}: HTTP {}: {}", path, resp->status, resp->body.substr(0, 300)));
    json j = json::parse(resp->body, nullptr, false);
    if (j.is_array()) return static_cast<int64_t>(j.size());  // TGI: one object per token
    if (j.is_object()) {
      if (auto it = j.find("count"); it != j.end() && it->is_number_integer()) return it->get<int64_t>();
      if (auto it = j.find("length"); it != j.end() && it->is_number_integer()) return it->get<int64_t>();
      if (auto it = j.find("tokens"); it != j.end() && it->is_array()) return static_cast<int64_t>(it->size());
      if (auto it = j.find("input_ids"); it != j.end() && it->is_array()) return static_cast<int64_t>(it->size());
    }
    return fail(ErrorCode::Protocol, fmt::format("POST {}: unexpected response: {}", path, resp->body.substr(0, 300)));
  }
  bool exact() const override { return true; }

 private:
  EngineKind kind_;
  std::string base_url_;
  std::string model_;
  std::vector<std::string> headers_;
  HttpTransport transport_;
};

}  // namespace

std::unique_ptr<TokenCounter> make_endpoint_counter(EngineKind kind, std::string base_url, std::string model,
                                                    std::vector<std::string> headers, HttpTransport transport) {
  return std::make_unique<EndpointCounter>(kind, std::move(base_url), std::move(model), std::move(headers),
                                           std::move(transport));
}

}  // namespace sm
