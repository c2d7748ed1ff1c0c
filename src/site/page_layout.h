#pragma once
// The frame of every site page: the report's style sheet (light and dark), the site's header
// and navigation, and one escaping helper for every value that came from a user.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/units.h"

namespace sm::site {

/// The sections of the navigation.
enum class NavItem { GettingStarted, Leaderboard, Runs, Hardware, Models, Benchmarks, Compare, Calculator, ApiDocs, None };

/// Escapes text for HTML text and quoted attributes (report::html_escape). Every string from a
/// result, a query or a header goes through it before it reaches a page.
std::string esc(std::string_view text);

/// A whole page: `title` (escaped here) and `body_html` (trusted markup whose values are
/// already escaped) under the site header with `active` highlighted.
std::string site_page(std::string_view title, NavItem active, std::string_view body_html);

/// Puts the site header (and `top_html`, trusted) at the top of a complete HTML document made
/// by the report renderer, and the site's styles into its <head>, so a run's report keeps its
/// own layout inside the site's frame.
std::string frame_report(std::string report_document, NavItem active, std::string_view top_html = "");

/// A figure of a table column, in the column's one style (NumberColumn: "14,112" beside "8,801",
/// never "14.1K" beside "8,801.4") and the page language's separators; "—" for none. HTML-safe.
std::string column_text(const NumberColumn& column, const std::optional<double>& value);

/// The NumberColumn of `rows`' figures that `figure` picks.
template <class Row, class Figure>
NumberColumn column_of(const std::vector<Row>& rows, Figure figure) {
  std::vector<std::optional<double>> values;
  values.reserve(rows.size());
  for (const Row& row : rows) values.push_back(figure(row));
  return NumberColumn(values);
}

}  // namespace sm::site
