#include "support/scripted_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <fmt/format.h>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <thread>

namespace sm::test {

namespace {

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

int64_t count_prompt_tokens(const json& body) {
  if (auto it = body.find("prompt"); it != body.end()) {
    if (it->is_string()) return count_words(it->get<std::string>());
    if (it->is_array()) return static_cast<int64_t>(it->size());
  }
  if (auto it = body.find("messages"); it != body.end() && it->is_array()) {
    int64_t n = kChatTemplateTokens;
    for (const auto& m : *it)
      if (m.contains("content") && m["content"].is_string()) n += count_words(m["content"].get<std::string>());
    return n;
  }
  return 0;
}

bool write_all(int fd, std::string_view data) {
  while (!data.empty()) {
    ssize_t n = ::send(fd, data.data(), data.size(), MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    data.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

// One HTTP/1.1 chunk of a chunked body.
bool write_chunk(int fd, std::string_view payload) {
  std::string frame = fmt::format("{:x}\r\n", payload.size());
  frame.append(payload);
  frame.append("\r\n");
  return write_all(fd, frame);
}

struct ParsedRequest {
  std::string method;
  std::string path;
  std::string query;
  std::string authorization;
  std::map<std::string, std::string> headers;  ///< name in lower case -> value
  std::string body;
};

std::string lower_case(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

struct ScriptedServer::Impl {
  ScriptedServerOptions options;
  int listen_fd = -1;
  uint16_t port = 0;
  std::atomic<bool> stopping{false};
  std::thread acceptor;
  mutable std::mutex mu;
  std::vector<std::thread> workers;
  std::set<int> open_fds;
  std::vector<ServedRequest> served;
  std::vector<RequestInfo> all;
  uint64_t next_index = 0;

  // Reads one request from the connection; false when the peer closed or sent garbage.
  bool read_request(int fd, std::string& buffer, ParsedRequest& out) {
    size_t header_end;
    while ((header_end = buffer.find("\r\n\r\n")) == std::string::npos) {
      char tmp[65536];
      ssize_t n = ::recv(fd, tmp, sizeof tmp, 0);
      if (n <= 0) return false;
      buffer.append(tmp, static_cast<size_t>(n));
    }
    std::istringstream head(buffer.substr(0, header_end));
    std::string line;
    std::getline(head, line);
    std::istringstream request_line(line);
    request_line >> out.method >> out.path;
    if (size_t q = out.path.find('?'); q != std::string::npos) {
      out.query = out.path.substr(q + 1);
      out.path.resize(q);
    }
    size_t content_length = 0;
    out.headers.clear();
    out.authorization.clear();
    while (std::getline(head, line)) {
      if (!line.empty() && line.back() == '\r') line.pop_back();
      auto colon = line.find(':');
      if (colon == std::string::npos) continue;
      std::string name = line.substr(0, colon);
      for (auto& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      if (size_t v = line.find_first_not_of(' ', colon + 1); v != std::string::npos) out.headers[name] = line.substr(v);
      if (name == "content-length") content_length = std::stoul(line.substr(colon + 1));
      if (name == "authorization")
        if (size_t v = line.find_first_not_of(' ', colon + 1); v != std::string::npos) out.authorization = line.substr(v);
    }
    size_t body_start = header_end + 4;
    while (buffer.size() < body_start + content_length) {
      char tmp[65536];
      ssize_t n = ::recv(fd, tmp, sizeof tmp, 0);
      if (n <= 0) return false;
      buffer.append(tmp, static_cast<size_t>(n));
    }
    out.body = buffer.substr(body_start, content_length);
    buffer.erase(0, body_start + content_length);
    return true;
  }

  bool respond(int fd, int status, std::string_view content_type, std::string_view body) {
    std::string reason = status == 200 ? "OK" : status == 404 ? "Not Found" : status == 401 ? "Unauthorized" : "Error";
    std::string head = fmt::format(
        "HTTP/1.1 {} {}\r\nContent-Type: {}\r\nContent-Length: {}\r\nConnection: keep-alive\r\n\r\n", status,
        reason, content_type, body.size());
    return write_all(fd, head) && write_all(fd, body);
  }

  std::string metrics_text() const {
    if (!options.kv_capacity_tokens) return "";
    int64_t blocks = *options.kv_capacity_tokens / 16;
    return fmt::format(
        "# HELP vllm:cache_config_info Information of the LLMEngine CacheConfig\n"
        "# TYPE vllm:cache_config_info gauge\n"
        "vllm:cache_config_info{{block_size=\"16\",cache_dtype=\"auto\",enable_prefix_caching=\"True\","
        "engine=\"0\",gpu_memory_utilization=\"0.9\",num_gpu_blocks=\"{}\"}} 1.0\n",
        blocks);
  }

  // Streams one completion according to its script. Returns false when the connection must close.
  bool stream_completion(int fd, const json& body, RequestInfo info, int64_t received_ns) {
    StreamScript script = options.script ? options.script(info) : StreamScript{};
    const bool chat = info.path == "/v1/chat/completions";
    if (script.http_status != 200) {
      {
        std::lock_guard lock(mu);
        served.push_back({info, received_ns, {}, {}, 0, false, false});
      }
      return respond(fd, script.http_status, "application/json", script.error_body);
    }
    bool include_usage = false, continuous = false;
    const bool timings = script.llamacpp_style && body.value("timings_per_token", false);
    if (auto it = body.find("stream_options"); it != body.end() && it->is_object()) {
      include_usage = it->value("include_usage", false) && script.honour_include_usage;
      continuous = it->value("continuous_usage_stats", false) && script.honour_continuous_usage;
    }
    const int64_t total = script.output_tokens >= 0 ? script.output_tokens : info.max_tokens;
    const std::string eol = script.crlf ? "\r\n" : "\n";
    const std::string prompt_tokens = std::to_string(info.prompt_tokens + script.prompt_tokens_delta);
    size_t record_index;
    {
      std::lock_guard lock(mu);
      served.push_back({info, received_ns, {}, {}, 0, false, false});
      record_index = served.size() - 1;
    }
    auto mark = [&](auto&& f) {
      std::lock_guard lock(mu);
      f(served[record_index]);
    };
    std::string head =
        "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n"
        "Connection: keep-alive\r\nTransfer-Encoding: chunked\r\n\r\n";
    if (!write_all(fd, head)) return false;
    auto usage_json = [&](int64_t completion) {
      const std::string details =
          script.cached_prompt_tokens >= 0
              ? fmt::format(R"(,"prompt_tokens_details":{{"cached_tokens":{}}})", script.cached_prompt_tokens)
              : std::string();
      return fmt::format(R"("usage":{{"prompt_tokens":{},"completion_tokens":{},"total_tokens":{}{}}})", prompt_tokens,
                         completion, std::stoll(prompt_tokens) + completion, details);
    };
    const std::string rid = ScriptedServer::request_id(info.index);
    auto event = [&](std::string_view data) { return "data: " + with_request_id(data, rid) + eol + eol; };
    auto went_away = [&]() {
      mark([](ServedRequest& r) { r.client_went_away = true; });
      return false;
    };
    if (script.huge_line_bytes > 0) {
      std::string line = "data: " + std::string(script.huge_line_bytes, 'x') + eol + eol;
      if (!write_chunk(fd, line)) return went_away();
    }
    const auto start = std::chrono::steady_clock::now();
    const auto at = [&](int64_t offset_ns) { return start + std::chrono::nanoseconds(offset_ns); };
    if (chat) {
      std::string role = R"({"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]})";
      if (!write_chunk(fd, event(role))) return went_away();
    }
    int64_t sent = 0;
    int64_t chunk_index = 0;
    while (sent < total) {
      if (script.close_after_chunks >= 0 && chunk_index >= script.close_after_chunks) return false;
      if (script.stall_after_chunks >= 0 && chunk_index >= script.stall_after_chunks) {
        if (script.stall_ping_interval_ns > 0) {
          // Keep the connection busy with comments until the client goes away.
          while (!stopping.load()) {
            std::this_thread::sleep_for(std::chrono::nanoseconds(script.stall_ping_interval_ns));
            if (!write_chunk(fd, ": ping" + eol)) return went_away();
          }
          return false;
        }
        while (!stopping.load()) {
          char tmp[256];
          if (::recv(fd, tmp, sizeof tmp, 0) <= 0) break;  // wait until the client gives up
        }
        return false;
      }
      std::this_thread::sleep_until(at(script.ttft_ns + chunk_index * script.token_interval_ns));
      if (script.zero_token_chunk_at == chunk_index) {
        std::string empty = chat ? R"({"choices":[{"index":0,"delta":{"content":""},"finish_reason":null}]})"
                                 : R"({"choices":[{"index":0,"text":"","finish_reason":null}]})";
        if (!write_chunk(fd, event(empty))) return went_away();
      }
      if (script.ping_comments && !write_chunk(fd, ": ping" + eol)) return went_away();
      const int k = static_cast<int>(std::min<int64_t>(script.tokens_per_chunk, total - sent));
      std::string text;
      for (int i = 0; i < k; ++i) text += script.token_text ? script.token_text(sent + i) : fmt::format(" w{}", sent + i);
      if (script.invalid_utf8_at_chunk == chunk_index) text = "\xff\xfe";
      const bool last = sent + k == total && !script.llamacpp_style;
      // Like a real server: "length" when max_tokens was reached, "stop" when the script ends sooner.
      const std::string finish = !last ? "null" : total >= info.max_tokens ? R"("length")" : R"("stop")";
      const bool usage_here = continuous || (last && script.usage_on_last_content_chunk);
      const std::string timing_json =
          timings ? fmt::format(R"(,"timings":{{"predicted_n":{},"predicted_per_second":200.0}})", sent + k) : "";
      std::string data;
      if (script.malformed_at_chunk == chunk_index) {
        data = R"({"choices":[{"index":0,"text":"broken)";
      } else if (chat) {
        const char* field = sent < script.reasoning_tokens ? "reasoning_content" : "content";
        data = fmt::format(R"({{"id":"c","object":"chat.completion.chunk","choices":[{{"index":0,"delta":{{"{}":"{}"}},"finish_reason":{}}}]{}}})",
                           field, text, finish, usage_here ? "," + usage_json(sent + k) : "");
      } else {
        data = fmt::format(R"({{"id":"c","object":"text_completion","choices":[{{"index":0,"text":"{}","finish_reason":{}}}]{}{}}})",
                           text, finish, usage_here ? "," + usage_json(sent + k) : "", timing_json);
      }
      if (!write_chunk(fd, event(data))) return went_away();
      const int64_t t_ns = options.clock->now_ns();
      sent += k;
      ++chunk_index;
      mark([&](ServedRequest& r) {
        r.chunk_sent_ns.push_back(t_ns);
        r.chunk_tokens.push_back(k);
        r.tokens_sent += k;
      });
    }
    if (script.llamacpp_style) {
      // llama-server: the finishing chunk has empty text, the usage and the final timings.
      std::string data = fmt::format(
          R"({{"choices":[{{"text":"","index":0,"finish_reason":"{}"}}],"object":"text_completion",{},"timings":{{"predicted_n":{},"predicted_per_second":200.0}}}})",
          total >= info.max_tokens ? "length" : "stop", usage_json(sent), sent);
      if (!write_chunk(fd, event(data))) return went_away();
    } else if (include_usage && !script.usage_on_last_content_chunk) {
      std::string data = fmt::format(R"({{"id":"c","choices":[],{}}})", usage_json(sent));
      if (!write_chunk(fd, event(data))) return went_away();
    }
    if (script.send_done && !write_chunk(fd, event("[DONE]"))) return went_away();
    if (!write_all(fd, "0\r\n\r\n")) return went_away();
    mark([](ServedRequest& r) { r.completed = true; });
    return true;
  }

  bool handle(int fd, const ParsedRequest& req) {
    const int64_t received_ns = options.clock->now_ns();
    json body = req.body.empty() ? json::object() : json::parse(req.body, nullptr, false);
    RequestInfo info;
    {
      std::lock_guard lock(mu);
      info.index = next_index++;
    }
    info.path = req.path;
    info.query = req.query;
    info.authorization = req.authorization;
    info.headers = req.headers;
    info.body = req.body;
    if (body.is_object()) {
      info.prompt_tokens = count_prompt_tokens(body);
      info.max_tokens = body.value("max_tokens", body.value("max_completion_tokens", int64_t{16}));
    }
    {
      std::lock_guard lock(mu);
      all.push_back(info);
    }
    for (const auto& [name, value] : options.required_headers) {
      auto it = req.headers.find(lower_case(name));
      if (it == req.headers.end() || it->second != value)
        return respond(fd, 401, "application/json",
                       R"({"error":{"code":"401","message":"Access denied due to invalid subscription key or wrong API endpoint."}})");
    }
    if (auto answered = handle_load_route(fd, req, body)) return *answered;
    if (req.path == "/health") return respond(fd, 200, "text/plain", "");
    if (req.path == "/version") return respond(fd, 200, "application/json", R"({"version":"0.0.0-scripted"})");
    if (req.path == "/v1/models") {
      json models = {{"object", "list"},
                     {"data", json::array({{{"id", options.model}, {"object", "model"}, {"owned_by", "vllm"},
                                            {"root", options.model}, {"max_model_len", options.max_model_len}}})}};
      return respond(fd, 200, "application/json", models.dump());
    }
    if (req.path == "/tokenize" && options.tokenize_endpoint && req.method == "POST") {
      if (!body.is_object()) return respond(fd, 400, "application/json", R"({"error":"bad json"})");
      int64_t n = count_prompt_tokens(body);
      json tokens = json::array();
      for (int64_t i = 0; i < n; ++i) tokens.push_back(1000 + i % 100);
      return respond(fd, 200, "application/json",
                     json{{"count", n}, {"max_model_len", options.max_model_len}, {"tokens", tokens}}.dump());
    }
    if ((req.path == "/v1/completions" || req.path == "/v1/chat/completions") && req.method == "POST") {
      if (!body.is_object())
        return respond(fd, 400, "application/json", R"({"error":{"message":"invalid JSON body","code":400}})");
      if (info.prompt_tokens + info.max_tokens > options.max_model_len)
        return respond(fd, 400, "application/json",
                       R"({"error":{"message":"This model's maximum context length is exceeded","code":400}})");
      return stream_tracked(fd, body, info, received_ns);
    }
    return respond(fd, 404, "application/json", R"({"detail":"Not Found"})");
  }

  // --- Server load and request control --------------------------------------------------------
  // Request id -> -1 while it streams, or the /metrics polls it is still reported for after the
  // client cancelled it. Guarded by mu.
  std::map<std::string, int64_t> load;
  std::set<std::string> aborted;
  std::vector<std::string> aborted_in_order;

  static std::string with_request_id(std::string_view data, const std::string& rid) {
    constexpr std::string_view kPlaceholder = R"({"id":"c")";
    if (!data.starts_with(kPlaceholder)) return std::string(data);
    return R"({"id":")" + rid + "\"" + std::string(data.substr(kPlaceholder.size()));
  }

  bool stream_tracked(int fd, const json& body, const RequestInfo& info, int64_t received_ns) {
    const std::string rid = ScriptedServer::request_id(info.index);
    {
      std::lock_guard lock(mu);
      load[rid] = -1;
    }
    const bool keep_open = stream_completion(fd, body, info, received_ns);
    std::lock_guard lock(mu);
    bool cancelled = false;
    for (auto it = served.rbegin(); it != served.rend(); ++it)
      if (it->info.index == info.index) {
        cancelled = it->client_went_away;
        break;
      }
    if (cancelled && options.cancelled_linger_polls > 0 && !aborted.contains(rid))
      load[rid] = options.cancelled_linger_polls;
    else
      load.erase(rid);
    return keep_open;
  }

  // Running and waiting as the flavour's engine names them; each poll ages lingering requests.
  std::string load_metrics_text() {
    int64_t in_flight;
    {
      std::lock_guard lock(mu);
      in_flight = static_cast<int64_t>(load.size());
      for (auto it = load.begin(); it != load.end();) {
        if (it->second > 0 && --it->second == 0)
          it = load.erase(it);
        else
          ++it;
      }
    }
    const int64_t cap = options.metrics_running_cap;
    const int64_t running = cap >= 0 ? std::min(in_flight, cap) : in_flight;
    const int64_t waiting = in_flight - running;
    if (options.flavour == ScriptedFlavour::Sglang)
      return fmt::format(
          "# TYPE sglang:num_running_reqs gauge\n"
          "sglang:num_running_reqs{{engine_type=\"unified\",model_name=\"{0}\",tp_rank=\"0\"}} {1}.0\n"
          "# TYPE sglang:num_queue_reqs gauge\n"
          "sglang:num_queue_reqs{{engine_type=\"unified\",model_name=\"{0}\",tp_rank=\"0\"}} {2}.0\n",
          options.model, running, waiting);
    return fmt::format(
        "# TYPE vllm:num_requests_running gauge\n"
        "vllm:num_requests_running{{engine=\"0\",model_name=\"{0}\"}} {1}.0\n"
        "# TYPE vllm:num_requests_waiting gauge\n"
        "vllm:num_requests_waiting{{engine=\"0\",model_name=\"{0}\"}} {2}.0\n",
        options.model, running, waiting);
  }

  // Answers /metrics and the SGLang flavour's routes; nullopt: not one of these.
  std::optional<bool> handle_load_route(int fd, const ParsedRequest& req, const json& body) {
    const bool sglang = options.flavour == ScriptedFlavour::Sglang;
    if (req.path == "/metrics") {
      const bool cache_info = options.kv_capacity_tokens && !sglang;
      if (!options.load_metrics && !cache_info && !options.extra_metrics)
        return respond(fd, 404, "application/json", R"({"detail":"Not Found"})");
      std::string text = cache_info ? metrics_text() : "";
      if (options.load_metrics) text += load_metrics_text();
      if (options.extra_metrics) text += options.extra_metrics();
      return respond(fd, 200, "text/plain; version=0.0.4", text);
    }
    if (!sglang) return std::nullopt;
    if (req.path == "/get_server_info") {
      json info = {{"version", "0.0.0-scripted"}, {"context_length", options.max_model_len},
                   {"max_running_requests", options.max_running_requests}, {"disable_radix_cache", false}};
      if (options.kv_capacity_tokens) info["max_total_num_tokens"] = *options.kv_capacity_tokens;
      return respond(fd, 200, "application/json", info.dump());
    }
    if (req.path == "/v1/tokenize" && req.method == "POST" && body.is_object()) {
      const int64_t n = count_prompt_tokens(body);
      json tokens = json::array();
      for (int64_t i = 0; i < n; ++i) tokens.push_back(1000 + i % 100);
      return respond(fd, 200, "application/json",
                     json{{"count", n}, {"max_model_len", options.max_model_len}, {"tokens", tokens}}.dump());
    }
    if (req.path == "/abort_request" && req.method == "POST") {
      const std::string rid = body.is_object() && body.contains("rid") && body["rid"].is_string()
                                  ? body["rid"].get<std::string>()
                                  : "";
      if (rid.empty()) return respond(fd, 400, "application/json", R"({"error":"rid is required"})");
      {
        std::lock_guard lock(mu);
        aborted.insert(rid);
        aborted_in_order.push_back(rid);
        load.erase(rid);  // the engine drops it at once
      }
      return respond(fd, 200, "application/json", "");
    }
    return std::nullopt;
  }

  void serve_connection(int fd) {
    std::string buffer;
    ParsedRequest req;
    while (!stopping.load() && read_request(fd, buffer, req)) {
      if (!handle(fd, req)) break;
    }
    std::lock_guard lock(mu);
    if (open_fds.erase(fd)) ::close(fd);
  }

  void accept_loop() {
    while (!stopping.load()) {
      int fd = ::accept4(listen_fd, nullptr, nullptr, SOCK_CLOEXEC);
      if (fd < 0) {
        if (stopping.load()) return;
        continue;
      }
      int one = 1;
      setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
      std::lock_guard lock(mu);
      open_fds.insert(fd);
      workers.emplace_back([this, fd] { serve_connection(fd); });
    }
  }
};

ScriptedServer::ScriptedServer(ScriptedServerOptions options) : impl_(std::make_unique<Impl>()) {
  impl_->options = std::move(options);
  impl_->listen_fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  int one = 1;
  setsockopt(impl_->listen_fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  if (::bind(impl_->listen_fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      ::listen(impl_->listen_fd, 1024) != 0) {
    std::perror("scripted server: bind/listen");
    std::abort();
  }
  socklen_t len = sizeof addr;
  getsockname(impl_->listen_fd, reinterpret_cast<sockaddr*>(&addr), &len);
  impl_->port = ntohs(addr.sin_port);
  impl_->acceptor = std::thread([this] { impl_->accept_loop(); });
}

ScriptedServer::~ScriptedServer() { stop(); }

uint16_t ScriptedServer::port() const { return impl_->port; }

std::string ScriptedServer::url() const { return fmt::format("http://127.0.0.1:{}", impl_->port); }

std::vector<ServedRequest> ScriptedServer::records() const {
  std::lock_guard lock(impl_->mu);
  return impl_->served;
}

std::vector<RequestInfo> ScriptedServer::all_requests() const {
  std::lock_guard lock(impl_->mu);
  return impl_->all;
}

std::string ScriptedServer::request_id(uint64_t index) { return fmt::format("scripted-{}", index); }

std::vector<std::string> ScriptedServer::aborted_ids() const {
  std::lock_guard lock(impl_->mu);
  return impl_->aborted_in_order;
}

void ScriptedServer::stop() {
  if (impl_->stopping.exchange(true)) return;
  ::shutdown(impl_->listen_fd, SHUT_RDWR);
  ::close(impl_->listen_fd);
  if (impl_->acceptor.joinable()) impl_->acceptor.join();
  std::vector<std::thread> workers;
  {
    std::lock_guard lock(impl_->mu);
    for (int fd : impl_->open_fds) ::shutdown(fd, SHUT_RDWR);
    workers = std::move(impl_->workers);
  }
  for (auto& t : workers) t.join();
}

}  // namespace sm::test
