#pragma once
// Small JSON text helpers for the simulator's hand-built responses (the hot path builds stream
// chunks from preformatted pieces instead of a JSON library).
#include <charconv>
#include <cstdint>
#include <string>
#include <string_view>

namespace sm::sim {

/// Appends `s` as the inside of a JSON string (no quotes): escapes '"', '\\' and control bytes;
/// other bytes, UTF-8 included, are copied as they are.
void append_json_escaped(std::string& out, std::string_view s);

/// Appends the decimal digits of `v` without allocating.
inline void append_int(std::string& out, int64_t v) {
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, static_cast<size_t>(r.ptr - buf));
}

}  // namespace sm::sim
