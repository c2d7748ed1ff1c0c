#pragma once
// Text layout for terminals: display width of UTF-8 text, padding, wrapping, and ANSI styles
// that vanish when colour is off. Widths ignore escape codes, so styled text pads correctly.
#include <string>
#include <string_view>
#include <vector>

namespace sm::report {

/// Columns `text` takes: one per code point (the report's text has no wide characters);
/// ANSI escape sequences take none.
size_t display_width(std::string_view text);

/// `text` padded with spaces on the left (right-aligned) or right (left-aligned) to `width`.
std::string pad_left(std::string_view text, size_t width);
std::string pad_right(std::string_view text, size_t width);

/// Breaks `text` at spaces into lines of at most `width` columns; every line after the first
/// starts with `indent`. A word longer than a line is cut. Lines end with '\n'.
std::string wrap(std::string_view text, size_t width, std::string_view indent = "");

/// `word` cut into pieces of at most `width` code points.
std::vector<std::string> split_word(std::string_view word, size_t width);

/// wrap() with every line, the first too, starting with `indent`.
std::string wrap_block(std::string_view text, size_t width, std::string_view indent);

/// ANSI styles; each returns `text` unchanged when colour is off.
class Ansi {
 public:
  explicit Ansi(bool on) : on_(on) {}
  bool on() const { return on_; }
  std::string bold(std::string_view text) const { return wrap_sgr("1", text); }
  std::string dim(std::string_view text) const { return wrap_sgr("2", text); }
  std::string red(std::string_view text) const { return wrap_sgr("31", text); }
  std::string green(std::string_view text) const { return wrap_sgr("32", text); }
  std::string yellow(std::string_view text) const { return wrap_sgr("33", text); }
  std::string cyan(std::string_view text) const { return wrap_sgr("36", text); }
  /// A colour of the heat ramp (0 = slowest, 1 = fastest), from the 256-colour palette.
  std::string heat(double share, std::string_view text) const;

 private:
  std::string wrap_sgr(std::string_view code, std::string_view text) const;
  bool on_;  ///< emit escape codes
};

}  // namespace sm::report
