#pragma once
// The HTML document around a report or a comparison: one style sheet (light and dark themes,
// phone layout, print), no scripts, no external resources.
#include <string>
#include <string_view>

namespace sm::report {

/// A complete HTML document. `title` is escaped here; `body` is trusted HTML built by the printers
/// (every value in it already escaped); `extra_style` is CSS appended to the shared style sheet.
/// The results site (site/page_layout.cc, frame_report) adds its CSS before the first "</style>"
/// and its header after "<div class=\"page\">\n": keep both as they are.
std::string html_document(std::string_view title, std::string_view body, std::string_view extra_style = "");

/// A table wrapped so it scrolls sideways on a phone instead of widening the page.
std::string html_scroll(std::string_view table_html);

/// A Table (report_model.h) as an HTML data table with `id`, each row's status as its class,
/// wrapped by html_scroll (defined with the report's HTML printer, report_html.cc).
struct Table;
std::string data_table_html(const Table& t, std::string_view id);

}  // namespace sm::report
