#include "net/round_trip.h"

#include <curl/curl.h>

#include <algorithm>
#include <fmt/format.h>

#include "net/curl_global.h"

namespace sm {

namespace {

size_t discard_cb(char*, size_t size, size_t nmemb, void*) { return size * nmemb; }

std::string version_text(long v) {
  switch (v) {
    case CURL_HTTP_VERSION_1_0: return "1.0";
    case CURL_HTTP_VERSION_1_1: return "1.1";
    case CURL_HTTP_VERSION_2_0: return "2";
    case CURL_HTTP_VERSION_3: return "3";
    default: return "";
  }
}

}  // namespace

Result<RoundTrip> measure_round_trip(const HttpRequest& request, const ConnectionOptions& connection, int count,
                                     double timeout_s) {
  ensure_curl_global_init();
  CURL* easy = curl_easy_init();
  if (!easy) return fail(ErrorCode::Internal, "curl_easy_init failed");
  char error_buf[CURL_ERROR_SIZE] = {0};
  curl_slist* headers = nullptr;
  for (const auto& h : request.headers) headers = curl_slist_append(headers, h.c_str());
  headers = append_connection_headers(headers, connection);
  curl_easy_setopt(easy, CURLOPT_URL, request.url.c_str());
  curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(easy, CURLOPT_TCP_NODELAY, 1L);
  curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, &discard_cb);
  curl_easy_setopt(easy, CURLOPT_ERRORBUFFER, error_buf);
  curl_easy_setopt(easy, CURLOPT_TIMEOUT_MS, static_cast<long>(timeout_s * 1000));
  curl_easy_setopt(easy, CURLOPT_HTTPHEADER, headers);
  apply_connection_options(easy, request.url, connection);
  RoundTrip out;
  Result<RoundTrip> result = out;
  // One more than asked: the first opens the connection and is not counted.
  for (int i = 0; i <= count; ++i) {
    error_buf[0] = 0;
    const CURLcode code = curl_easy_perform(easy);
    if (code != CURLE_OK) {
      const char* detail = error_buf[0] ? error_buf : curl_easy_strerror(code);
      result = fail(code == CURLE_OPERATION_TIMEDOUT ? ErrorCode::Timeout : ErrorCode::Network,
                    fmt::format("{}: {}", request.url, transfer_error_text(code, detail, request.url, connection)));
      break;
    }
    long version = 0;
    curl_easy_getinfo(easy, CURLINFO_HTTP_VERSION, &version);
    curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &out.http_status);
    out.http_version = version_text(version);
    if (i == 0) continue;
    // Both are from the transfer's start; their difference is send -> first byte, whatever a
    // (reused) connection's setup cost.
    curl_off_t pretransfer_us = 0, first_byte_us = 0;
    curl_easy_getinfo(easy, CURLINFO_PRETRANSFER_TIME_T, &pretransfer_us);
    curl_easy_getinfo(easy, CURLINFO_STARTTRANSFER_TIME_T, &first_byte_us);
    out.samples_ms.push_back(static_cast<double>(std::max<curl_off_t>(0, first_byte_us - pretransfer_us)) / 1e3);
  }
  curl_slist_free_all(headers);
  curl_easy_cleanup(easy);
  if (!result) return result;
  if (!out.samples_ms.empty()) {
    std::vector<double> sorted = out.samples_ms;
    std::sort(sorted.begin(), sorted.end());
    const size_t n = sorted.size();
    out.median_ms = n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  }
  return out;
}

}  // namespace sm
