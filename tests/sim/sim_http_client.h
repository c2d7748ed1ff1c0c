#pragma once
// A small blocking HTTP client for the simulated-server tests (libcurl easy interface), and a
// stream reader that runs what arrives through the project's own SSE decoder and chunk parser.
#include <curl/curl.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engines/chunk_parser.h"
#include "net/curl_global.h"
#include "net/sse_decoder.h"

namespace sm::sim::test {

struct HttpReply {
  long status = 0;      ///< HTTP status; 0 when the transfer failed
  std::string headers;  ///< raw header block (lower-case names as the server sent them)
  std::string body;
};

/// One event of a stream, as the client saw it.
struct StreamEvent {
  std::string data;     ///< the SSE data
  ChunkInfo info;       ///< what ChunkParser made of it
  int64_t arrival_ns;   ///< steady-clock time the bytes carrying it arrived
};

struct StreamReply {
  long status = 0;
  std::string headers;
  std::vector<StreamEvent> events;
  std::string raw;  ///< the whole body
};

inline int64_t steady_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

namespace detail {

inline size_t append_to_string(char* p, size_t size, size_t n, void* user) {
  static_cast<std::string*>(user)->append(p, size * n);
  return size * n;
}

struct StreamState {
  StreamReply* reply;
  SseDecoder decoder;
  ChunkParser parser;
};

inline size_t on_stream_bytes(char* p, size_t size, size_t n, void* user) {
  auto* s = static_cast<StreamState*>(user);
  const int64_t now = steady_ns();
  s->reply->raw.append(p, size * n);
  s->decoder.feed(std::string_view(p, size * n), [&](std::string_view data) {
    StreamEvent e;
    e.data.assign(data);
    s->parser.parse(data, e.info);
    e.arrival_ns = now;
    s->reply->events.push_back(std::move(e));
  });
  return size * n;
}

inline CURL* make_easy(const std::string& url, const std::string* post_body, curl_slist* headers) {
  ensure_curl_global_init();
  CURL* c = curl_easy_init();
  curl_easy_setopt(c, CURLOPT_URL, url.c_str());
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(c, CURLOPT_TIMEOUT, 60L);
  if (post_body) {
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, post_body->c_str());
    curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(post_body->size()));
  }
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers);
  return c;
}

}  // namespace detail

/// GET (post_body null) or POST a JSON body; blocks until the whole reply is in.
inline HttpReply http_request(const std::string& url, const std::string* post_body) {
  HttpReply r;
  curl_slist* headers = curl_slist_append(nullptr, "content-type: application/json");
  CURL* c = detail::make_easy(url, post_body, headers);
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, detail::append_to_string);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &r.body);
  curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, detail::append_to_string);
  curl_easy_setopt(c, CURLOPT_HEADERDATA, &r.headers);
  if (curl_easy_perform(c) == CURLE_OK) curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &r.status);
  curl_easy_cleanup(c);
  curl_slist_free_all(headers);
  return r;
}

inline HttpReply http_get(const std::string& url) { return http_request(url, nullptr); }
inline HttpReply http_post(const std::string& url, const std::string& body) { return http_request(url, &body); }

/// POSTs a streaming request and decodes its events as they arrive.
inline StreamReply http_stream(const std::string& url, const std::string& body) {
  StreamReply r;
  detail::StreamState state{&r, SseDecoder(), ChunkParser()};
  curl_slist* headers = curl_slist_append(nullptr, "content-type: application/json");
  CURL* c = detail::make_easy(url, &body, headers);
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, detail::on_stream_bytes);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &state);
  curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, detail::append_to_string);
  curl_easy_setopt(c, CURLOPT_HEADERDATA, &r.headers);
  if (curl_easy_perform(c) == CURLE_OK) curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &r.status);
  state.decoder.finish([&](std::string_view data) {
    StreamEvent e;
    e.data.assign(data);
    state.parser.parse(data, e.info);
    e.arrival_ns = steady_ns();
    r.events.push_back(std::move(e));
  });
  curl_easy_cleanup(c);
  curl_slist_free_all(headers);
  return r;
}

/// Runs several streaming POSTs at once from this thread (curl multi), so they reach the server
/// together; returns the replies in the order of `bodies`.
inline std::vector<StreamReply> http_stream_many(const std::string& url, const std::vector<std::string>& bodies) {
  std::vector<StreamReply> replies(bodies.size());
  std::vector<std::unique_ptr<detail::StreamState>> states;
  std::vector<CURL*> easies;
  curl_slist* headers = curl_slist_append(nullptr, "content-type: application/json");
  CURLM* multi = curl_multi_init();
  for (size_t i = 0; i < bodies.size(); ++i) {
    states.push_back(std::make_unique<detail::StreamState>(detail::StreamState{&replies[i], SseDecoder(), ChunkParser()}));
    CURL* c = detail::make_easy(url, &bodies[i], headers);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, detail::on_stream_bytes);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, states.back().get());
    curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, detail::append_to_string);
    curl_easy_setopt(c, CURLOPT_HEADERDATA, &replies[i].headers);
    curl_multi_add_handle(multi, c);
    easies.push_back(c);
  }
  int running = 1;
  while (running > 0) {
    curl_multi_perform(multi, &running);
    if (running > 0) curl_multi_poll(multi, nullptr, 0, 100, nullptr);
  }
  for (size_t i = 0; i < easies.size(); ++i) {
    curl_easy_getinfo(easies[i], CURLINFO_RESPONSE_CODE, &replies[i].status);
    curl_multi_remove_handle(multi, easies[i]);
    curl_easy_cleanup(easies[i]);
  }
  curl_multi_cleanup(multi);
  curl_slist_free_all(headers);
  return replies;
}

/// The value of a Prometheus sample `name{...}` whose label text contains `label_part` (empty:
/// any); -1 when absent.
inline double metric_value(const std::string& text, const std::string& name, const std::string& label_part = "") {
  size_t pos = 0;
  while ((pos = text.find(name, pos)) != std::string::npos) {
    bool line_start = pos == 0 || text[pos - 1] == '\n';
    size_t eol = text.find('\n', pos);
    std::string line = text.substr(pos, eol == std::string::npos ? std::string::npos : eol - pos);
    pos += name.size();
    if (!line_start || line.size() <= name.size() || (line[name.size()] != '{' && line[name.size()] != ' ')) continue;
    if (!label_part.empty() && line.find(label_part) == std::string::npos) continue;
    return std::stod(line.substr(line.rfind(' ') + 1));
  }
  return -1;
}

}  // namespace sm::sim::test
