#include "net/http_fetch.h"

#include <curl/curl.h>

#include <fmt/format.h>

#include "net/curl_global.h"

namespace sm {

namespace {

struct Sink {
  std::string* body;
  size_t limit;
  bool overflow = false;
};

size_t write_cb(char* ptr, size_t size, size_t nmemb, void* userdata) {
  auto* sink = static_cast<Sink*>(userdata);
  size_t n = size * nmemb;
  if (sink->body->size() + n > sink->limit) {
    sink->overflow = true;
    return 0;
  }
  sink->body->append(ptr, n);
  return n;
}

}  // namespace

Result<HttpResponse> http_fetch(const HttpRequest& request, const FetchOptions& options) {
  ensure_curl_global_init();
  CURL* easy = curl_easy_init();
  if (!easy) return fail(ErrorCode::Internal, "curl_easy_init failed");
  HttpResponse response;
  Sink sink{&response.body, options.max_body_bytes};
  char error_buf[CURL_ERROR_SIZE] = {0};
  curl_slist* headers = curl_slist_append(nullptr, "Expect:");
  curl_easy_setopt(easy, CURLOPT_URL, request.url.c_str());
  curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, &write_cb);
  curl_easy_setopt(easy, CURLOPT_WRITEDATA, &sink);
  curl_easy_setopt(easy, CURLOPT_ERRORBUFFER, error_buf);
  curl_easy_setopt(easy, CURLOPT_TIMEOUT_MS, static_cast<long>(options.timeout_s * 1000));
  curl_easy_setopt(easy, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(options.connect_timeout_s * 1000));
  apply_connection_options(easy, request.url, options.connection);
  if (!request.body.empty()) {
    headers = curl_slist_append(headers, "Content-Type: application/json");
    curl_easy_setopt(easy, CURLOPT_POSTFIELDS, request.body.data());
    curl_easy_setopt(easy, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(request.body.size()));
  }
  for (const auto& h : request.headers) headers = curl_slist_append(headers, h.c_str());
  headers = append_connection_headers(headers, options.connection);
  curl_easy_setopt(easy, CURLOPT_HTTPHEADER, headers);
  CURLcode code = curl_easy_perform(easy);
  curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &response.status);
  char* content_type = nullptr;
  if (curl_easy_getinfo(easy, CURLINFO_CONTENT_TYPE, &content_type) == CURLE_OK && content_type)
    response.content_type = content_type;
  curl_slist_free_all(headers);
  curl_easy_cleanup(easy);
  if (sink.overflow)
    return fail(ErrorCode::Protocol, fmt::format("{}: response larger than {} bytes", request.url, options.max_body_bytes));
  if (code != CURLE_OK) {
    const char* detail = error_buf[0] ? error_buf : curl_easy_strerror(code);
    return fail(code == CURLE_OPERATION_TIMEDOUT ? ErrorCode::Timeout : ErrorCode::Network,
                fmt::format("{}: {}", request.url, transfer_error_text(code, detail, request.url, options.connection)));
  }
  return response;
}

}  // namespace sm
