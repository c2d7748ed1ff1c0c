#pragma once
// Small ASCII text helpers shared by the parsers of flags, headers and system files.
#include <cctype>
#include <string>
#include <string_view>

namespace sm {

/// `s` without leading and trailing spaces and tabs.
inline std::string_view trim_blanks(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

/// `text` safe to print on a terminal or in a log line: C0 and C1 control characters, DEL, the
/// bidirectional overrides and isolates (U+202A..U+202E, U+2066..U+2069: they reorder what follows)
/// and bytes that are not UTF-8 are written as escapes (`\x1b`, `\u0085`, `\u202e`); a backslash
/// is doubled, so an escape in the output always came from this function. Printable text, UTF-8
/// letters included, is kept as it is. Uploaded names reach moderators' terminals through it.
std::string escape_controls(std::string_view text);

/// `text` from its first whole UTF-8 character, cut to at most `max_bytes` without splitting one
/// (an excerpt of a stream's text).
std::string utf8_excerpt(std::string_view text, size_t max_bytes);

/// `s` is one or more ASCII digits.
inline bool all_digits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  return true;
}

/// `s` with ASCII letters lower-cased (names, hosts and header names are compared this way).
inline std::string ascii_lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace sm
