#pragma once
// Escaping for HTML text and attribute values: every string from a result file goes through it,
// so a model named "<script>…" shows as text.
#include <string>
#include <string_view>

namespace sm::report {

/// Replaces & < > " ' with character references; safe in text and in quoted attributes.
std::string html_escape(std::string_view text);

}  // namespace sm::report
