#pragma once
// A sentence the calculator composes for a person (why a setup is refused, what to use instead)
// in a structured form: an id and named fields. The command line prints its English (english());
// a caller that speaks other languages looks the id up in its own message catalog (the results
// site's data/site/messages-LANG.json have a key per id) and fills in the same fields.
//
//   Phrase p{"calc.refusal.use_engine", {{"engines", "llamacpp"}}};
//   english(p);                  // "Use --engine llamacpp instead."
//   english(std::vector{p, q});  // sentences joined by a space
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace sm::calc {

struct Phrase {
  std::string id;                                           ///< a phrase_templates() id, "calc.refusal.no_backend"
  std::vector<std::pair<std::string, std::string>> fields;  ///< fmt named fields: name, value (names, numbers as text)
};

/// Every phrase id and its English, an fmt pattern of named fields ("{engine} does not run on {gpu}: ...").
const std::vector<std::pair<std::string_view, std::string_view>>& phrase_templates();

/// The English of a phrase: its template with its fields filled.
std::string english(const Phrase& phrase);
/// The English of sentences: each phrase's, joined by a space.
std::string english(std::span<const Phrase> phrases);

}  // namespace sm::calc
