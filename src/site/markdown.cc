#include "site/markdown.h"

#include <vector>

#include "site/page_layout.h"

namespace sm::site {

namespace {

bool safe_target(std::string_view url) {
  return url.starts_with("https://") || url.starts_with("http://") || (url.starts_with("/") && !url.starts_with("//")) ||
         url.starts_with("#");
}

// The text between `open` at `at` and the next `close`; npos when there is none.
size_t closing(std::string_view s, size_t at, std::string_view close) {
  if (at >= s.size()) return std::string_view::npos;
  const size_t end = s.find(close, at);
  return end == at ? std::string_view::npos : end;  // "****" is text, not an empty span
}

}  // namespace

std::string markdown_inline_html(std::string_view s) {
  std::string out;
  size_t i = 0;
  while (i < s.size()) {
    const char c = s[i];
    if (c == '`') {
      if (size_t end = closing(s, i + 1, "`"); end != std::string_view::npos) {
        out += "<code>" + esc(s.substr(i + 1, end - i - 1)) + "</code>";
        i = end + 1;
        continue;
      }
    } else if (c == '*' && s.substr(i).starts_with("**")) {
      if (size_t end = closing(s, i + 2, "**"); end != std::string_view::npos) {
        out += "<strong>" + markdown_inline_html(s.substr(i + 2, end - i - 2)) + "</strong>";
        i = end + 2;
        continue;
      }
    } else if (c == '*' && i + 1 < s.size() && s[i + 1] != ' ') {
      if (size_t end = closing(s, i + 1, "*"); end != std::string_view::npos) {
        out += "<em>" + markdown_inline_html(s.substr(i + 1, end - i - 1)) + "</em>";
        i = end + 1;
        continue;
      }
    } else if (c == '[') {
      const size_t text_end = s.find("](", i + 1);
      const size_t url_end = text_end == std::string_view::npos ? text_end : s.find(')', text_end + 2);
      if (url_end != std::string_view::npos) {
        const std::string_view text = s.substr(i + 1, text_end - i - 1);
        const std::string_view url = s.substr(text_end + 2, url_end - text_end - 2);
        if (safe_target(url) && url.find_first_of(" \"'<>") == std::string_view::npos) {
          out += "<a href=\"" + esc(url) + "\">" + markdown_inline_html(text) + "</a>";
          i = url_end + 1;
          continue;
        }
      }
    }
    out += esc(s.substr(i, 1));
    ++i;
  }
  return out;
}

std::string markdown_html(std::string_view markdown) {
  std::vector<std::string_view> lines;
  for (size_t at = 0; at <= markdown.size();) {
    size_t end = markdown.find('\n', at);
    if (end == std::string_view::npos) end = markdown.size();
    lines.push_back(markdown.substr(at, end - at));
    at = end + 1;
  }
  std::string out;
  std::string paragraph;
  bool in_list = false;
  auto flush = [&] {
    if (!paragraph.empty()) out += "<p>" + markdown_inline_html(paragraph) + "</p>\n";
    paragraph.clear();
  };
  auto close_list = [&] {
    if (in_list) out += "</ul>\n";
    in_list = false;
  };
  for (std::string_view line : lines) {
    while (!line.empty() && (line.back() == ' ' || line.back() == '\r')) line.remove_suffix(1);
    std::string_view body = line;
    while (!body.empty() && body.front() == ' ') body.remove_prefix(1);
    if (body.empty()) {
      flush();
      close_list();
    } else if (body.starts_with("- ") || body.starts_with("* ")) {
      flush();
      if (!in_list) out += "<ul>\n";
      in_list = true;
      out += "<li>" + markdown_inline_html(body.substr(2)) + "</li>\n";
    } else if (in_list && line.starts_with("  ")) {
      // a list item's continuation line
      if (size_t li = out.rfind("</li>\n"); li != std::string::npos)
        out.insert(li, " " + markdown_inline_html(body));
    } else {
      close_list();
      if (!paragraph.empty()) paragraph += ' ';
      paragraph += std::string(body);
    }
  }
  flush();
  close_list();
  return out;
}

}  // namespace sm::site
