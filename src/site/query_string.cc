#include "site/query_string.h"

namespace sm::site {

namespace {

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

std::string percent_decode(std::string_view text, bool plus_is_space) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '%' && i + 2 < text.size()) {
      int hi = hex_value(text[i + 1]);
      int lo = hex_value(text[i + 2]);
      if (hi >= 0 && lo >= 0) {
        out.push_back(static_cast<char>(hi * 16 + lo));
        i += 2;
        continue;
      }
    }
    out.push_back(plus_is_space && c == '+' ? ' ' : c);
  }
  return out;
}

std::string percent_encode(std::string_view text) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(text.size() * 3);
  for (unsigned char c : text) {
    if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.' ||
        c == '_' || c == '~') {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 0xf]);
    }
  }
  return out;
}

QueryParams::QueryParams(std::string_view query) {
  while (!query.empty()) {
    size_t amp = query.find('&');
    std::string_view part = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
    if (part.empty()) continue;
    size_t eq = part.find('=');
    std::string name = percent_decode(part.substr(0, eq), true);
    std::string value = eq == std::string_view::npos ? std::string() : percent_decode(part.substr(eq + 1), true);
    pairs_.emplace_back(std::move(name), std::move(value));
  }
}

std::string QueryParams::get(std::string_view name) const {
  for (const auto& [k, v] : pairs_)
    if (k == name) return v;
  return {};
}

std::vector<std::string> QueryParams::all(std::string_view name) const {
  std::vector<std::string> out;
  for (const auto& [k, v] : pairs_)
    if (k == name) out.push_back(v);
  return out;
}

bool QueryParams::has(std::string_view name) const {
  for (const auto& [k, v] : pairs_)
    if (k == name) return true;
  return false;
}

std::string build_query(const std::vector<std::pair<std::string, std::string>>& pairs) {
  std::string out;
  for (const auto& [k, v] : pairs) {
    if (v.empty()) continue;
    out += out.empty() ? '?' : '&';
    out += percent_encode(k);
    out += '=';
    out += percent_encode(v);
  }
  return out;
}

}  // namespace sm::site
