#pragma once
// The text form of a keyset cursor, the `cursor` parameter of every run listing:
//
//   a1~50~1234.5~2026-12-03T10:00:00.000Z~run-42
//   │││  │      │                        └ the row's run id (ids never hold '~')
//   │││  │      └ its upload time
//   │││  └ its metric ("-" when it has none; "0" for newest, which has no metric)
//   ││└ rows ahead of the page it opens
//   │└ the order (0 newest, 1 single stream, 2 best total, 3 prefill 32K, 4 tokens per joule)
//   └ a: the rows after the key (next page); b: the rows before it (previous page)
//
// Plain text rather than an opaque blob: it is only a position in a public listing, nothing in it
// is secret, and a reader can see why a link shows what it shows.
#include <expected>
#include <string>
#include <string_view>

#include "core/error.h"
#include "store/store_types.h"

namespace sm::store {

/// The cursor's text.
std::string format_page_cursor(const PageCursor& cursor);

/// Reads a cursor's text; InvalidArgument when it is not one ("cursor: not a cursor of this site
/// (five parts separated by ~ expected)").
Result<PageCursor> parse_page_cursor(std::string_view text);

/// What is wrong with a text that is not a cursor, for a caller that words it itself (a page in
/// another language).
enum class CursorFault {
  Parts,      ///< not five parts separated by ~
  Start,      ///< does not start with a or b and an order 0 to 4
  Position,   ///< the position is not a whole number of 0 or more
  Key,        ///< the metric is not a number or "-"
  TimeAndId,  ///< the upload time or the run id is empty
};

/// parse_page_cursor with the fault as a value.
std::expected<PageCursor, CursorFault> read_page_cursor(std::string_view text);

}  // namespace sm::store
