// The report inside the site's pages speaks the page's language (issue 15 part 3): every msgid
// the report's code passes to tr() / trf() / tr_noop() is in every report-LANG.json and no catalog
// keeps one the code no longer uses; a broken catalog is refused; /runs/ID, /compare and /calc on
// ?lang=ja show the report's titles, labels and headers in Japanese and none of a list of English
// ones; without a translator the report is the English one; a third language's report is a file
// in `serve --messages DIR`.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "report/report.h"
#include "result/result_json.h"
#include "site/site.h"
#include "site/site_fixtures.h"
#include "site/ui_language.h"
#include "site/upload_token.h"
#include "store/result_store.h"
#include "support/temp_dir.h"

namespace sm::site {
namespace {

const std::filesystem::path kSource(SPEEDMATRIX_SOURCE_DIR);

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::map<std::string, std::string> catalog(const std::filesystem::path& path) {
  std::map<std::string, std::string> out;
  const nlohmann::json doc = nlohmann::json::parse(read_file(path));
  for (const auto& [k, v] : doc.items()) out[k] = v.get<std::string>();
  return out;
}

// The value of C++ string literals written one after another ("a" "b" -> ab).
std::string literal_value(const std::string& literals) {
  std::string out;
  bool inside = false;
  for (size_t i = 0; i < literals.size(); ++i) {
    const char c = literals[i];
    if (!inside) {
      if (c == '"') inside = true;
      continue;
    }
    if (c == '"') {
      inside = false;
    } else if (c == '\\' && i + 1 < literals.size()) {
      const char e = literals[++i];
      out += e == 'n' ? '\n' : e == 't' ? '\t' : e;
    } else {
      out += c;
    }
  }
  return out;
}

// Every msgid of src/report: the literal first argument of tr(, trf( and tr_noop(, like xgettext.
std::map<std::string, std::string> report_msgids() {
  const std::regex call(R"re((^|[^A-Za-z0-9_])(tr|trf|tr_noop)\(\s*((?:"(?:[^"\\]|\\.)*"\s*)+))re");
  std::map<std::string, std::string> out;  // msgid -> file
  for (const auto& entry : std::filesystem::directory_iterator(kSource / "src/report")) {
    if (entry.path().extension() != ".cc") continue;
    const std::string text = read_file(entry.path());
    for (auto it = std::sregex_iterator(text.begin(), text.end(), call); it != std::sregex_iterator(); ++it)
      out.emplace(literal_value((*it)[3]), entry.path().filename().string());
  }
  return out;
}

TEST(ReportCatalogs, EveryMsgidTheReportUsesIsInEveryCatalogAndNoOther) {
  const auto used = report_msgids();
  ASSERT_GT(used.size(), 250u);
  EXPECT_TRUE(used.contains("Served model"));
  EXPECT_TRUE(used.contains("Hardware unknown: the server ran on another machine ({}), so these numbers are credited to "
                            "no hardware. Declare it next time: run `speedmatrix hardware --out server-hardware.json` on "
                            "the server and pass `--server-hardware server-hardware.json` to `speedmatrix run`, or give "
                            "`--gpu \"NAME\" --gpu-count N`."));  // one msgid over several literals, with escapes
  const auto english = catalog(kSource / "data/site/report-en.json");
  for (const auto& [msgid, file] : used) EXPECT_TRUE(english.contains(msgid)) << file << ": \"" << msgid << "\"";
  for (const auto& [msgid, text] : english) {
    EXPECT_TRUE(used.contains(msgid)) << "report-en.json: \"" << msgid << "\" is no longer used";
    EXPECT_EQ(text, msgid) << "report-en.json holds the English text as it is";
  }
  // Every language the site speaks has its report catalog, with the same msgids.
  int languages = 0;
  for (const auto& entry : std::filesystem::directory_iterator(kSource / "data/site")) {
    const std::string name = entry.path().filename().string();
    if (!name.starts_with("messages-") || !name.ends_with(".json")) continue;
    ++languages;
    const std::filesystem::path report = kSource / "data/site" / ("report-" + name.substr(9));
    ASSERT_TRUE(std::filesystem::exists(report)) << name << " has no " << report.filename();
    const auto translated = catalog(report);
    for (const auto& [msgid, text] : english) {
      auto it = translated.find(msgid);
      EXPECT_TRUE(it != translated.end() && !it->second.empty()) << report.filename() << ": \"" << msgid << "\"";
    }
    for (const auto& [msgid, text] : translated) EXPECT_TRUE(english.contains(msgid)) << report.filename() << ": +" << msgid;
  }
  EXPECT_GE(languages, 2);
}

// A translation keeps the msgid's fmt fields usable: each field of the translation names one the
// English has (by position), so trf never falls back to English for a catalog's slip.
TEST(ReportCatalogs, TranslationsUseOnlyTheFieldsOfTheirMsgid) {
  const std::regex field(R"(\{(\d*)(:[^}]*)?\})");
  const auto count_fields = [&](const std::string& s) {
    return static_cast<size_t>(std::distance(std::sregex_iterator(s.begin(), s.end(), field), std::sregex_iterator()));
  };
  const auto japanese = catalog(kSource / "data/site/report-ja.json");
  for (const auto& [msgid, text] : japanese) {
    const size_t fields = count_fields(msgid);
    size_t next = 0;
    for (auto it = std::sregex_iterator(text.begin(), text.end(), field); it != std::sregex_iterator(); ++it) {
      const std::string index = (*it)[1];
      const size_t at = index.empty() ? next++ : std::stoul(index);
      EXPECT_LT(at, fields) << "report-ja.json: \"" << msgid << "\"";
    }
  }
}

TEST(ReportCatalogs, ABrokenCatalogIsRefusedNamingFileAndMsgid) {
  auto catalogs = MessageCatalogs::from_json({{"en", R"({"a": "A"})"}, {"xx", R"({"a": "x"})"}});
  ASSERT_TRUE(catalogs);
  auto missing = catalogs->add_report_catalogs({{"en", R"({"Run": "Run", "Hardware": "Hardware"})"}, {"xx", R"({"Run": "Lauf"})"}});
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message.find("report-xx.json"), std::string::npos) << missing.error().message;
  EXPECT_NE(missing.error().message.find("Hardware"), std::string::npos) << missing.error().message;
  EXPECT_FALSE(catalogs->add_report_catalogs({{"en", "{}"}, {"zz", "{}"}}));  // no messages-zz.json
  EXPECT_FALSE(catalogs->add_report_catalogs({{"en", R"({"Run": 1})"}}));    // not a string
  ASSERT_TRUE(catalogs->add_report_catalogs({{"en", R"({"Run": "Run"})"}, {"xx", R"({"Run": "Lauf"})"}}));
  EXPECT_EQ(catalogs->report_text("xx", "Run"), "Lauf");
  EXPECT_EQ(catalogs->report_text("xx", "Not a msgid"), "Not a msgid");
  EXPECT_EQ(catalogs->report_text("en", "Run"), "Run");
}

// The report layer alone: a translator changes the words, reorders fields, and a translation
// whose fields do not fit is not used.
TEST(ReportTranslation, TranslatorWordsAndItsAbsence) {
  const RunResult r = test::site_result("tr-run");
  const std::string english = render_report(r, ReportFormat::Html, {});
  RenderOptions upper;
  upper.translate = [](std::string_view msgid) -> std::string {
    if (msgid == "Served model") return "SERVED MODEL";
    if (msgid == "{} on {}") return "{1} hosts {0}";
    if (msgid == "{} tokens") return "{5} broken";  // no such field: the English is kept
    return std::string(msgid);
  };
  const std::string translated = render_report(r, ReportFormat::Html, upper);
  EXPECT_NE(english.find("<dt>Served model</dt>"), std::string::npos);
  EXPECT_NE(translated.find("<dt>SERVED MODEL</dt>"), std::string::npos);
  EXPECT_EQ(translated.find("<dt>Served model</dt>"), std::string::npos);
  EXPECT_NE(translated.find("<title>Speed test matrix — RTX 3090 24GB hosts Qwen3.5-4B-AWQ-4bit"), std::string::npos);
  EXPECT_NE(translated.find("8,192 tokens"), std::string::npos);
  // The scope ends with the call: the next report without a translator is English again.
  EXPECT_EQ(render_report(r, ReportFormat::Html, {}), english);
}

class ReportLanguageSiteTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto s = store::open_store("sqlite:" + dir_.file("site.db"));
    ASSERT_TRUE(s) << s.error().message;
    store_ = std::move(*s);
    auto t = generate_upload_token();
    ASSERT_TRUE(t);
    secret_ = t->secret;
    ASSERT_TRUE(store_->create_token({t->token_id, "test", "2026-12-03T09:00:00Z", "", 0}, t->sha256_hex));
    SiteConfig config;
    config.upload_rate_per_min = 0;
    config.log_line = [](const std::string&) {};
    auto site = Site::create(*store_, config, clock_);
    ASSERT_TRUE(site) << site.error().message;
    site_ = std::move(*site);
  }

  void upload(const RunResult& r) {
    SiteRequest req;
    req.method = HttpMethod::Post;
    req.path = "/api/v1/runs";
    req.authorization = "Bearer " + secret_;
    req.body = to_json(r).dump();
    ASSERT_EQ(site_->handle(req).status, 201);
  }

  SiteResponse get(const std::string& path, const std::string& query) {
    SiteRequest r;
    r.path = path;
    r.query = query;
    return site_->handle(r);
  }

  test::TempDir dir_;
  ManualClock clock_{1'000'000'000};
  std::unique_ptr<store::ResultStore> store_;
  std::unique_ptr<Site> site_;
  std::string secret_;
};

// English labels of the report that must not remain on a Japanese page.
const std::vector<std::string> kEnglishLabels = {
    "<h2>Hardware</h2>",      "<h2>Engine</h2>",         "<h2>Run</h2>",
    "<h2>Prefill</h2>",       "<h2>Sustained decode</h2>", "<h2>All measurements</h2>",
    "<h2>What the numbers mean</h2>", "<dt>Served model</dt>", "<dt>Max output</dt>",
    "<dt>Quantization</dt>",  "<dt>Driver</dt>",         "scope=\"col\">Context</th>",
    ">Requests at once</th>", ">Time between tokens</th>", "aria-label=\"Headline figures\"",
    "<span class=\"label\">Best total decode</span>", "<span>not run</span>", ">Per request</h3>",
    ">Speed test matrix</p>", "<dt>Output tok/s (all requests)</dt>"};

TEST_F(ReportLanguageSiteTest, TheRunPagesReportSpeaksThePagesLanguage) {
  upload(test::site_result("ja-run"));
  const SiteResponse en = get("/runs/ja-run", "lang=en");
  ASSERT_EQ(en.status, 200);
  for (const auto& label : kEnglishLabels) EXPECT_NE(en.body.find(label), std::string::npos) << label;  // a real list

  const SiteResponse ja = get("/runs/ja-run", "lang=ja");
  ASSERT_EQ(ja.status, 200);
  for (const char* japanese :
       {"<h2>ハードウェア</h2>", "<h2>エンジン</h2>", "<h2>持続デコード</h2>", "<h2>すべての測定値</h2>",
        "<h2>数値の意味</h2>", "<dt>提供モデル</dt>", "<dt>最大出力</dt>", "<dd>8,192 トークン</dd>",
        "scope=\"col\">コンテキスト</th>", ">同時リクエスト数</th>", "<span class=\"label\">最高の合計デコード</span>",
        "<span>未実行</span>", ">速度テストマトリクス</p>", "<a href=\"#definitions\">定義</a>"})
    EXPECT_NE(ja.body.find(japanese), std::string::npos) << japanese;
  for (const auto& label : kEnglishLabels) EXPECT_EQ(ja.body.find(label), std::string::npos) << label;
  // Names and numbers stay as they are.
  EXPECT_NE(ja.body.find("Qwen3.5-4B-AWQ-4bit"), std::string::npos);
  EXPECT_NE(ja.body.find("AWQ 4-bit"), std::string::npos);
}

TEST_F(ReportLanguageSiteTest, CompareAndCalcSpeakThePagesLanguageToo) {
  upload(test::site_result("run-a", "Model-A"));
  upload(test::site_result("run-b", "Model-B"));
  const SiteResponse en = get("/compare", "run=run-a&run=run-b&lang=en");
  ASSERT_EQ(en.status, 200);
  EXPECT_NE(en.body.find("<h2>Runs</h2>"), std::string::npos);
  EXPECT_NE(en.body.find("<h3>Settings that differ</h3>"), std::string::npos);
  const SiteResponse ja = get("/compare", "run=run-a&run=run-b&lang=ja");
  ASSERT_EQ(ja.status, 200);
  for (const char* japanese : {"<h2>実行</h2>", "<h2>ノイズ</h2>", "<h2>持続デコード</h2>", ">速度テストマトリクス · 比較</p>"})
    EXPECT_NE(ja.body.find(japanese), std::string::npos) << japanese;
  for (const char* english : {"<h2>Runs</h2>", "<h2>Noise</h2>", "<h2>Sustained decode</h2>", ">Speed test matrix · compare</p>"})
    EXPECT_EQ(ja.body.find(english), std::string::npos) << english;

  // The calculator's prediction is a report too.
  const std::string query = "gpu=rtx3090&model=qwen3.5-4b&quant=awq-4bit&engine=vllm&contexts=0&concurrency=1,2&prefill=none";
  const SiteResponse calc_en = get("/calc", query + "&lang=en");
  ASSERT_EQ(calc_en.status, 200) << calc_en.body;
  EXPECT_NE(calc_en.body.find("<h2>What the numbers mean</h2>"), std::string::npos);
  const SiteResponse calc = get("/calc", query + "&lang=ja");
  ASSERT_EQ(calc.status, 200);
  EXPECT_NE(calc.body.find("<h2>数値の意味</h2>"), std::string::npos);
  EXPECT_NE(calc.body.find("予測：この数値は測定ではなく"), std::string::npos);  // the finding the report composes
  EXPECT_EQ(calc.body.find("<h2>What the numbers mean</h2>"), std::string::npos);
}

// A language's report is a file too: report-de.json beside messages-de.json in `serve --messages
// DIR` puts the run report of a German page in German; one lacking a msgid is refused at start;
// a language without one shows the report in English.
TEST(ReportCatalogFiles, AThirdLanguagesReportIsAFile) {
  test::TempDir dir;
  const std::string messages = dir.file("messages");
  std::filesystem::create_directories(messages);
  nlohmann::json de = nlohmann::json::parse(read_file(kSource / "data/site/messages-en.json"));
  de["language_name"] = "Deutsch";
  std::ofstream(messages + "/messages-de.json") << de.dump(2);
  nlohmann::json report_de = nlohmann::json::parse(read_file(kSource / "data/site/report-en.json"));
  report_de["Served model"] = "Bereitgestelltes Modell";
  report_de["What the numbers mean"] = "Was die Zahlen bedeuten";
  std::ofstream(messages + "/report-de.json") << report_de.dump(2);

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
  up.body = to_json(test::site_result("de-run")).dump();
  ASSERT_EQ((*site)->handle(up).status, 201);
  SiteRequest get;
  get.path = "/runs/de-run";
  get.query = "lang=de";
  const std::string german = (*site)->handle(get).body;
  EXPECT_NE(german.find("<dt>Bereitgestelltes Modell</dt>"), std::string::npos);
  EXPECT_NE(german.find("<h2>Was die Zahlen bedeuten</h2>"), std::string::npos);
  EXPECT_NE(german.find("<dt>Max output</dt>"), std::string::npos);  // the file's own (English) text

  // Without its report file the language still starts, with the report in English.
  std::filesystem::remove(messages + "/report-de.json");
  auto english_report = Site::create(**s, config, clock);
  ASSERT_TRUE(english_report) << english_report.error().message;
  EXPECT_NE((*english_report)->handle(get).body.find("<dt>Served model</dt>"), std::string::npos);

  // A report file lacking a msgid is refused, naming the file and the msgid.
  report_de.erase("Served model");
  std::ofstream(messages + "/report-de.json") << report_de.dump(2);
  auto refused = Site::create(**s, config, clock);
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find("report-de.json"), std::string::npos) << refused.error().message;
  EXPECT_NE(refused.error().message.find("Served model"), std::string::npos) << refused.error().message;
}

}  // namespace
}  // namespace sm::site
