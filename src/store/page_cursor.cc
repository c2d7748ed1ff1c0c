#include "store/page_cursor.h"

#include <fmt/format.h>

#include <charconv>
#include <vector>

namespace sm::store {

namespace {

constexpr char kCursorSeparator = '~';

std::vector<std::string_view> split_cursor(std::string_view text, size_t parts) {
  std::vector<std::string_view> out;
  while (out.size() + 1 < parts) {
    const size_t at = text.find(kCursorSeparator);
    if (at == std::string_view::npos) break;
    out.push_back(text.substr(0, at));
    text.remove_prefix(at + 1);
  }
  out.push_back(text);
  return out;
}

}  // namespace

std::string format_page_cursor(const PageCursor& c) {
  const std::string key = c.order == RunOrder::Newest ? "0" : c.key ? fmt::format("{}", *c.key) : "-";
  return fmt::format("{}{}{}{}{}{}{}{}{}", c.before ? 'b' : 'a', static_cast<int>(c.order), kCursorSeparator, c.position,
                     kCursorSeparator, key, kCursorSeparator, c.uploaded_at, kCursorSeparator) +
         c.run_id;
}

std::expected<PageCursor, CursorFault> read_page_cursor(std::string_view text) {
  const auto parts = split_cursor(text, 5);
  if (parts.size() != 5) return std::unexpected(CursorFault::Parts);
  PageCursor c;
  if (parts[0].size() != 2 || (parts[0][0] != 'a' && parts[0][0] != 'b') || parts[0][1] < '0' || parts[0][1] > '4')
    return std::unexpected(CursorFault::Start);
  c.before = parts[0][0] == 'b';
  c.order = static_cast<RunOrder>(parts[0][1] - '0');
  auto r = std::from_chars(parts[1].data(), parts[1].data() + parts[1].size(), c.position);
  if (r.ec != std::errc{} || r.ptr != parts[1].data() + parts[1].size() || c.position < 0)
    return std::unexpected(CursorFault::Position);
  if (parts[2] != "-") {
    double v = 0;
    auto k = std::from_chars(parts[2].data(), parts[2].data() + parts[2].size(), v);
    if (k.ec != std::errc{} || k.ptr != parts[2].data() + parts[2].size()) return std::unexpected(CursorFault::Key);
    if (c.order != RunOrder::Newest) c.key = v;
  }
  c.uploaded_at = std::string(parts[3]);
  c.run_id = std::string(parts[4]);
  if (c.uploaded_at.empty() || c.run_id.empty()) return std::unexpected(CursorFault::TimeAndId);
  return c;
}

Result<PageCursor> parse_page_cursor(std::string_view text) {
  auto c = read_page_cursor(text);
  if (c) return *c;
  std::string_view why;
  switch (c.error()) {
    case CursorFault::Parts: why = "five parts separated by ~ expected"; break;
    case CursorFault::Start: why = "it starts with a or b and an order 0 to 4"; break;
    case CursorFault::Position: why = "position"; break;
    case CursorFault::Key: why = "key"; break;
    case CursorFault::TimeAndId: why = "upload time and run id"; break;
  }
  return fail(ErrorCode::InvalidArgument, fmt::format("cursor: not a cursor of this site ({})", why));
}

}  // namespace sm::store
