#include "report/translate.h"

namespace sm::report {

namespace {
thread_local const Translator* current_translator = nullptr;
}  // namespace

TranslationScope::TranslationScope(const Translator& translator) : previous_(current_translator) {
  current_translator = translator ? &translator : nullptr;
}

TranslationScope::~TranslationScope() { current_translator = previous_; }

std::string tr(std::string_view msgid) {
  if (!current_translator) return std::string(msgid);
  return (*current_translator)(msgid);
}

}  // namespace sm::report
