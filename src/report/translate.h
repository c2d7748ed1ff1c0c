#pragma once
// The report's words in another language, without the report knowing any: a caller (the results
// site) passes RenderOptions::translate, a function from the English text (the msgid, as in
// gettext) to its translation; render_report and render_compare hold it in a TranslationScope for
// the length of the call, and every user-visible string the report composes goes through tr() /
// trf(). Without a translator each returns its English input, so the output is byte-for-byte the
// untranslated report.
//
// The first argument of tr() and trf() is always one string literal: a test scans src/report for
// them (like xgettext) and checks that every language's catalog has every msgid. trf's msgid is
// an fmt format string; a translation may reorder its fields with "{0}", "{1}" (and may leave a
// field out, e.g. an English plural "s"). A translation whose fields do not fit is not used.
//
//   TranslationScope scope(options.translate);
//   tr("Served model");                                  // "提供モデル" with a Japanese translator
//   trf("{} context × {} requests", "32K", 8);           // "32K コンテキスト × 8 リクエスト"
#include <functional>
#include <string>
#include <string_view>
#include <utility>

#include <fmt/format.h>

namespace sm::report {

/// English text in, translated text out (or the input when there is no translation).
using Translator = std::function<std::string(std::string_view msgid)>;

/// Makes `translator` the current thread's for the scope's lifetime (an empty one: English);
/// the scope before it comes back at the end.
class TranslationScope {
 public:
  explicit TranslationScope(const Translator& translator);
  ~TranslationScope();
  TranslationScope(const TranslationScope&) = delete;
  TranslationScope& operator=(const TranslationScope&) = delete;

 private:
  const Translator* previous_;
};

/// `msgid` in the current language (a string literal at every call, or text marked with
/// tr_noop where it was written).
std::string tr(std::string_view msgid);

/// Marks a literal kept in a table for translation where it is shown (gettext's N_).
constexpr std::string_view tr_noop(std::string_view msgid) { return msgid; }

/// The translated format string `msgid` with `args` filled; English when the translation's
/// fields do not fit the arguments.
template <class... T>
std::string trf(fmt::format_string<T...> msgid, T&&... args) {
  const fmt::string_view english_view = msgid;
  const std::string_view english(english_view.data(), english_view.size());
  std::string translated = tr(english);
  if (translated != english) {
    try {
      return fmt::format(fmt::runtime(translated), args...);
    } catch (const fmt::format_error&) {
    }
  }
  return fmt::format(msgid, std::forward<T>(args)...);
}

}  // namespace sm::report
