#pragma once
// Errors a page shows in its language and the API in English. A parser of the pages' parameters
// (listing_query.h, calc_input.h) fails with a UiError: an Error whose message is the English the
// JSON API and the log have always shown, plus the same sentences as message-catalog keys with
// named fields (the parameter, the bad value, what is allowed), which a page renders in the
// request's language (ui_error_text).
//
//   UiResult<ListingQuery> q = parse_listing_query(...);
//   if (!q) return page_error(400, ui_error_text(q.error()));            // a page: its language
//   if (!q) return error_response(400, "bad_parameter", q.error().message);  // the API: English
//
// The calculator's refusals (calc/phrase.h) are such sentences too: their ids are catalog keys.
#include <expected>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "calc/phrase.h"
#include "core/error.h"

namespace sm::site {

/// One sentence: a messages-LANG.json key and its fmt named fields (text, escaped where it goes
/// into a page).
struct UiMessage {
  std::string key;
  std::vector<std::pair<std::string, std::string>> fields;
};

/// An Error (code and English message) with its sentences in a form a page translates; without
/// sentences the message is shown as it is in every language.
struct UiError : Error {
  std::vector<UiMessage> parts;  ///< joined by the catalog's `locale.sentence_separator`
};

template <class T>
using UiResult = std::expected<T, UiError>;

/// An InvalidArgument error of one sentence: `key`'s text in the built-in English catalog (the
/// API's message) and the sentence for pages.
std::unexpected<UiError> ui_fail(std::string_view key, std::vector<std::pair<std::string, std::string>> fields);
/// An error with an English message written elsewhere (another layer's, with a prefix) and its
/// sentences for pages.
std::unexpected<UiError> ui_fail_as(std::string english, std::vector<UiMessage> parts);
/// The calculator's sentences (their ids are catalog keys); the message is their English.
std::unexpected<UiError> ui_fail_phrases(std::span<const calc::Phrase> phrases);
/// An error that has no sentences: its message in every language.
UiError untranslated(const Error& error);

/// The calculator's sentences (a prediction's notes or a warning) in the current thread's
/// language, joined like an error's; their English when a catalog's text does not fit.
std::string ui_sentences(std::span<const calc::Phrase> phrases);

/// The error in the current thread's language (ui_language.h): each sentence's catalog text with
/// its fields, joined. The English message when the error has no sentences, or when a catalog's
/// text asks for a field the sentence lacks. Plain text: escape it for a page.
std::string ui_error_text(const UiError& error);

}  // namespace sm::site
