#include "site/ui_error.h"

#include <fmt/args.h>
#include <fmt/format.h>

#include <optional>

#include "site/ui_language.h"

namespace sm::site {

namespace {

// A catalog text with the sentence's named fields; nullopt when the text does not fit them.
std::optional<std::string> fill_fields(const std::string& text, const UiMessage& m) {
  fmt::dynamic_format_arg_store<fmt::format_context> args;
  for (const auto& [name, value] : m.fields) args.push_back(fmt::arg(name.c_str(), value));
  try {
    return fmt::vformat(text, args);
  } catch (const fmt::format_error&) {
    return std::nullopt;
  }
}

// The built-in English catalog: the API's words do not change with `serve --messages`.
std::string english_text(std::string_view key) {
  static const auto catalogs = MessageCatalogs::load_embedded();
  return catalogs ? catalogs->text("en", key) : std::string(key);
}

}  // namespace

std::unexpected<UiError> ui_fail(std::string_view key, std::vector<std::pair<std::string, std::string>> fields) {
  UiMessage m{std::string(key), std::move(fields)};
  std::string english = fill_fields(english_text(key), m).value_or(std::string(key));
  return ui_fail_as(std::move(english), {std::move(m)});
}

std::unexpected<UiError> ui_fail_as(std::string english, std::vector<UiMessage> parts) {
  UiError e;
  e.code = ErrorCode::InvalidArgument;
  e.message = std::move(english);
  e.parts = std::move(parts);
  return std::unexpected(std::move(e));
}

std::unexpected<UiError> ui_fail_phrases(std::span<const calc::Phrase> phrases) {
  std::vector<UiMessage> parts;
  for (const calc::Phrase& p : phrases) parts.push_back({p.id, p.fields});
  return ui_fail_as(calc::english(phrases), std::move(parts));
}

UiError untranslated(const Error& error) {
  UiError e;
  e.code = error.code;
  e.message = error.message;
  return e;
}

std::string ui_sentences(std::span<const calc::Phrase> phrases) { return ui_error_text(ui_fail_phrases(phrases).error()); }

std::string ui_error_text(const UiError& e) {
  if (e.parts.empty()) return e.message;
  const std::string separator = ui_text("locale.sentence_separator");
  std::string out;
  for (const UiMessage& m : e.parts) {
    auto text = fill_fields(ui_text(m.key), m);
    if (!text) return e.message;
    out += (out.empty() ? "" : separator) + *text;
  }
  return out;
}

}  // namespace sm::site
