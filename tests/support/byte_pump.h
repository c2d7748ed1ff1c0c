#pragma once
// Copies bytes from one Asio stream to another until either side ends, then closes both: the
// relay under the TLS front and the forwarding proxy. Single-threaded use (one io_context thread).
#include <utility>  // first: Boost 1.74's asio.hpp uses std::exchange without it

#include <boost/asio.hpp>

#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>

namespace sm::test {

template <class From, class To>
class BytePump : public std::enable_shared_from_this<BytePump<From, To>> {
 public:
  /// `close_both` is called once either direction ends; `counter` (optional) adds the bytes moved.
  BytePump(From& from, To& to, std::function<void()> close_both, std::atomic<int64_t>* counter = nullptr)
      : from_(from), to_(to), close_both_(std::move(close_both)), counter_(counter) {}

  void start() { read(); }

 private:
  void read() {
    auto self = this->shared_from_this();
    from_.async_read_some(boost::asio::buffer(buf_), [self](boost::system::error_code ec, size_t n) {
      if (ec) return self->close_both_();
      if (self->counter_) *self->counter_ += static_cast<int64_t>(n);
      boost::asio::async_write(self->to_, boost::asio::buffer(self->buf_.data(), n),
                               [self](boost::system::error_code wec, size_t) {
                                 if (wec) return self->close_both_();
                                 self->read();
                               });
    });
  }

  From& from_;
  To& to_;
  std::function<void()> close_both_;
  std::atomic<int64_t>* counter_;
  std::array<char, 16384> buf_{};
};

}  // namespace sm::test
