#pragma once
// Server-Sent Events decoder for streamed completions (WHATWG EventSource parsing rules).
// Handles: "data:" with and without the space, ":" comment/ping lines, "event:"/"id:"/"retry:"
// fields (ignored), LF, CRLF and lone CR line ends (also when a CRLF is split across reads),
// events split across reads and many events per read. A stream that ends without the final
// blank line still delivers its last event through finish().
//
// Header-only on purpose: it sits on the hot path of every chunk and must inline. It does not
// use <expected>, so the fuzz target can be built with clang 14.
#include <cstddef>
#include <cstring>
#include <string>
#include <string_view>

namespace sm {

class SseDecoder {
 public:
  enum class Status {
    Ok,             ///< all bytes consumed
    EventTooLarge,  ///< one line or event passed max_event_bytes; the decoder was reset
  };

  /// max_event_bytes bounds the memory a hostile server can make us hold for one event.
  explicit SseDecoder(size_t max_event_bytes = size_t{1} << 20) : max_event_bytes_(max_event_bytes) {}

  /// Feeds bytes as they arrive; calls on_event(std::string_view data) once per complete event
  /// that had at least one data line (multi-line data joined with '\n', as the spec says).
  template <class OnEvent>
  Status feed(std::string_view bytes, OnEvent&& on_event) {
    size_t pos = 0;
    const size_t n = bytes.size();
    if (skip_lf_ && n > 0) {
      skip_lf_ = false;
      if (bytes[0] == '\n') pos = 1;
    }
    while (pos < n) {
      // Find the next line end (LF or CR).
      const char* start = bytes.data() + pos;
      size_t remaining = n - pos;
      const char* end = static_cast<const char*>(memchr_eol(start, remaining));
      if (end == nullptr) {
        // The bound holds for everything buffered: the event's data so far and the line in progress.
        if (data_.size() + partial_.size() + remaining > max_event_bytes_) return overflow();
        partial_.append(start, remaining);
        return Status::Ok;
      }
      size_t len = static_cast<size_t>(end - start);
      std::string_view line;
      if (partial_.empty()) {
        line = std::string_view(start, len);
      } else {
        if (data_.size() + partial_.size() + len > max_event_bytes_) return overflow();
        partial_.append(start, len);
        line = partial_;
      }
      pos += len + 1;
      if (*end == '\r') {
        if (pos < n) {
          if (bytes[pos] == '\n') ++pos;
        } else {
          skip_lf_ = true;  // a '\n' may be the first byte of the next read
        }
      }
      if (process_line(line, on_event) == Status::EventTooLarge) return overflow();
      partial_.clear();
    }
    return Status::Ok;
  }

  /// Call at end of stream: dispatches a last event that lacked its terminating blank line.
  template <class OnEvent>
  void finish(OnEvent&& on_event) {
    if (!partial_.empty()) {
      std::string line;
      line.swap(partial_);
      (void)process_line(line, on_event);
    }
    if (has_data_) {
      has_data_ = false;
      on_event(std::string_view(data_));
      data_.clear();
    }
    skip_lf_ = false;
  }

  /// Forgets any partial state (for reuse on a new stream).
  void reset() {
    partial_.clear();
    data_.clear();
    has_data_ = false;
    skip_lf_ = false;
  }

  /// Bytes currently buffered (partial line + pending event data).
  size_t buffered_bytes() const { return partial_.size() + data_.size(); }

 private:
  static const void* memchr_eol(const char* p, size_t n) {
    // LF is by far the common terminator; look for CR only within the span before it.
    const void* lf = std::memchr(p, '\n', n);
    size_t span = lf ? static_cast<size_t>(static_cast<const char*>(lf) - p) : n;
    const void* cr = std::memchr(p, '\r', span);
    return cr ? cr : lf;
  }

  template <class OnEvent>
  Status process_line(std::string_view line, OnEvent& on_event) {
    if (line.empty()) {
      if (has_data_) {
        has_data_ = false;
        on_event(std::string_view(data_));
        data_.clear();
      }
      return Status::Ok;
    }
    if (line[0] == ':') return Status::Ok;  // comment / keep-alive ping
    size_t colon = line.find(':');
    std::string_view field = line.substr(0, colon);
    std::string_view value;
    if (colon != std::string_view::npos) {
      value = line.substr(colon + 1);
      if (!value.empty() && value[0] == ' ') value.remove_prefix(1);
    }
    if (field == "data") {
      if (data_.size() + value.size() + 1 > max_event_bytes_) return Status::EventTooLarge;
      if (has_data_) data_.push_back('\n');
      data_.append(value);
      has_data_ = true;
    }
    // "event", "id", "retry" and unknown fields carry nothing a completion stream needs.
    return Status::Ok;
  }

  Status overflow() {
    reset();
    return Status::EventTooLarge;
  }

  size_t max_event_bytes_;
  std::string partial_;  ///< bytes of a line not yet terminated
  std::string data_;     ///< data lines of the event being assembled
  bool has_data_ = false;
  bool skip_lf_ = false;  ///< last read ended in '\r': drop a leading '\n' of the next read
};

}  // namespace sm
