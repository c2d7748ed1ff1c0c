#include "site/ui_language.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/units.h"

#include "site/page_layout.h"
#include "site/query_string.h"
#include "site/site_data.h"

namespace sm::site {

namespace {

struct UiState {
  const MessageCatalogs* catalogs = nullptr;
  std::string lang = "en";
  std::string path = "/";
  std::string query;
};

thread_local UiState current;

// The embedded catalogs, for pages rendered outside a scope (English). A broken catalog is a
// bug the catalog test reports; here it only means keys show as themselves.
const MessageCatalogs& builtin() {
  static const MessageCatalogs catalogs = [] {
    auto c = MessageCatalogs::load_embedded();
    return c ? std::move(*c) : *MessageCatalogs::from_json({{"en", "{}"}});
  }();
  return catalogs;
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return std::string(s);
}

}  // namespace

Result<MessageCatalogs> MessageCatalogs::load_embedded() {
  std::vector<std::pair<std::string, std::string>> files, reports;
  for (const SiteDataFile& f : site_data_files()) {
    if (!f.name.ends_with(".json")) continue;
    if (f.name.starts_with("messages-"))
      files.emplace_back(std::string(f.name.substr(9, f.name.size() - 9 - 5)), std::string(f.content));
    else if (f.name.starts_with("report-"))
      reports.emplace_back(std::string(f.name.substr(7, f.name.size() - 7 - 5)), std::string(f.content));
  }
  auto out = from_json(files);
  if (!out) return out;
  if (auto ok = out->add_report_catalogs(reports); !ok) return std::unexpected(ok.error());
  return out;
}

Result<MessageCatalogs> MessageCatalogs::load_embedded_and_dir(const std::string& dir) {
  std::map<std::string, std::string> files, reports;
  for (const SiteDataFile& f : site_data_files()) {
    if (!f.name.ends_with(".json")) continue;
    if (f.name.starts_with("messages-")) files[std::string(f.name.substr(9, f.name.size() - 9 - 5))] = std::string(f.content);
    else if (f.name.starts_with("report-")) reports[std::string(f.name.substr(7, f.name.size() - 7 - 5))] = std::string(f.content);
  }
  std::error_code ec;
  std::filesystem::directory_iterator it(dir, ec);
  if (ec) return fail(ErrorCode::InvalidArgument, fmt::format("cannot read the message folder {}: {}", dir, ec.message()));
  for (const auto& entry : it) {
    const std::string name = entry.path().filename().string();
    const bool messages = name.starts_with("messages-") && name.size() > 14;
    const bool report = name.starts_with("report-") && name.size() > 12;
    if (!name.ends_with(".json") || (!messages && !report)) continue;
    std::ifstream in(entry.path(), std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    if (!in && !in.eof()) return fail(ErrorCode::InvalidArgument, fmt::format("cannot read {}", entry.path().string()));
    if (messages) files[name.substr(9, name.size() - 9 - 5)] = text.str();
    else reports[name.substr(7, name.size() - 7 - 5)] = text.str();
  }
  auto out = from_json({files.begin(), files.end()});
  if (!out) return out;
  if (auto ok = out->add_report_catalogs({reports.begin(), reports.end()}); !ok) return std::unexpected(ok.error());
  return out;
}

Result<MessageCatalogs> MessageCatalogs::from_json(const std::vector<std::pair<std::string, std::string>>& files) {
  MessageCatalogs out;
  for (const auto& [lang, text] : files) {
    auto doc = nlohmann::json::parse(text, nullptr, false);
    if (doc.is_discarded() || !doc.is_object())
      return fail(ErrorCode::InvalidArgument, fmt::format("messages-{}.json: not a JSON object", lang));
    auto& catalog = out.catalogs_[lang];
    for (const auto& [key, value] : doc.items()) {
      if (!value.is_string())
        return fail(ErrorCode::InvalidArgument, fmt::format("messages-{}.json: \"{}\" is not a string", lang, key));
      catalog[key] = value.get<std::string>();
    }
  }
  auto en = out.catalogs_.find("en");
  if (en == out.catalogs_.end()) return fail(ErrorCode::InvalidArgument, "no English catalog (messages-en.json)");
  std::vector<std::string> english_keys;
  for (const auto& [k, v] : en->second) english_keys.push_back(k);
  for (const auto& [lang, catalog] : out.catalogs_) {
    std::vector<std::string> keys;
    for (const auto& [k, v] : catalog) keys.push_back(k);
    const auto missing = missing_keys(english_keys, keys);
    if (!missing.empty()) {
      std::string list;
      for (const auto& m : missing) list += (list.empty() ? "" : ", ") + m;
      return fail(ErrorCode::InvalidArgument, fmt::format("messages-{}.json: keys missing (or, +key, not in English): {}", lang, list));
    }
    out.languages_.push_back(lang);
  }
  std::stable_partition(out.languages_.begin(), out.languages_.end(), [](const std::string& l) { return l == "en"; });
  return out;
}

Result<void> MessageCatalogs::add_report_catalogs(const std::vector<std::pair<std::string, std::string>>& files) {
  decltype(reports_) reports;
  for (const auto& [lang, text] : files) {
    auto doc = nlohmann::json::parse(text, nullptr, false);
    if (doc.is_discarded() || !doc.is_object())
      return fail(ErrorCode::InvalidArgument, fmt::format("report-{}.json: not a JSON object", lang));
    auto& catalog = reports[lang];
    for (const auto& [msgid, value] : doc.items()) {
      if (!value.is_string())
        return fail(ErrorCode::InvalidArgument, fmt::format("report-{}.json: \"{}\" is not a string", lang, msgid));
      catalog[msgid] = value.get<std::string>();
    }
  }
  std::vector<std::string> english;
  for (const auto& [k, v] : reports["en"]) english.push_back(k);
  for (const auto& [lang, catalog] : reports) {
    if (!has(lang))
      return fail(ErrorCode::InvalidArgument, fmt::format("report-{}.json: no messages-{}.json beside it", lang, lang));
    std::vector<std::string> keys;
    for (const auto& [k, v] : catalog) keys.push_back(k);
    const auto missing = missing_keys(english, keys);
    if (!missing.empty()) {
      std::string list;
      for (const auto& m : missing) list += (list.empty() ? "" : ", ") + m;
      return fail(ErrorCode::InvalidArgument,
                  fmt::format("report-{}.json: messages missing (or, +msgid, not in English): {}", lang, list));
    }
  }
  reports_ = std::move(reports);
  return {};
}

std::string MessageCatalogs::report_text(std::string_view lang, std::string_view msgid) const {
  if (auto c = reports_.find(lang); c != reports_.end())
    if (auto it = c->second.find(msgid); it != c->second.end()) return it->second;
  return std::string(msgid);
}

bool MessageCatalogs::has(std::string_view lang) const { return catalogs_.find(lang) != catalogs_.end(); }

std::string MessageCatalogs::text(std::string_view lang, std::string_view key) const {
  for (std::string_view l : {lang, std::string_view("en")}) {
    auto c = catalogs_.find(l);
    if (c == catalogs_.end()) continue;
    if (auto it = c->second.find(key); it != c->second.end()) return it->second;
  }
  return std::string(key);
}

std::string MessageCatalogs::choose(std::string_view query_lang, std::string_view cookie_header,
                                    std::string_view accept_language) const {
  if (const std::string q = lower(query_lang); has(q)) return q;
  // Cookie: "a=b; sm_lang=ja; c=d"
  for (size_t at = 0; at <= cookie_header.size();) {
    size_t end = cookie_header.find(';', at);
    if (end == std::string_view::npos) end = cookie_header.size();
    const std::string pair = trim(cookie_header.substr(at, end - at));
    if (pair.starts_with("sm_lang=")) {
      if (const std::string l = lower(pair.substr(8)); has(l)) return l;
    }
    at = end + 1;
  }
  // Accept-Language: "ja-JP,ja;q=0.9,en;q=0.8"
  std::string best = "en";
  double best_q = -1;
  for (size_t at = 0; at <= accept_language.size();) {
    size_t end = accept_language.find(',', at);
    if (end == std::string_view::npos) end = accept_language.size();
    const std::string item = trim(accept_language.substr(at, end - at));
    at = end + 1;
    if (item.empty()) continue;
    const size_t semi = item.find(';');
    std::string tag = lower(trim(item.substr(0, semi)));
    if (size_t dash = tag.find('-'); dash != std::string::npos) tag.resize(dash);
    double q = 1;
    if (semi != std::string::npos) {
      const std::string param = trim(item.substr(semi + 1));
      if (param.starts_with("q=")) q = std::strtod(param.c_str() + 2, nullptr);
    }
    if (has(tag) && q > best_q && q > 0) {
      best = tag;
      best_q = q;
    }
  }
  return best;
}

std::vector<std::string> missing_keys(const std::vector<std::string>& english_keys, const std::vector<std::string>& lang_keys) {
  const std::set<std::string> en(english_keys.begin(), english_keys.end());
  const std::set<std::string> other(lang_keys.begin(), lang_keys.end());
  std::vector<std::string> out;
  for (const auto& k : en)
    if (!other.contains(k)) out.push_back(k);
  for (const auto& k : other)
    if (!en.contains(k)) out.push_back("+" + k);
  return out;
}

UiLanguageScope::UiLanguageScope(const MessageCatalogs& catalogs, std::string lang, std::string path, std::string query) {
  current = UiState{&catalogs, std::move(lang), std::move(path), std::move(query)};
}

UiLanguageScope::~UiLanguageScope() { current = UiState{}; }

std::string ui_text(std::string_view key) {
  const MessageCatalogs& c = current.catalogs ? *current.catalogs : builtin();
  return c.text(current.lang, key);
}

std::string ui_language() { return current.lang; }

std::string ui_report_text(std::string_view msgid) {
  const MessageCatalogs& c = current.catalogs ? *current.catalogs : builtin();
  return c.report_text(current.lang, msgid);
}

report::Translator ui_report_translator() {
  return [](std::string_view msgid) { return ui_report_text(msgid); };
}

std::string ui_localize_number(std::string_view english) {
  const std::string group = ui_text("locale.group");
  const std::string decimal = ui_text("locale.decimal");
  std::string out;
  out.reserve(english.size() + 4);
  for (size_t i = 0; i < english.size(); ++i) {
    const char c = english[i];
    // Only a mark between digits is a number's: "1,234.5" but not "a, b" or "x.".
    const bool between_digits = i > 0 && i + 1 < english.size() && std::isdigit(static_cast<unsigned char>(english[i - 1])) &&
                                std::isdigit(static_cast<unsigned char>(english[i + 1]));
    if (c == ',' && between_digits) out += group;
    else if (c == '.' && between_digits) out += decimal;
    else out += c;
  }
  return out;
}

std::string ui_number(int64_t n) { return ui_localize_number(format_thousands(n)); }

std::string ui_datetime(std::string_view iso) {
  // "YYYY-MM-DDTHH:MM..." (or a space for the T)
  auto digits = [&](size_t at, size_t n, int& out) {
    if (at + n > iso.size()) return false;
    out = 0;
    for (size_t i = at; i < at + n; ++i) {
      if (!std::isdigit(static_cast<unsigned char>(iso[i]))) return false;
      out = out * 10 + (iso[i] - '0');
    }
    return true;
  };
  int year = 0, month = 0, day = 0, hour = 0, minute = 0;
  if (iso.size() < 16 || iso[4] != '-' || iso[7] != '-' || (iso[10] != 'T' && iso[10] != ' ') || iso[13] != ':' ||
      !digits(0, 4, year) || !digits(5, 2, month) || !digits(8, 2, day) || !digits(11, 2, hour) || !digits(14, 2, minute))
    return std::string(iso);
  try {
    return fmt::format(fmt::runtime(ui_text("locale.datetime")), fmt::arg("year", year), fmt::arg("month", month),
                       fmt::arg("day", day), fmt::arg("hour", hour), fmt::arg("minute", minute));
  } catch (const fmt::format_error&) {
    return std::string(iso.substr(0, 16));
  }
}

std::string language_menu_html() {
  const MessageCatalogs& c = current.catalogs ? *current.catalogs : builtin();
  if (c.languages().size() < 2) return "";
  // The current page's query without its lang, then lang=CODE.
  std::vector<std::pair<std::string, std::string>> params;
  const QueryParams query(current.query);
  for (const auto& [k, v] : query.pairs())
    if (k != "lang") params.emplace_back(k, v);
  std::string out = "<nav class=\"languages\" aria-label=\"" + esc(ui_text("language.menu")) + "\"><span>" +
                    esc(ui_text("language.menu")) + "</span>";
  for (const std::string& lang : c.languages()) {
    auto with_lang = params;
    with_lang.emplace_back("lang", lang);
    const bool on = lang == current.lang;
    out += "<a href=\"" + esc(current.path + build_query(with_lang)) + "\" hreflang=\"" + esc(lang) + "\" lang=\"" +
           esc(lang) + "\"" + (on ? " class=\"current\" aria-current=\"true\"" : "") + ">" +
           esc(c.text(lang, "language_name")) + "</a>";
  }
  out += "</nav>";
  return out;
}

}  // namespace sm::site
