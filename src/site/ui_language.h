#pragma once
// The site's languages (issue 15 part 3, first step): message catalogs, one data file per
// language (data/site/messages-LANG.json, compiled in; adding a language is adding a file), and
// which one a request gets: `?lang=ja`, else the `sm_lang` cookie, else Accept-Language, else
// English. The page frame (navigation, kind tabs, language menu, footer) reads its text from
// them; page bodies are still English.
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

#include "core/error.h"

namespace sm::site {

class MessageCatalogs {
 public:
  /// Every embedded messages-LANG.json. Fails when one is not a flat object of strings, or
  /// lacks a key English has, or has a key English lacks (missing_keys names them).
  static Result<MessageCatalogs> load_embedded();
  /// The same from (language, JSON text) pairs; "en" must be one of them.
  static Result<MessageCatalogs> from_json(const std::vector<std::pair<std::string, std::string>>& files);

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
/// The language menu: a link per language to the current page with `lang=` set.
std::string language_menu_html();

}  // namespace sm::site
