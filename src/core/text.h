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

/// `s` with ASCII letters lower-cased (names, hosts and header names are compared this way).
inline std::string ascii_lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace sm
