#include "report/term_text.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <vector>
#include <fmt/format.h>

namespace sm::report {

size_t display_width(std::string_view text) {
  size_t n = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    if (c == 0x1b && i + 1 < text.size() && text[i + 1] == '[') {
      // An SGR escape ("\x1b[1;32m") has no width: skip to its final byte.
      i += 2;
      while (i < text.size() && !(text[i] >= '@' && text[i] <= '~')) ++i;
      continue;
    }
    if ((c & 0xC0) != 0x80) ++n;
  }
  return n;
}

std::string pad_left(std::string_view text, size_t width) {
  size_t w = display_width(text);
  return std::string(w < width ? width - w : 0, ' ') + std::string(text);
}

std::string pad_right(std::string_view text, size_t width) {
  size_t w = display_width(text);
  return std::string(text) + std::string(w < width ? width - w : 0, ' ');
}

std::vector<std::string> split_word(std::string_view word, size_t width) {
  std::vector<std::string> pieces;
  std::string piece;
  size_t piece_width = 0;
  for (size_t i = 0; i < word.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(word[i]);
    bool starts_code_point = (c & 0xC0) != 0x80;
    if (starts_code_point && piece_width == std::max<size_t>(width, 1)) {
      pieces.push_back(piece);
      piece.clear();
      piece_width = 0;
    }
    piece += word[i];
    piece_width += starts_code_point;
  }
  if (!piece.empty()) pieces.push_back(piece);
  return pieces;
}

std::string wrap(std::string_view text, size_t width, std::string_view indent) {
  std::string out;
  std::string line;
  size_t line_width = 0;
  auto flush = [&]() {
    out += line + "\n";
    line = std::string(indent);
    line_width = display_width(indent);
  };
  size_t start = 0;
  bool first_word = true;
  while (start < text.size()) {
    size_t space = text.find(' ', start);
    std::string_view word = text.substr(start, space == std::string_view::npos ? text.npos : space - start);
    start = space == std::string_view::npos ? text.size() : space + 1;
    if (word.empty()) continue;
    size_t room = width > display_width(indent) ? width - display_width(indent) : 1;
    if (display_width(word) > room) {
      // A word longer than a line: cut it, each piece on its own line.
      for (const auto& piece : split_word(word, room)) {
        if (!first_word) flush();
        line += piece;
        line_width += display_width(piece);
        first_word = false;
      }
      continue;
    }
    size_t w = display_width(word);
    if (!first_word && line_width + 1 + w > width) flush();
    else if (!first_word) {
      line += ' ';
      ++line_width;
    }
    line += word;
    line_width += w;
    first_word = false;
  }
  if (!first_word) out += line + "\n";
  return out;
}

std::string wrap_block(std::string_view text, size_t width, std::string_view indent) {
  size_t indent_w = display_width(indent);
  std::string lines = wrap(text, width > indent_w ? width - indent_w : 1, "");
  std::string out;
  size_t start = 0;
  while (start < lines.size()) {
    size_t nl = lines.find('\n', start);
    out += std::string(indent) + lines.substr(start, nl - start + 1);
    start = nl + 1;
  }
  return out;
}

std::string Ansi::wrap_sgr(std::string_view code, std::string_view text) const {
  if (!on_) return std::string(text);
  // Each line on its own, so no style runs past a line end (pagers and `grep` see whole lines).
  std::string out;
  size_t start = 0;
  while (start <= text.size()) {
    size_t nl = text.find('\n', start);
    std::string_view line = text.substr(start, nl == std::string_view::npos ? text.npos : nl - start);
    if (!line.empty()) out += fmt::format("\x1b[{}m{}\x1b[0m", code, line);
    if (nl == std::string_view::npos) break;
    out += '\n';
    start = nl + 1;
  }
  return out;
}

std::string Ansi::heat(double share, std::string_view text) const {
  // Blue (slow) through teal and green to yellow (fast): readable on dark and light backgrounds.
  static constexpr std::array<int, 6> kRamp = {33, 37, 36, 35, 70, 178};
  share = std::clamp(share, 0.0, 1.0);
  int index = static_cast<int>(std::lround(share * (kRamp.size() - 1)));
  return wrap_sgr(fmt::format("38;5;{}", kRamp[static_cast<size_t>(index)]), text);
}

}  // namespace sm::report
