#pragma once
// The site's languages (issue 15 part 3): message catalogs, one data file per language
// (data/site/messages-LANG.json, compiled in, plus `serve --messages DIR` at run time; adding a
// language is adding a file), and which one a request gets: `?lang=ja`, else the `sm_lang`
// cookie, else Accept-Language, else English. Every page's text comes from them, and so do the
// locale's number and date formats (`locale.*` keys): no language is special-cased in C++.
//
// Keys ending in ".html" are trusted markup (the catalogs are the project's own files);
// other values are text, escaped where they are put into a page. "{}" / "{name}" are fmt fields.
//
//   auto catalogs = MessageCatalogs::load_embedded();             // Result<MessageCatalogs>
//   std::string lang = catalogs->choose(query_lang, cookie, accept_language);
//   UiLanguageScope scope(*catalogs, lang, "/runs", query);       // for this thread's page rendering
//   ui_text("nav.runs");                                          // "マトリクス実行"
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <cstdint>

#include <fmt/format.h>

#include "core/error.h"
#include "report/translate.h"

namespace sm::site {

class MessageCatalogs {
 public:
  /// Every embedded messages-LANG.json. Fails when one is not a flat object of strings, or
  /// lacks a key English has, or has a key English lacks (missing_keys names them).
  static Result<MessageCatalogs> load_embedded();
  /// The same from (language, JSON text) pairs; "en" must be one of them.
  static Result<MessageCatalogs> from_json(const std::vector<std::pair<std::string, std::string>>& files);
  /// The embedded catalogs plus every messages-LANG.json and report-LANG.json in `dir` (a file
  /// there replaces the embedded one of its language). Checked like load_embedded.
  static Result<MessageCatalogs> load_embedded_and_dir(const std::string& dir);

  /// Adds the report catalogs (language, JSON text of report-LANG.json): the English text of each
  /// message the report inside a page composes (its msgid, report/translate.h) and its translation.
  /// Fails when one is not a flat object of strings, is of a language without a message catalog,
  /// or lacks a msgid English has or has one English lacks. A language without one shows the
  /// report in English. load_embedded and load_embedded_and_dir add the embedded (and the
  /// folder's) ones.
  Result<void> add_report_catalogs(const std::vector<std::pair<std::string, std::string>>& files);
  /// The translation of the report's `msgid` in `lang`; `msgid` itself where there is none.
  std::string report_text(std::string_view lang, std::string_view msgid) const;

  /// Language codes, English first, then by code.
  const std::vector<std::string>& languages() const { return languages_; }
  bool has(std::string_view lang) const;
  /// The text of `key` in `lang` (English when the language lacks it; the key itself when English does).
  std::string text(std::string_view lang, std::string_view key) const;
  /// The language a request gets: a known `query_lang`, else the `sm_lang` cookie of `cookie_header`,
  /// else the best known language of `accept_language` (q-values honoured, "ja-JP" is "ja"), else "en".
  std::string choose(std::string_view query_lang, std::string_view cookie_header, std::string_view accept_language) const;

 private:
  std::vector<std::string> languages_;
  std::map<std::string, std::map<std::string, std::string, std::less<>>, std::less<>> catalogs_;
  std::map<std::string, std::map<std::string, std::string, std::less<>>, std::less<>> reports_;
};

/// Keys English has that `lang_keys` lacks, and keys it has that English lacks ("+key").
std::vector<std::string> missing_keys(const std::vector<std::string>& english_keys, const std::vector<std::string>& lang_keys);

/// The language the current thread renders pages in, for the lifetime of the scope; `path` and
/// `query` are the request's, so the language menu links to the same page. Without a scope,
/// pages are English.
class UiLanguageScope {
 public:
  UiLanguageScope(const MessageCatalogs& catalogs, std::string lang, std::string path, std::string query);
  ~UiLanguageScope();
  UiLanguageScope(const UiLanguageScope&) = delete;
  UiLanguageScope& operator=(const UiLanguageScope&) = delete;
};

/// The text of `key` in the current thread's language (English outside a scope: the built-in
/// catalogs).
std::string ui_text(std::string_view key);
/// The current language code ("en" outside a scope).
std::string ui_language();
/// The report's `msgid` in the current thread's language (report-LANG.json).
std::string ui_report_text(std::string_view msgid);
/// A translator for RenderOptions::translate that reads the current thread's language when the
/// report is rendered: the report inside a page speaks the page's language.
report::Translator ui_report_translator();
std::string ui_number(int64_t n);
/// ui_text(key) with its fmt fields filled ("{}" in order; arguments are used as given, so
/// escape them first when the result goes into a page).
template <class... Args>
std::string ui_format(std::string_view key, const Args&... args) {
  return fmt::format(fmt::runtime(ui_text(key)), args...);
}
/// The "KEY.one" text when n is 1, else "KEY.other", with n (localised) as its first field and
/// `args` after it.
template <class... Args>
std::string ui_count(std::string_view key, int64_t n, const Args&... args) {
  const std::string k = std::string(key) + (n == 1 ? ".one" : ".other");
  return fmt::format(fmt::runtime(ui_text(k)), ui_number(n), args...);
}
/// A number written by the English formatters ("9,919", "10.6K", "0.85") in the current
/// locale: its group and decimal marks from `locale.group` and `locale.decimal`.
std::string ui_localize_number(std::string_view english);
/// An integer with the locale's group mark ("12,345" / "12.345").
std::string ui_number(int64_t n);
/// An ISO-8601 time ("2026-12-04T05:33:12Z") to the minute, in the locale's `locale.datetime`
/// pattern ({year} {month} {day} {hour} {minute}, fmt fields: "{year}年{month}月{day}日 {hour:02}:{minute:02}").
/// Text that is not such a time is returned as it is.
std::string ui_datetime(std::string_view iso8601);
/// The language menu: a link per language to the current page with `lang=` set.
std::string language_menu_html();

}  // namespace sm::site
