// The site's languages (issue 15 part 3): message catalogs complete in every language (and every
// key the pages use present), the choice of language (?lang=, cookie, Accept-Language), every
// page in Japanese with the seed's wording, numbers and dates in the catalog's locale, and a
// third language added by adding a file.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "result/result_json.h"
#include "site/site_fixtures.h"
#include "site/upload_token.h"

#include "site/site.h"
#include "site/ui_language.h"
#include "store/result_store.h"
#include "support/temp_dir.h"

namespace sm::site {
namespace {

TEST(UiLanguage, EveryCatalogHasEveryKeyOfTheEnglishOne) {
  auto catalogs = MessageCatalogs::load_embedded();
  ASSERT_TRUE(catalogs) << catalogs.error().message;  // load_embedded refuses a catalog with a key missing
  EXPECT_EQ(catalogs->languages().front(), "en");
  EXPECT_TRUE(catalogs->has("ja"));
  auto broken = MessageCatalogs::from_json({{"en", R"({"a": "A", "b": "B"})"}, {"xx", R"({"a": "x", "c": "y"})"}});
  ASSERT_FALSE(broken);
  EXPECT_NE(broken.error().message.find("messages-xx.json"), std::string::npos) << broken.error().message;
  EXPECT_NE(broken.error().message.find("b, +c"), std::string::npos) << broken.error().message;
}

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::set<std::string> json_keys(const std::string& text) {
  std::set<std::string> keys;
  const nlohmann::json doc = nlohmann::json::parse(text);
  for (const auto& [k, v] : doc.items()) keys.insert(k);
  return keys;
}

// The files in data/site/ themselves (what the next build embeds): the same keys in each.
TEST(UiLanguage, EveryCatalogFileHasTheSameKeysAsTheEnglishOne) {
  const std::filesystem::path dir = std::filesystem::path(SPEEDMATRIX_SOURCE_DIR) / "data/site";
  const std::set<std::string> english = json_keys(read_file(dir / "messages-en.json"));
  ASSERT_GT(english.size(), 100u);
  int catalogs = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (!name.starts_with("messages-") || !name.ends_with(".json")) continue;
    ++catalogs;
    const std::set<std::string> keys = json_keys(read_file(entry.path()));
    std::vector<std::string> english_keys(english.begin(), english.end()), lang_keys(keys.begin(), keys.end());
    EXPECT_EQ(missing_keys(english_keys, lang_keys), std::vector<std::string>{}) << name;
  }
  EXPECT_GE(catalogs, 2);
}

// Every key the site's code asks for by name is in the English catalog (and so, by the test
// above, in every catalog): a typo or a key added to the code but not to the files fails here.
TEST(UiLanguage, EveryKeyTheCodeUsesIsInTheCatalogs) {
  const std::filesystem::path src = std::filesystem::path(SPEEDMATRIX_SOURCE_DIR) / "src/site";
  const std::set<std::string> english =
      json_keys(read_file(std::filesystem::path(SPEEDMATRIX_SOURCE_DIR) / "data/site/messages-en.json"));
  const std::regex call(R"re(ui_(text|format|count)\(\s*"([a-z0-9_.]+)"\s*[,)])re");
  int used = 0;
  for (const auto& entry : std::filesystem::directory_iterator(src)) {
    if (entry.path().extension() != ".cc") continue;
    const std::string text = read_file(entry.path());
    for (auto it = std::sregex_iterator(text.begin(), text.end(), call); it != std::sregex_iterator(); ++it) {
      const std::string key = (*it)[2];
      ++used;
      if ((*it)[1] == "count") {
        EXPECT_TRUE(english.contains(key + ".one") && english.contains(key + ".other"))
            << entry.path().filename() << ": " << key << ".one/.other";
      } else {
        EXPECT_TRUE(english.contains(key)) << entry.path().filename() << ": " << key;
      }
    }
  }
  EXPECT_GT(used, 80);
}

TEST(UiLanguage, NumbersAndDatesFollowTheCatalogsLocale) {
  auto catalogs = MessageCatalogs::from_json(
      {{"en", R"({"locale.group": ",", "locale.decimal": ".", "locale.datetime": "{year}-{month:02}-{day:02} {hour:02}:{minute:02}"})"},
       {"ja", R"({"locale.group": ",", "locale.decimal": ".", "locale.datetime": "{year}年{month}月{day}日 {hour:02}:{minute:02}"})"},
       {"de", R"({"locale.group": ".", "locale.decimal": ",", "locale.datetime": "{day}.{month}.{year}, {hour:02}:{minute:02}"})"}});
  ASSERT_TRUE(catalogs) << catalogs.error().message;
  {
    UiLanguageScope scope(*catalogs, "ja", "/", "");
    EXPECT_EQ(ui_datetime("2026-12-04T05:03:12Z"), "2026年12月4日 05:03");
    EXPECT_EQ(ui_number(1234567), "1,234,567");
  }
  {
    UiLanguageScope scope(*catalogs, "de", "/", "");
    EXPECT_EQ(ui_datetime("2026-12-04T05:03:12Z"), "4.12.2026, 05:03");
    EXPECT_EQ(ui_number(1234567), "1.234.567");
    EXPECT_EQ(ui_localize_number("1,081.5"), "1.081,5");
    EXPECT_EQ(ui_localize_number("10.6K"), "10,6K");
    EXPECT_EQ(ui_localize_number("a, b. 7."), "a, b. 7.");  // marks not between digits are not a number's
    EXPECT_EQ(ui_datetime("not a time"), "not a time");
  }
  EXPECT_EQ(ui_datetime("2026-12-04T05:03:12Z"), "2026-12-04 05:03");  // no scope: English
}

TEST(UiLanguage, QueryThenCookieThenAcceptLanguageThenEnglish) {
  auto c = MessageCatalogs::load_embedded();
  ASSERT_TRUE(c);
  EXPECT_EQ(c->choose("ja", "sm_lang=en", "en"), "ja");
  EXPECT_EQ(c->choose("", "theme=dark; sm_lang=ja", "en"), "ja");
  EXPECT_EQ(c->choose("zz", "", "ja-JP,ja;q=0.9,en;q=0.8"), "ja");
  EXPECT_EQ(c->choose("", "", "fr;q=1,en;q=0.5,ja;q=0.7"), "ja");
  EXPECT_EQ(c->choose("", "", "fr, de"), "en");
  EXPECT_EQ(c->choose("", "sm_lang=zz", ""), "en");
}

class UiLanguageSiteTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto s = store::open_store("sqlite:" + dir_.file("site.db"));
    ASSERT_TRUE(s) << s.error().message;
    store_ = std::move(*s);
    auto site = Site::create(*store_, {}, clock_);
    ASSERT_TRUE(site) << site.error().message;
    site_ = std::move(*site);
  }

  SiteResponse get(const std::string& path, const std::string& query, const std::string& cookie = "",
                   const std::string& accept_language = "") {
    SiteRequest r;
    r.path = path;
    r.query = query;
    r.cookie = cookie;
    r.accept_language = accept_language;
    return site_->handle(r);
  }

  static std::string header(const SiteResponse& r, const std::string& name) {
    for (const auto& [k, v] : r.headers)
      if (k == name) return v;
    return "";
  }

  test::TempDir dir_;
  ManualClock clock_{1'000'000'000};
  std::unique_ptr<store::ResultStore> store_;
  std::unique_ptr<Site> site_;
};

TEST_F(UiLanguageSiteTest, JapaneseFrameWithTheSeedsWordsAndAMenuThatKeepsTheQuery) {
  SiteResponse en = get("/runs", "kind=measured");
  EXPECT_NE(en.body.find(">Leaderboard</a>"), std::string::npos);
  EXPECT_NE(en.body.find("<html lang=\"en\">"), std::string::npos);
  EXPECT_EQ(header(en, "Set-Cookie"), "");
  SiteResponse ja = get("/runs", "kind=measured&lang=ja");
  ASSERT_EQ(ja.status, 200);
  for (const char* word : {"リーダーボード", "はじめに", "モデル", "ハードウェア", "APIドキュメント", "言語"})
    EXPECT_NE(ja.body.find(word), std::string::npos) << word;
  EXPECT_NE(ja.body.find("<html lang=\"ja\">"), std::string::npos);
  EXPECT_EQ(header(ja, "Content-Language"), "ja");
  EXPECT_EQ(header(ja, "Set-Cookie"), "sm_lang=ja; Path=/; Max-Age=31536000; SameSite=Lax");
  // The menu links the same page and query in each language.
  EXPECT_NE(ja.body.find("href=\"/runs?kind=measured&amp;lang=en\" hreflang=\"en\""), std::string::npos);
  // The cookie and Accept-Language choose too.
  EXPECT_NE(get("/", "", "sm_lang=ja").body.find("リーダーボード"), std::string::npos);
  EXPECT_NE(get("/", "", "", "ja-JP,ja;q=0.9").body.find("リーダーボード"), std::string::npos);
  // The kind tabs, headings and filters are translated too.
  const std::string board = get("/", "lang=ja").body;
  EXPECT_NE(board.find(">実測</a>"), std::string::npos);
  EXPECT_NE(board.find("<h1>リーダーボード</h1>"), std::string::npos);
  EXPECT_NE(board.find(">絞り込む</button>"), std::string::npos);
}

// Every page's own heading is in Japanese on ?lang=ja, not only the frame.
TEST_F(UiLanguageSiteTest, EveryPageHasItsJapaneseHeading) {
  const std::vector<std::pair<std::string, std::string>> pages = {
      {"/", "<h1>リーダーボード</h1>"},      {"/runs", "<h1>マトリクス実行</h1>"},
      {"/hardware", "<h1>ハードウェア</h1>"}, {"/models", "<h1>モデル</h1>"},
      {"/compare", "<h1>比較</h1>"},          {"/calc", "<h1>デコード計算機</h1>"},
      {"/getting-started", "<h1>はじめに</h1>"}, {"/api", "<h1>APIドキュメント</h1>"},
      {"/benchmarks", "<h1>ベンチマーク</h1>"}};
  for (const auto& [path, heading] : pages) {
    const SiteResponse r = get(path, "lang=ja");
    EXPECT_EQ(r.status, 200) << path;
    EXPECT_NE(r.body.find(heading), std::string::npos) << path;
    EXPECT_NE(r.body.find(">ベンチマーク</a>"), std::string::npos) << path;  // the seed's navigation
  }
  const SiteResponse missing = get("/no-such-page", "lang=ja");
  EXPECT_EQ(missing.status, 404);
  EXPECT_NE(missing.body.find("このアドレスにページはありません。"), std::string::npos);
  EXPECT_NE(get("/", "lang=ja&kind=all").body.find("まだ実行はありません。"), std::string::npos);  // the empty state
}

// Adding a language is adding a file: messages-de.json in `serve --messages DIR` (the same
// loader reads data/site/ at build time) gives German pages with German number and date marks.
TEST(UiLanguageFiles, AThirdLanguageIsAFile) {
  test::TempDir dir;
  const std::string messages = dir.file("messages");
  std::filesystem::create_directories(messages);
  nlohmann::json de = nlohmann::json::parse(
      read_file(std::filesystem::path(SPEEDMATRIX_SOURCE_DIR) / "data/site/messages-en.json"));
  de["language_name"] = "Deutsch";
  de["nav.leaderboard"] = "Bestenliste";
  de["nav.runs"] = "Matrix-Läufe";
  de["locale.group"] = ".";
  de["locale.decimal"] = ",";
  de["locale.datetime"] = "{day}.{month}.{year}, {hour:02}:{minute:02}";
  std::ofstream(messages + "/messages-de.json") << de.dump(2);

  auto s = store::open_store("sqlite:" + dir.file("site.db"));
  ASSERT_TRUE(s) << s.error().message;
  auto t = generate_upload_token();
  ASSERT_TRUE(t);
  ASSERT_TRUE((*s)->create_token({t->token_id, "test", "2026-12-03T09:00:00Z", "", 0}, t->sha256_hex));
  ManualClock clock{1'000'000'000};
  SiteConfig config;
  config.messages_dir = messages;
  config.upload_rate_per_min = 0;
  config.log_line = [](const std::string&) {};
  auto site = Site::create(**s, config, clock);
  ASSERT_TRUE(site) << site.error().message;
  SiteRequest up;
  up.method = HttpMethod::Post;
  up.path = "/api/v1/runs";
  up.authorization = "Bearer " + t->secret;
  up.body = to_json(test::site_result("de-run", "Model-de", "NVIDIA GeForce RTX 3090", 1234.5)).dump();
  ASSERT_LT((*site)->handle(up).status, 300);

  SiteRequest get;
  get.path = "/runs";
  get.query = "lang=de";
  const SiteResponse german = (*site)->handle(get);
  ASSERT_EQ(german.status, 200);
  EXPECT_NE(german.body.find("<h1>Matrix-Läufe</h1>"), std::string::npos);
  EXPECT_NE(german.body.find(">Bestenliste</a>"), std::string::npos);
  EXPECT_NE(german.body.find("<html lang=\"de\">"), std::string::npos);
  // 1234.5 tok/s single stream: a whole number in the list's column (NumberColumn), German marks.
  EXPECT_NE(german.body.find(">1.235<"), std::string::npos);
  EXPECT_NE(german.body.find("hreflang=\"de\" lang=\"de\" class=\"current\" aria-current=\"true\">Deutsch</a>"), std::string::npos);  // in the menu
  get.query = "lang=en";
  const SiteResponse english = (*site)->handle(get);
  EXPECT_NE(english.body.find(">1,235<"), std::string::npos);
  EXPECT_NE(english.body.find(">Deutsch</a>"), std::string::npos);  // every page offers it

  // A file with a key missing is refused when the site starts, naming the file and the key.
  de.erase("nav.runs");
  std::ofstream(messages + "/messages-de.json", std::ios::trunc) << de.dump(2);
  auto refused = Site::create(**s, config, clock);
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find("messages-de.json"), std::string::npos) << refused.error().message;
  EXPECT_NE(refused.error().message.find("nav.runs"), std::string::npos) << refused.error().message;
}

}  // namespace
}  // namespace sm::site
