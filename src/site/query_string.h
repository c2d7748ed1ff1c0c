#pragma once
// URL query strings and paths: decoding what browsers send, encoding what pages link to.
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace sm::site {

/// Decodes %XX escapes (and '+' as space when `plus_is_space`). Invalid escapes stay as they are.
std::string percent_decode(std::string_view text, bool plus_is_space);

/// Encodes everything but unreserved characters (A-Z a-z 0-9 - . _ ~) as %XX.
std::string percent_encode(std::string_view text);

/// A parsed query string ("a=1&b=x+y&a=2"): pairs in order, names and values decoded.
class QueryParams {
 public:
  QueryParams() = default;
  explicit QueryParams(std::string_view query);
  explicit QueryParams(std::vector<std::pair<std::string, std::string>> pairs) : pairs_(std::move(pairs)) {}

  /// The first value of `name`; empty when absent.
  std::string get(std::string_view name) const;
  /// Every value of `name`, in order.
  std::vector<std::string> all(std::string_view name) const;
  bool has(std::string_view name) const;
  const std::vector<std::pair<std::string, std::string>>& pairs() const { return pairs_; }

 private:
  std::vector<std::pair<std::string, std::string>> pairs_;
};

/// Builds "?a=1&b=x" from pairs, skipping empty values; "" when nothing is left.
std::string build_query(const std::vector<std::pair<std::string, std::string>>& pairs);

}  // namespace sm::site
