#include "store/sql_connection.h"

#include <charconv>

namespace sm::store {

const std::string& SqlRow::text(size_t i) const {
  static const std::string kEmpty;
  const auto& c = cells.at(i);
  return c ? *c : kEmpty;
}

int64_t SqlRow::integer(size_t i) const { return optional_integer(i).value_or(0); }

std::optional<int64_t> SqlRow::optional_integer(size_t i) const {
  const auto& c = cells.at(i);
  if (!c) return std::nullopt;
  int64_t v = 0;
  auto r = std::from_chars(c->data(), c->data() + c->size(), v);
  if (r.ec != std::errc{}) {
    // An aggregate over a DOUBLE column may print as "3.0"; take its integer part.
    if (auto d = number(i)) return static_cast<int64_t>(*d);
    return std::nullopt;
  }
  return v;
}

std::optional<double> SqlRow::number(size_t i) const {
  const auto& c = cells.at(i);
  if (!c) return std::nullopt;
  double v = 0;
  auto r = std::from_chars(c->data(), c->data() + c->size(), v);
  if (r.ec != std::errc{}) return std::nullopt;
  return v;
}

}  // namespace sm::store
