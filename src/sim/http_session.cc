#include "sim/http_session.h"

#include <boost/asio/write.hpp>
#include <boost/beast/http/read.hpp>

#include <nlohmann/json.hpp>

#include "core/clock.h"
#include "sim/json_text.h"
#include "sim/output_vocabulary.h"
#include "sim/sim_engine.h"
#include "sim/sim_tokenizer.h"

namespace sm::sim {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = boost::beast::http;

namespace {

constexpr uint64_t kMaxBodyBytes = uint64_t{256} << 20;  // a 256K-token prompt is a few MB
constexpr size_t kWatchReadBytes = 4096;
constexpr std::string_view kHttpChunkPlaceholder = "00000000\r\n";  // patched with the size

std::string_view reason_phrase(int status) {
  switch (status) {
    case 200: return "OK";
    case 400: return "Bad Request";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 413: return "Payload Too Large";
    default: return "Error";
  }
}

int64_t unix_now_s() { return wall_clock_unix_ms() / 1000; }

// Starts an HTTP/1.1 chunk whose size is patched by end_http_chunk (leading zeros are valid).
size_t begin_http_chunk(std::string& out) {
  out.append(kHttpChunkPlaceholder);
  return out.size();
}

void end_http_chunk(std::string& out, size_t data_start) {
  static constexpr char kHex[] = "0123456789abcdef";
  size_t n = out.size() - data_start;
  char* p = out.data() + data_start - kHttpChunkPlaceholder.size();
  for (int i = 7; i >= 0; --i, n >>= 4) p[i] = kHex[n & 0xf];
  out.append("\r\n");
}

std::string models_body(const SimEngine& engine) {
  const SimConfig& c = engine.config();
  const int64_t created = unix_now_s();
  nlohmann::json card = {
      {"id", c.model_id()},
      {"object", "model"},
      {"created", created},
      {"owned_by", "vllm"},
      {"root", c.model_name},
      {"parent", nullptr},
      {"max_model_len", c.max_model_len},
      {"permission",
       nlohmann::json::array({{{"id", "modelperm-simulated"},
                               {"object", "model_permission"},
                               {"created", created},
                               {"allow_create_engine", false},
                               {"allow_sampling", true},
                               {"allow_logprobs", true},
                               {"allow_search_indices", false},
                               {"allow_view", true},
                               {"allow_fine_tuning", false},
                               {"organization", "*"},
                               {"group", nullptr},
                               {"is_blocking", false}}})},
  };
  return nlohmann::json{{"object", "list"}, {"data", nlohmann::json::array({card})}}.dump();
}

}  // namespace

HttpSession::HttpSession(asio::ip::tcp::socket socket, SimEngine& engine, SessionRegistry& registry)
    : socket_(std::move(socket)), engine_(engine), registry_(registry) {
  registry_.insert(this);
  engine_.on_connection_opened();
  boost::system::error_code ec;
  socket_.set_option(asio::ip::tcp::no_delay(true), ec);  // a token chunk must not wait for Nagle
}

HttpSession::~HttpSession() { registry_.erase(this); }

void HttpSession::start() { read_header(); }

void HttpSession::force_close() {
  active_ = false;  // the engine already dropped every request
  self_ref_.reset();
  close();
}

void HttpSession::close() {
  if (closed_) return;
  end_request();
  closed_ = true;
  boost::system::error_code ec;
  socket_.shutdown(asio::ip::tcp::socket::shutdown_both, ec);
  socket_.close(ec);
  engine_.on_connection_closed();
}

void HttpSession::end_request() {
  if (!active_) return;
  active_ = false;
  engine_.abort(request_id_);
  self_ref_.reset();  // callers run inside a handler that holds its own reference
}

void HttpSession::read_header() {
  if (closed_) return;
  parser_.emplace();
  parser_->body_limit(kMaxBodyBytes);
  http::async_read_header(socket_, buffer_, *parser_,
                          [self = shared_from_this()](const boost::system::error_code& ec, size_t) { self->on_header(ec); });
}

void HttpSession::on_header(const boost::system::error_code& ec) {
  if (ec) return close();  // end of stream between requests is the normal way out
  const auto& req = parser_->get();
  auto expect = req[http::field::expect];
  if (beast::iequals(expect, "100-continue")) {
    // libcurl waits up to a second for this before sending a large body.
    static constexpr std::string_view kContinue = "HTTP/1.1 100 Continue\r\n\r\n";
    asio::async_write(socket_, asio::buffer(kContinue.data(), kContinue.size()),
                      [self = shared_from_this()](const boost::system::error_code& wec, size_t) {
                        if (wec) return self->close();
                        self->read_body();
                      });
    return;
  }
  read_body();
}

void HttpSession::read_body() {
  http::async_read(socket_, buffer_, *parser_,
                   [self = shared_from_this()](const boost::system::error_code& ec, size_t) { self->on_body(ec); });
}

void HttpSession::on_body(const boost::system::error_code& ec) {
  if (ec == http::error::body_limit) {
    keep_alive_ = false;
    return respond_json(413, ApiError{413, "BadRequestError", "request body too large", {}}.body());
  }
  if (ec) return close();
  engine_.on_http_request();
  handle_request();
}

void HttpSession::handle_request() {
  const auto& req = parser_->get();
  keep_alive_ = req.keep_alive();
  std::string target(req.target().data(), req.target().size());  // the parser is released below
  if (auto q = target.find('?'); q != std::string::npos) target.resize(q);
  const http::verb method = req.method();
  const bool get = method == http::verb::get;
  const bool post = method == http::verb::post;
  std::string body = std::move(parser_->get().body());
  parser_.reset();

  auto route = [&](bool method_ok, auto&& action) {
    if (!method_ok) return respond_json(405, R"({"detail":"Method Not Allowed"})");
    action();
  };
  if (target == "/v1/completions") return route(post, [&] { start_generation(false, body); });
  if (target == "/v1/chat/completions") return route(post, [&] { start_generation(true, body); });
  if (target == "/health") return route(get, [&] { respond(200, "application/json", ""); });
  if (target == "/ping") return route(get || post, [&] { respond(200, "application/json", ""); });
  if (target == "/version")
    return route(get, [&] {
      std::string out = R"({"version":")";
      append_json_escaped(out, engine_.config().engine_version + "-sim");
      out += "\"}";
      respond_json(200, out);
    });
  if (target == "/v1/models") return route(get, [&] { respond_json(200, models_body(engine_)); });
  if (target == "/tokenize") return route(post, [&] { tokenize(body); });
  if (target == "/detokenize") return route(post, [&] { detokenize(body); });
  if (target == "/metrics")
    return route(get, [&] { respond(200, "text/plain; version=0.0.4; charset=utf-8", engine_.metrics_text()); });
  respond_json(404, R"({"detail":"Not Found"})");
}

void HttpSession::tokenize(std::string_view body) {
  auto tokens = engine_.parser().parse_tokenize(body, engine_.limits());
  if (!tokens) return respond_json(tokens.error().status, tokens.error().body());
  const std::vector<int32_t>& t = **tokens;
  std::string out = R"({"count":)";
  out.reserve(64 + t.size() * 7);
  append_int(out, static_cast<int64_t>(t.size()));
  out += R"(,"max_model_len":)";
  append_int(out, engine_.config().max_model_len);
  out += R"(,"tokens":[)";
  for (size_t i = 0; i < t.size(); ++i) {
    if (i > 0) out += ',';
    append_int(out, t[i]);
  }
  out += R"(],"token_strs":null})";
  respond_json(200, out);
}

void HttpSession::detokenize(std::string_view body) {
  auto tokens = engine_.parser().parse_detokenize(body);
  if (!tokens) return respond_json(tokens.error().status, tokens.error().body());
  // Ids are hashes, so only output words and template tokens map back to their text; any other
  // id comes back as a placeholder word of one token.
  std::string text;
  for (int32_t id : *tokens) {
    switch (id) {
      case SimTokenizer::kImStartId: text += "<|im_start|>"; continue;
      case SimTokenizer::kImEndId: text += "<|im_end|>"; continue;
      case SimTokenizer::kNewlineId: text += "\n"; continue;
      case SimTokenizer::kEosId: continue;
      default: break;
    }
    std::string_view word = OutputVocabulary::instance().text_of_id(id);
    if (!word.empty()) text += word;
    else text += " <" + std::to_string(id) + ">";
  }
  std::string out = R"({"prompt":")";
  append_json_escaped(out, text);
  out += "\"}";
  respond_json(200, out);
}

void HttpSession::start_generation(bool chat, std::string_view body) {
  auto parsed = engine_.parser().parse_generation(body, chat, engine_.limits());
  if (!parsed) return respond_json(parsed.error().status, parsed.error().body());
  stream_ = parsed->stream;
  include_usage_ = parsed->include_usage;
  role_sent_ = false;
  sent_tokens_ = 0;
  stream_request_.chat = chat;
  stream_request_.continuous_usage = parsed->continuous_usage;
  stream_request_.return_token_ids = parsed->return_token_ids;
  stream_request_.text_seed = parsed->text_seed;
  ChunkFormatter::set_answer(stream_request_, parsed->answer);
  stream_request_.prompt_tokens = parsed->spec.prompt_tokens;
  engine_.formatter().make_head(stream_request_, engine_.next_request_number(), unix_now_s(), stream_);
  if (stream_) {
    // Starlette sends a streaming response's head before its first chunk; so do we.
    out_pending_.append("HTTP/1.1 200 OK\r\ncontent-type: text/event-stream; charset=utf-8\r\n"
                        "transfer-encoding: chunked\r\nx-speedmatrix-simulated: true\r\n"
                        "server: speedmatrix-sim\r\n");
    if (!keep_alive_) out_pending_.append("connection: close\r\n");
    out_pending_.append("\r\n");
    flush();
  }
  active_ = true;
  self_ref_ = shared_from_this();
  request_id_ = engine_.submit(std::move(parsed->spec), this);
  watch_connection();
}

void HttpSession::on_tokens(const TokenUpdate& u) {
  const bool finished = u.finish != FinishKind::None;
  std::shared_ptr<HttpSession> keep = finished ? std::move(self_ref_) : nullptr;  // outlive this call
  if (finished) active_ = false;
  const ChunkFormatter& f = engine_.formatter();
  if (!stream_) {
    if (finished) respond_json(200, f.full_body(stream_request_, u.generated, u.finish, u.eos));
    return;
  }
  if (!finished && u.generated - sent_tokens_ < engine_.config().stream_interval) return;
  size_t data_start = begin_http_chunk(out_pending_);
  if (stream_request_.chat && !role_sent_) {
    f.append_role_event(out_pending_, stream_request_);
    role_sent_ = true;
  }
  f.append_token_event(out_pending_, stream_request_, sent_tokens_, u.generated, u.finish, u.eos);
  sent_tokens_ = u.generated;
  if (finished) {
    if (include_usage_) f.append_usage_event(out_pending_, stream_request_, u.generated, u.cached_prompt_tokens);
    ChunkFormatter::append_done(out_pending_);
  }
  end_http_chunk(out_pending_, data_start);
  if (finished) {
    out_pending_.append("0\r\n\r\n");
    response_complete_ = true;
  }
  flush();
}

void HttpSession::append_head(int status, std::string_view content_type, int64_t content_length) {
  out_pending_.append("HTTP/1.1 ");
  append_int(out_pending_, status);
  out_pending_.push_back(' ');
  out_pending_.append(reason_phrase(status));
  out_pending_.append("\r\ncontent-type: ");
  out_pending_.append(content_type);
  out_pending_.append("\r\ncontent-length: ");
  append_int(out_pending_, content_length);
  out_pending_.append("\r\nx-speedmatrix-simulated: true\r\nserver: speedmatrix-sim\r\n");
  if (!keep_alive_) out_pending_.append("connection: close\r\n");
  out_pending_.append("\r\n");
}

void HttpSession::respond(int status, std::string_view content_type, std::string_view body) {
  append_head(status, content_type, static_cast<int64_t>(body.size()));
  out_pending_.append(body);
  response_complete_ = true;
  flush();
}

void HttpSession::flush() {
  if (writing_ || closed_ || out_pending_.empty()) return;
  std::swap(out_pending_, out_writing_);
  writing_ = true;
  asio::async_write(socket_, asio::buffer(out_writing_),
                    [self = shared_from_this()](const boost::system::error_code& ec, size_t) { self->on_write(ec); });
}

void HttpSession::on_write(const boost::system::error_code& ec) {
  writing_ = false;
  out_writing_.clear();
  if (ec) return close();
  if (!out_pending_.empty()) return flush();
  if (response_complete_) after_response_sent();
}

void HttpSession::after_response_sent() {
  response_complete_ = false;
  if (!keep_alive_) return close();
  if (watch_pending_) {
    awaiting_next_ = true;  // the pending read delivers the next request (or the close)
    return;
  }
  read_header();
}

void HttpSession::watch_connection() {
  if (watch_pending_ || closed_) return;
  watch_pending_ = true;
  socket_.async_read_some(buffer_.prepare(kWatchReadBytes),
                          [self = shared_from_this()](const boost::system::error_code& ec, size_t n) {
                            self->on_watch(ec, n);
                          });
}

void HttpSession::on_watch(const boost::system::error_code& ec, size_t bytes) {
  watch_pending_ = false;
  if (ec) {
    if (ec != asio::error::operation_aborted) close();  // client gone: abort its request
    return;
  }
  buffer_.commit(bytes);
  if (awaiting_next_) {
    awaiting_next_ = false;
    read_header();
  }
  // Bytes that arrive mid-response are a pipelined request: keep them for after the response
  // and stop watching (it is read once the response is out).
}

}  // namespace sm::sim
