#include "net/url.h"

namespace sm {

namespace {

// Where the query or fragment starts (after "scheme://"), or the end.
size_t query_start(std::string_view url) {
  const size_t scheme = url.find("://");
  const size_t from = scheme == std::string_view::npos ? 0 : scheme + 3;
  const size_t q = url.find_first_of("?#", from);
  return q == std::string_view::npos ? url.size() : q;
}

}  // namespace

std::string join_url(std::string_view base, std::string_view path) {
  const size_t q = query_start(base);
  std::string out(base.substr(0, q));
  out.append(path);
  out.append(base.substr(q));
  return out;
}

std::string trim_base_url(std::string_view url) {
  const size_t q = query_start(url);
  std::string head(url.substr(0, q));
  while (!head.empty() && head.back() == '/') head.pop_back();
  if (head.ends_with("/v1")) head.resize(head.size() - 3);
  return head + std::string(url.substr(q));
}

}  // namespace sm
