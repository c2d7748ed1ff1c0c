#pragma once
// The frame of every site page: the report's style sheet (light and dark), the site's header
// and navigation, and one escaping helper for every value that came from a user.
#include <optional>
#include <string>
#include <string_view>

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

/// A number of tokens a second the way the report writes it ("10.6K", "9,919", "181.7"); "—" for none.
std::string rate_text(const std::optional<double>& tok_s);

}  // namespace sm::site
