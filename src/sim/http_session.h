#pragma once
// One client connection of the simulated server: HTTP/1.1 keep-alive, one request at a time,
// vLLM's routes. Generation responses are fed by the scheduler through RequestSink::on_tokens
// and written with double-buffered async writes, so a slow client never blocks the engine and a
// step's chunks for one stream leave in one write. While a response is being generated the
// session keeps a read pending, to notice a client that went away and abort its request (vLLM
// aborts on disconnect too).
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/string_body.hpp>

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>

#include "sim/batch_scheduler.h"
#include "sim/chunk_formatter.h"
#include "sim/request_sink.h"

namespace sm::sim {

class SimEngine;
class HttpSession;

/// Open sessions, so shutdown can close them. Used on the server thread only.
using SessionRegistry = std::unordered_set<HttpSession*>;

/// Not thread-safe: lives on the server's single I/O thread.
class HttpSession final : public std::enable_shared_from_this<HttpSession>, public RequestSink {
 public:
  HttpSession(boost::asio::ip::tcp::socket socket, SimEngine& engine, SessionRegistry& registry);
  ~HttpSession() override;

  /// Starts reading the first request.
  void start();
  /// Server shutdown: closes the socket; the engine has already dropped the request.
  void force_close();
  /// Scheduler output for the request in progress (see RequestSink).
  void on_tokens(const TokenUpdate& update) override;

 private:
  void read_header();
  void on_header(const boost::system::error_code& ec);
  void read_body();
  void on_body(const boost::system::error_code& ec);
  void handle_request();
  void start_generation(bool chat, std::string_view body);
  void tokenize(std::string_view body);
  void detokenize(std::string_view body);
  void respond(int status, std::string_view content_type, std::string_view body);
  void respond_json(int status, std::string_view body) { respond(status, "application/json", body); }
  void append_head(int status, std::string_view content_type, int64_t content_length);
  void flush();
  void on_write(const boost::system::error_code& ec);
  void after_response_sent();
  void watch_connection();
  void on_watch(const boost::system::error_code& ec, size_t bytes);
  void end_request();
  void close();

  boost::asio::ip::tcp::socket socket_;
  SimEngine& engine_;
  SessionRegistry& registry_;
  boost::beast::flat_buffer buffer_;  ///< bytes read and not yet parsed
  std::optional<boost::beast::http::request_parser<boost::beast::http::string_body>> parser_;
  std::string out_pending_;           ///< response bytes not yet handed to a write
  std::string out_writing_;           ///< bytes of the write in progress (capacity reused)
  bool writing_ = false;              ///< an async_write is in progress
  bool response_complete_ = false;    ///< the whole response is in the out buffers
  bool keep_alive_ = true;            ///< the current request allows another on this connection
  bool watch_pending_ = false;        ///< a disconnect-watching read is in progress
  bool awaiting_next_ = false;        ///< response sent; the watch read starts the next request
  bool closed_ = false;

  // The generation request in progress (active_), fed by on_tokens.
  bool active_ = false;               ///< a request is in the scheduler on behalf of this session
  RequestId request_id_ = 0;
  bool stream_ = false;               ///< SSE response (else one JSON body at the end)
  bool include_usage_ = false;        ///< final usage chunk
  bool role_sent_ = false;            ///< chat: the role chunk went out
  int64_t sent_tokens_ = 0;           ///< output tokens already in a chunk (stream_interval packing)
  StreamRequest stream_request_;      ///< per-request formatting state (head reused across requests)
  std::shared_ptr<HttpSession> self_ref_;  ///< keeps the session alive while the scheduler holds it
};

}  // namespace sm::sim
