#include "report/markdown_text.h"

#include <algorithm>

namespace sm::report {

std::string md_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '\\': case '`': case '*': case '[': case ']': case '|': case '#':
        out += '\\';
        out += c;
        break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '\n': case '\r': out += ' '; break;
      default: out += c;
    }
  }
  return out;
}

std::string md_table(const Table& table) {
  std::string out = "|";
  for (const auto& h : table.header) out += " " + md_escape(h) + " |";
  out += "\n|";
  for (size_t i = 0; i < table.header.size(); ++i) {
    bool right = i < table.align.size() && table.align[i] == Align::Right;
    out += right ? "---:|" : "---|";
  }
  out += "\n";
  for (const auto& row : table.rows) {
    out += "|";
    for (const auto& cell : row.cells) out += " " + md_escape(cell) + " |";
    out += "\n";
  }
  return out;
}

std::string md_code_block(std::string_view code, std::string_view language) {
  size_t longest = 0, run = 0;
  for (char c : code) {
    run = c == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  std::string fence(std::max<size_t>(3, longest + 1), '`');
  std::string out = fence + std::string(language) + "\n" + std::string(code);
  if (!code.empty() && code.back() != '\n') out += "\n";
  return out + fence + "\n";
}

}  // namespace sm::report
