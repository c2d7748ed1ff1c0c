#pragma once
// A small Markdown renderer for the text the site shows from its own data files (the OpenAPI
// document's descriptions): paragraphs, "- " lists, `code`, **bold**, *emphasis* and
// [links](url). Everything else is text: every character goes through esc(), and a link's
// target must be http(s), or start with "/" or "#"; any other target is shown as text.
#include <string>
#include <string_view>

namespace sm::site {

/// `markdown` as HTML: paragraphs and lists (block); the rest escaped.
std::string markdown_html(std::string_view markdown);

/// The inline part only (no <p>): for a table cell or a heading.
std::string markdown_inline_html(std::string_view markdown);

}  // namespace sm::site
