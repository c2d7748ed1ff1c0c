// The site's languages (issue 15 part 3, first step): message catalogs complete in every
// language, the choice of language (?lang=, cookie, Accept-Language), and the page frame in
// Japanese with the seed's wording.
#include <gtest/gtest.h>

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

}  // namespace
}  // namespace sm::site
