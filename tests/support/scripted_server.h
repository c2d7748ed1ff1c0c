#pragma once
// A scripted OpenAI-compatible streaming server for tests. It listens on 127.0.0.1 port 0,
// answers like vLLM (/v1/models with max_model_len, /version, /tokenize, /metrics with
// cache_config_info), and streams completions on a per-request script: TTFT, token interval,
// tokens per chunk, and faults. It keeps its own record of what it sent and when (stamped after
// each write, on the same monotonic clock the client uses), so tests compare the client's
// numbers with what actually happened, not with the nominal script.
//
// Tokenizer: one token per whitespace-separated word of the prompt (a token-id array prompt
// counts its elements); chat prompts add kChatTemplateTokens. Output tokens are the word " tok".
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/clock.h"

namespace sm::test {

constexpr int64_t kChatTemplateTokens = 3;

/// What the server does with one streaming request. Times are from the request's receipt.
struct StreamScript {
  int64_t ttft_ns = 20 * kNsPerMs;            ///< receipt -> first token chunk written
  int64_t token_interval_ns = 5 * kNsPerMs;   ///< between consecutive token chunks
  int tokens_per_chunk = 1;                   ///< tokens carried by each content chunk
  int64_t reasoning_tokens = 0;               ///< chat: the first this many tokens stream as
                                              ///< delta "reasoning_content" (a reasoning model's
                                              ///< thinking, as vLLM and SGLang send it), the rest as content
  int64_t output_tokens = -1;                 ///< tokens to produce; -1 = the request's max_tokens
  bool honour_include_usage = true;           ///< send the final usage chunk when asked
  bool honour_continuous_usage = true;        ///< put usage on every chunk when asked
  bool send_done = true;                      ///< end with "data: [DONE]"
  int64_t prompt_tokens_delta = 0;            ///< reported usage.prompt_tokens = counted + delta
  int64_t cached_prompt_tokens = -1;          ///< >= 0: usage.prompt_tokens_details.cached_tokens (vLLM's
                                              ///< prefix-cache hit with --enable-prompt-tokens-details)
  bool llamacpp_style = false;                ///< like llama-server: usage on a separate finishing
                                              ///< chunk (empty text), cumulative timings.predicted_n
                                              ///< on every chunk when timings_per_token is asked
  // Faults.
  int http_status = 200;                      ///< non-200: answer this status with error_body
  std::string error_body = R"({"error":{"message":"scripted failure","code":500}})";
  int64_t close_after_chunks = -1;            ///< drop the connection after this many chunks
  int64_t stall_after_chunks = -1;            ///< stop sending (connection stays open) after this many
  int64_t malformed_at_chunk = -1;            ///< chunk index sent as broken JSON
  int64_t invalid_utf8_at_chunk = -1;         ///< chunk index whose text holds invalid UTF-8
  int64_t zero_token_chunk_at = -1;           ///< send an extra chunk with empty text before this index
  size_t huge_line_bytes = 0;                 ///< first send one SSE line this long
  bool ping_comments = false;                 ///< ": ping" comment lines between chunks
  bool crlf = false;                          ///< CRLF line ends instead of LF
  // Stream shapes and servers that do not stop (token accounting, hang-proofing).
  bool usage_on_last_content_chunk = false;   ///< the final usage (the total) rides on the last chunk
                                              ///< with text, and no separate usage chunk follows
  int64_t stall_ping_interval_ns = 0;         ///< while stalled (stall_after_chunks), send ": ping"
                                              ///< this often: bytes flow, no token ever comes
  /// The text of output token `i` (0, 1, ...), JSON-escaped; empty = varied words like a model's
  /// (" w1 w2 …": no output check trips). Output checks script loops and non-text with it.
  std::function<std::string(int64_t)> token_text;
};

/// What the server knows of a request when it picks a script.
struct RequestInfo {
  uint64_t index = 0;         ///< 0, 1, 2, ... in arrival order (all routes)
  std::string path;           ///< e.g. "/v1/completions"
  std::string query;          ///< after the '?' of the request target, e.g. "api_key=k"
  std::string authorization;  ///< the Authorization header's value, e.g. "Bearer k"
  std::map<std::string, std::string> headers;  ///< every header, name in lower case -> value
  std::string body;           ///< raw JSON body
  int64_t prompt_tokens = 0;  ///< counted by the server's tokenizer
  int64_t max_tokens = 0;     ///< from max_tokens / max_completion_tokens
};

/// The server's record of one completion request.
struct ServedRequest {
  RequestInfo info;
  int64_t received_ns = 0;             ///< when the whole request had been read
  std::vector<int64_t> chunk_sent_ns;  ///< when each token-bearing chunk was written
  std::vector<int> chunk_tokens;       ///< tokens each of those chunks carried
  int64_t tokens_sent = 0;             ///< sum of chunk_tokens
  bool completed = false;              ///< the stream ended normally
  bool client_went_away = false;       ///< a write failed: the client closed the stream
};

/// Which engine the scripted server's load metrics and control routes imitate.
enum class ScriptedFlavour : uint8_t {
  Vllm,    ///< /metrics vllm:num_requests_running / waiting (and cache_config_info)
  Sglang,  ///< /get_server_info, /v1/tokenize, /metrics sglang:num_running_reqs / num_queue_reqs,
           ///< POST /abort_request {"rid": ...}
};

struct ScriptedServerOptions {
  /// Picks the script of each completion request (default: StreamScript{}).
  std::function<StreamScript(const RequestInfo&)> script;
  std::string model = "scripted-model";
  int64_t max_model_len = 32768;
  std::optional<int64_t> kv_capacity_tokens = 1 << 20;  ///< served as vLLM cache_config_info; nullopt = none
  bool tokenize_endpoint = true;
  const Clock* clock = &SteadyClock::instance();

  // --- Server load and request control (idle barrier, server-side concurrency, SGLang aborts) ---
  ScriptedFlavour flavour = ScriptedFlavour::Vllm;
  /// /metrics reports the streams really in flight as running (and 0 waiting). Off, and with no
  /// kv_capacity_tokens, the server has no /metrics at all (an engine without load metrics).
  bool load_metrics = true;
  /// Report at most this many as running and the rest as waiting, as an engine that queues
  /// would (-1: no cap). Only the report changes; every stream still streams.
  int64_t metrics_running_cap = -1;
  /// A stream the client cancelled is still reported running for this many more /metrics polls
  /// (an engine that keeps generating after the client left), unless /abort_request names it.
  int64_t cancelled_linger_polls = 0;
  /// SGLang flavour: the max_running_requests /get_server_info reports (the probe's slots).
  int64_t max_running_requests = 256;
  /// More /metrics lines in the flavour's own names (an engine's speculative-decoding counters,
  /// say), asked for on every poll; /metrics is served when this is set even without load metrics.
  std::function<std::string()> extra_metrics;

  // --- A gateway in front of the engine ---
  /// Every request on every route must carry these headers (name, any case -> exact value), as
  /// an API gateway's key check (Azure's "api-key: ..."); one without is answered 401.
  std::map<std::string, std::string> required_headers;
};

class ScriptedServer {
 public:
  explicit ScriptedServer(ScriptedServerOptions options = {});
  ~ScriptedServer();
  ScriptedServer(const ScriptedServer&) = delete;
  ScriptedServer& operator=(const ScriptedServer&) = delete;

  uint16_t port() const;
  /// "http://127.0.0.1:<port>"
  std::string url() const;
  /// Snapshot of every completion request served so far (thread-safe).
  std::vector<ServedRequest> records() const;
  /// Requests received on any route, in order (path + body), thread-safe.
  std::vector<RequestInfo> all_requests() const;
  /// Stops accepting, closes every connection, joins all threads. Idempotent.
  void stop();

  // --- Server load and request control ---
  /// The id every chunk of completion request `index` (RequestInfo::index) carries.
  static std::string request_id(uint64_t index);
  /// Ids named by POST /abort_request (SGLang flavour), in arrival order (thread-safe).
  std::vector<std::string> aborted_ids() const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace sm::test
