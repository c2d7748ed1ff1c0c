#include "core/text.h"

#include <fmt/format.h>

namespace sm {

namespace {

// The length of the UTF-8 sequence starting at text[i] and its code point; 0 when the bytes
// there are not one well-formed sequence (a stray continuation byte, a cut or overlong one).
size_t utf8_sequence(std::string_view text, size_t i, char32_t& code_point) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char lead = byte(i);
  size_t length = 0;
  char32_t cp = 0;
  if (lead < 0x80) return code_point = lead, 1;
  if (lead >= 0xc2 && lead <= 0xdf) length = 2, cp = lead & 0x1f;
  else if (lead >= 0xe0 && lead <= 0xef) length = 3, cp = lead & 0x0f;
  else if (lead >= 0xf0 && lead <= 0xf4) length = 4, cp = lead & 0x07;
  else return 0;
  if (i + length > text.size()) return 0;
  for (size_t k = 1; k < length; ++k) {
    if ((byte(i + k) & 0xc0) != 0x80) return 0;
    cp = (cp << 6) | (byte(i + k) & 0x3f);
  }
  const char32_t shortest[] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < shortest[length] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return 0;
  code_point = cp;
  return length;
}

bool reorders_text(char32_t cp) { return (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069); }

}  // namespace

std::string escape_controls(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    char32_t cp = 0;
    const size_t length = utf8_sequence(text, i, cp);
    if (length == 0) {
      out += fmt::format("\\x{:02x}", static_cast<unsigned char>(text[i]));
      ++i;
      continue;
    }
    if (cp == '\\') out += "\\\\";
    else if (cp < 0x20 || cp == 0x7f) out += fmt::format("\\x{:02x}", static_cast<unsigned>(cp));
    else if ((cp >= 0x80 && cp <= 0x9f) || reorders_text(cp)) out += fmt::format("\\u{:04x}", static_cast<unsigned>(cp));
    else out.append(text.substr(i, length));
    i += length;
  }
  return out;
}

std::string utf8_excerpt(std::string_view text, size_t max_bytes) {
  auto continuation = [](char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; };
  while (!text.empty() && continuation(text.front())) text.remove_prefix(1);
  if (text.size() <= max_bytes) return std::string(text);
  size_t end = max_bytes;
  while (end > 0 && continuation(text[end])) --end;
  return std::string(text.substr(0, end));
}

}  // namespace sm
