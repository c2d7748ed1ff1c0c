// The errors the pages show, in the page's language (issue 15): the listing parameters' and the
// calculator's parameter errors and the calculator's refusals are sentences with a catalog key
// and fields (site/ui_error.h, calc/phrase.h). On ?lang=ja the page says them in Japanese and not
// in English; the English page and the JSON API say exactly what they said before.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "calc/phrase.h"
#include "site/page_layout.h"
#include "site/site.h"
#include "site/ui_error.h"
#include "site/ui_language.h"
#include "store/result_store.h"
#include "support/temp_dir.h"

namespace sm::site {
namespace {

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

nlohmann::json catalog_file(const std::string& name) {
  return nlohmann::json::parse(read_file(std::filesystem::path(SPEEDMATRIX_SOURCE_DIR) / "data/site" / name));
}

// One mistake: the page and query that make it, the API request that makes it (empty: none; a
// body: POST /api/v1/calc), the English (page and API, word for word) and the Japanese.
struct Case {
  std::string path;
  std::string query;
  std::string api;  // "/api/v1/...?query" or a JSON body for POST /api/v1/calc
  std::string english;
  std::string japanese;
};

class ErrorLanguageTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto s = store::open_store("sqlite:" + dir_.file("site.db"));
    ASSERT_TRUE(s) << s.error().message;
    store_ = std::move(*s);
    SiteConfig config;
    config.calc_rate_per_min = 0;  // every case is a calculation
    config.log_line = [](const std::string&) {};
    auto site = Site::create(*store_, config, clock_);
    ASSERT_TRUE(site) << site.error().message;
    site_ = std::move(*site);
  }

  SiteResponse get(const std::string& path, const std::string& query) {
    SiteRequest r;
    r.path = path;
    r.query = query;
    r.client = "127.0.0.1";
    return site_->handle(r);
  }

  // The API's error message for the case.
  std::string api_message(const Case& c) {
    SiteResponse r;
    if (c.api.starts_with("/")) {
      const size_t q = c.api.find('?');
      r = get(c.api.substr(0, q), q == std::string::npos ? "" : c.api.substr(q + 1));
    } else {
      SiteRequest post;
      post.method = HttpMethod::Post;
      post.path = "/api/v1/calc";
      post.content_type = "application/json";
      post.client = "127.0.0.1";
      post.body = c.api;
      r = site_->handle(post);
    }
    EXPECT_EQ(r.status, 400) << c.api << ": " << r.body;
    const nlohmann::json j = nlohmann::json::parse(r.body, nullptr, false);
    if (j.is_discarded() || !j.contains("error")) return "(not an API error: " + r.body + ")";
    return j["error"].value("message", "");
  }

  void check(const std::vector<Case>& cases) {
    for (const Case& c : cases) {
      const std::string where = c.path + "?" + c.query;
      const SiteResponse ja = get(c.path, c.query + "&lang=ja");
      EXPECT_EQ(ja.status, 400) << where;
      EXPECT_NE(ja.body.find("<div class=\"error-box\">" + esc(c.japanese) + "</div>"), std::string::npos)
          << where << "\n" << c.japanese;
      EXPECT_EQ(ja.body.find(esc(c.english)), std::string::npos) << where << ": the English is on the Japanese page";
      const SiteResponse en = get(c.path, c.query + "&lang=en");
      EXPECT_EQ(en.status, 400) << where;
      EXPECT_NE(en.body.find("<div class=\"error-box\">" + esc(c.english) + "</div>"), std::string::npos)
          << where << "\n" << c.english;
      if (!c.api.empty()) {
        EXPECT_EQ(api_message(c), c.english) << c.api;
      }
    }
  }

  test::TempDir dir_;
  ManualClock clock_{1'000'000'000};
  std::unique_ptr<store::ResultStore> store_;
  std::unique_ptr<Site> site_;
};

TEST_F(ErrorLanguageTest, ListingParameterErrorsAreJapaneseOnPagesAndEnglishOnTheApi) {
  check({
      {"/", "kind=bogus", "/api/v1/leaderboard?kind=bogus",
       "kind: 'bogus' is not one of measured, predicted, simulated, all",
       "kind：「bogus」は measured, predicted, simulated, all のいずれでもありません。"},
      {"/runs", "sort=fastest", "/api/v1/runs?sort=fastest",
       "sort: 'fastest' is not one of newest, single_stream, best_total, prefill_32k, tokens_per_joule",
       "sort：「fastest」は newest, single_stream, best_total, prefill_32k, tokens_per_joule のいずれでもありません。"},
      {"/", "flagged=maybe", "/api/v1/leaderboard?flagged=maybe", "flagged: 'maybe' is not include or exclude",
       "flagged：「maybe」は include でも exclude でもありません。"},
      {"/hardware", "gpu=RTX&limit=0", "/api/v1/runs?limit=0", "limit: expected a whole number from 1 to 500",
       "limit：1 から 500 までの整数を指定してください。"},
      {"/models", "model=M&offset=-1", "/api/v1/runs?offset=-1",
       "offset: expected a whole number from 0 to 1099511627776",
       "offset：0 から 1099511627776 までの整数を指定してください。"},
      {"/hardware", "kind=x", "/api/v1/hardware?kind=x", "kind: 'x' is not one of measured, predicted, simulated, all",
       "kind：「x」は measured, predicted, simulated, all のいずれでもありません。"},
      {"/models", "kind=x", "/api/v1/models?kind=x", "kind: 'x' is not one of measured, predicted, simulated, all",
       "kind：「x」は measured, predicted, simulated, all のいずれでもありません。"},
      {"/compare", "sort=x", "", "sort: 'x' is not one of newest, single_stream, best_total, prefill_32k, tokens_per_joule",
       "sort：「x」は newest, single_stream, best_total, prefill_32k, tokens_per_joule のいずれでもありません。"},
      // A cursor that is not one, each way (store/page_cursor.h's faults), and one of another order.
      {"/runs", "cursor=zz", "/api/v1/runs?cursor=zz",
       "cursor: not a cursor of this site (five parts separated by ~ expected)",
       "cursor：このサイトのカーソルではありません（~ で区切られた 5 つの部分が必要です）。"},
      {"/runs", "cursor=x1~0~0~t~r", "/api/v1/runs?cursor=x1~0~0~t~r",
       "cursor: not a cursor of this site (it starts with a or b and an order 0 to 4)",
       "cursor：このサイトのカーソルではありません（a または b と、並べ順を表す 0～4 で始まります）。"},
      {"/runs", "cursor=a0~x~0~t~r", "/api/v1/runs?cursor=a0~x~0~t~r", "cursor: not a cursor of this site (position)",
       "cursor：このサイトのカーソルではありません（位置が読めません）。"},
      {"/runs", "cursor=a0~0~x~t~r", "/api/v1/runs?cursor=a0~0~x~t~r", "cursor: not a cursor of this site (key)",
       "cursor：このサイトのカーソルではありません（キーが読めません）。"},
      {"/runs", "cursor=a0~0~0~~r", "/api/v1/runs?cursor=a0~0~0~~r",
       "cursor: not a cursor of this site (upload time and run id)",
       "cursor：このサイトのカーソルではありません（アップロード日時と実行 ID が必要です）。"},
      {"/runs", "cursor=a1~0~0~t~r", "/api/v1/runs?cursor=a1~0~0~t~r",
       "cursor: it belongs to another sort order; follow the page's own links",
       "cursor：別の並べ順のカーソルです。ページ内のリンクをたどってください。"},
  });
}

TEST_F(ErrorLanguageTest, CalculatorParameterErrorsAreJapaneseOnThePageAndEnglishOnTheApi) {
  const std::string setup = "gpu=rtx3090&model=llama-3.1-8b&quant=bf16&engine=vllm";
  check({
      {"/calc", "gpu=rtx309", R"({"gpu": "rtx309"})",
       "gpu: unknown GPU 'rtx309'; closest: rtx3090, rtx3070, rtx3080, rtx4090, rtx5090 (see `speedmatrix calc "
       "--list`, or add one with --gpu-file)",
       "gpu：GPU「rtx309」はカタログにありません。近いもの：rtx3090, rtx3070, rtx3080, rtx4090, "
       "rtx5090（`speedmatrix calc --list` を参照するか、--gpu-file で追加してください）。"},
      {"/calc", "gpu=zzzzzzzzzzzzzzzzzzzz", R"({"gpu": "zzzzzzzzzzzzzzzzzzzz"})",
       "gpu: unknown GPU 'zzzzzzzzzzzzzzzzzzzz'; closest: none (see `speedmatrix calc --list`, or add one with "
       "--gpu-file)",
       "gpu：GPU「zzzzzzzzzzzzzzzzzzzz」はカタログになく、近いものもありません（`speedmatrix calc --list` "
       "を参照するか、--gpu-file で追加してください）。"},
      {"/calc", "gpu=rtx3090&model=zzzzzzzzzzzzzzzzzz", R"({"model": "zzzzzzzzzzzzzzzzzz"})",
       "model: unknown model 'zzzzzzzzzzzzzzzzzz'; closest: none (see `speedmatrix calc --list`, or add one with "
       "--model-file)",
       "model：モデル「zzzzzzzzzzzzzzzzzz」はカタログになく、近いものもありません（`speedmatrix calc --list` "
       "を参照するか、--model-file で追加してください）。"},
      {"/calc", "gpu=rtx3090&quant=awq-4bt", R"({"quant": "awq-4bt"})",
       "quant: unknown quantisation 'awq-4bt'; closest: awq-4bit, gptq-4bit (see `speedmatrix calc --list`, or add "
       "one with --quant-file)",
       "quant：量子化「awq-4bt」はカタログにありません。近いもの：awq-4bit, gptq-4bit（`speedmatrix calc --list` "
       "を参照するか、--quant-file で追加してください）。"},
      {"/calc", "gpu=rtx3090&engine=vllmm", R"({"engine": "vllmm"})",
       "engine: unknown engine 'vllmm'; closest: vllm (see `speedmatrix calc --list`, or add one with --engine-file)",
       "engine：エンジン「vllmm」はカタログにありません。近いもの：vllm（`speedmatrix calc --list` "
       "を参照するか、--engine-file で追加してください）。"},
      {"/calc", setup + "&gpus=x", "", "gpus: 'x' is not a whole number", "gpus：「x」は整数ではありません。"},
      {"/calc", setup + "&gpus=40", R"({"gpus": 40})", "gpus: must be between 1 and 16",
       "gpus：1 から 16 までの数を指定してください。"},
      {"/calc", setup + "&contexts=abc", R"({"contexts": "abc"})",
       "contexts: 'abc' is not a token count (examples: 0, 512, 16K, 1M)",
       "contexts：「abc」はトークン数ではありません（例：0、512、16K、1M）。"},
      {"/calc", setup + "&contexts=0,2000000M", R"({"contexts": [0, "2000000M"]})",
       "contexts: token count '2000000M' is too large", "contexts：トークン数「2000000M」が大きすぎます。"},
      {"/calc", setup + "&contexts=1,,2", R"({"contexts": "1,,2"})", "contexts: empty token count",
       "contexts：トークン数が空です。"},
      {"/calc", setup + "&contexts=%20", R"({"contexts": " "})", "contexts: empty list",
       "contexts：値が 1 つもありません。"},
      {"/calc", setup + "&contexts=16M", R"({"contexts": "16M"})",
       "context 16777216 tokens is above the 10485760-token limit (10M): no server holds such a prompt",
       "コンテキスト 16777216 トークンは上限の 10485760 トークン（10M）を超えています。これほど長いプロンプトを扱えるサーバーはありません。"},
      {"/calc", setup + "&concurrency=0", R"({"concurrency": [0]})", "concurrency: '0' is not a positive integer",
       "concurrency：「0」は正の整数ではありません。"},
      {"/calc", setup + "&concurrency=2000", R"({"concurrency": [2000]})", "concurrency: at most 1024",
       "concurrency：同時リクエスト数は最大 1024 です。"},
      {"/calc", setup + "&concurrency=1,2,3,4,5,6,7,8,9,10,11,12,13", R"({"concurrency": "1,2,3,4,5,6,7,8,9,10,11,12,13"})",
       "concurrency: at most 12 values", "concurrency：指定できる値は最大 12 個です。"},
      {"/calc", setup + "&prefill=0", R"({"prefill_contexts": [0]})", "prefill contexts must be at least 1 token",
       "プリフィルのコンテキストは 1 トークン以上にしてください。"},
      {"/calc", setup + "&prefill=16M", R"({"prefill_contexts": "16M"})",
       "prefill context 16777216 tokens is above the 10485760-token limit (10M)",
       "プリフィルのコンテキスト 16777216 トークンは上限の 10485760 トークン（10M）を超えています。"},
      {"/calc", setup + "&max_output=1", R"({"max_output_tokens": 1})",
       "--max-output must be at least 2 tokens when decode cells are measured (got 1): decode needs a first and a "
       "later token",
       "デコードのセルには 2 トークン以上の --max-output が必要です（指定値 1）。最初のトークンとその次のトークンが要るためです。"},
      {"/calc", setup + "&max_output=2M", R"({"max_output_tokens": "2M"})", "max_output: at most 1M tokens",
       "max_output：最大 1M トークンまでです。"},
      {"/calc", setup + "&max_output=abc", R"({"max_output_tokens": "abc"})",
       "max_output: 'abc' is not a token count (examples: 0, 512, 16K, 1M)",
       "max_output：「abc」はトークン数ではありません（例：0、512、16K、1M）。"},
  });
}

// Each kind of refusal (calc::setup_refusal: the engine's backends, its weight formats, memory),
// with each kind of alternative, as /calc shows it.
TEST_F(ErrorLanguageTest, CalculatorRefusalsAreJapaneseOnThePageAndEnglishOnTheApi) {
  check({
      {"/calc", "gpu=m3-max&model=llama-3.1-8b&quant=bf16&engine=vllm",
       R"({"gpu": "m3-max", "model": "llama-3.1-8b", "quant": "bf16", "engine": "vllm"})",
       "vLLM does not run on Apple M3 Max (64 GB): it has no metal backend (it runs on cuda, rocm, xpu). Use --engine "
       "llamacpp, mlx instead.",
       "vLLM は Apple M3 Max (64 GB) では動きません。metal バックエンドがありません（対応するのは cuda, rocm, "
       "xpu）。代わりに --engine llamacpp, mlx を使ってください。"},
      {"/calc", "gpu=m3-max&model=llama-3.1-8b&quant=awq-4bit&engine=vllm",
       R"({"gpu": "m3-max", "model": "llama-3.1-8b", "quant": "awq-4bit", "engine": "vllm"})",
       "vLLM does not run on Apple M3 Max (64 GB): it has no metal backend (it runs on cuda, rocm, xpu). No catalog "
       "engine runs this quantisation there.",
       "vLLM は Apple M3 Max (64 GB) では動きません。metal バックエンドがありません（対応するのは cuda, rocm, "
       "xpu）。この量子化をその GPU で動かせるエンジンはカタログにありません。"},
      {"/calc", "gpu=rtx4090&model=llama-3.1-8b&quant=awq-4bit&engine=llamacpp",
       R"({"gpu": "rtx4090", "model": "llama-3.1-8b", "quant": "awq-4bit", "engine": "llamacpp"})",
       "llama.cpp does not load AWQ 4-bit weights (format awq; it loads 16-bit, gguf, mxfp4). Use --quant iq4_xs "
       "(4.25 bits per weight) with llama.cpp, or --engine vllm, sglang for AWQ 4-bit.",
       "llama.cpp は AWQ 4-bit の重みを読み込めません（形式 awq。読み込めるのは 16-bit, gguf, mxfp4）。llama.cpp で "
       "--quant iq4_xs（重みあたり 4.25 ビット）を使うか、AWQ 4-bit に --engine vllm, sglang を使ってください。"},
      {"/calc", "gpu=rtx3090&model=llama-3.1-8b&quant=exl2-4.0bpw&engine=vllm",
       R"({"gpu": "rtx3090", "model": "llama-3.1-8b", "quant": "exl2-4.0bpw", "engine": "vllm"})",
       "vLLM does not load EXL2 4.0 bpw weights (format exl2; it loads 16-bit, fp8, int8, awq, gptq, "
       "compressed-tensors, nvfp4, mxfp4). Use --quant w4a16 (4.12 bits per weight) with vLLM.",
       "vLLM は EXL2 4.0 bpw の重みを読み込めません（形式 exl2。読み込めるのは 16-bit, fp8, int8, awq, gptq, "
       "compressed-tensors, nvfp4, mxfp4）。vLLM で --quant w4a16（重みあたり 4.12 ビット）を使ってください。"},
      {"/calc", "gpu=rtx4090&model=qwen3-32b&quant=bf16&engine=vllm",
       R"({"gpu": "rtx4090", "model": "qwen3-32b", "quant": "bf16", "engine": "vllm"})",
       "Qwen3-32B (BF16) does not fit on 1 x NVIDIA GeForce RTX 4090 with 0.9 memory utilisation: weights 61.02 GiB "
       "+ reserve 2.40 GiB + activations 0.70 GiB > 21.32 GiB. It fits on 4 x NVIDIA GeForce RTX 4090 (--gpus 4). "
       "With --quant awq-4bit (18.0 GiB of weights), gptq-4bit (18.0 GiB of weights), w4a16 (17.9 GiB of weights) it "
       "fits on 1 x NVIDIA GeForce RTX 4090.",
       "Qwen3-32B（BF16）はメモリ使用率 0.9 の 1 x NVIDIA GeForce RTX 4090 に収まりません：重み 61.02 GiB + 予約 2.40 "
       "GiB + アクティベーション 0.70 GiB > 21.32 GiB。4 x NVIDIA GeForce RTX 4090 なら収まります（--gpus "
       "4）。--quant awq-4bit（重み 18.0 GiB）、gptq-4bit（重み 18.0 GiB）、w4a16（重み 17.9 GiB）なら 1 x NVIDIA "
       "GeForce RTX 4090 に収まります。"},
      {"/calc", "gpu=a10&model=qwen3-32b&quant=bf16&engine=vllm",
       R"({"gpu": "a10", "model": "qwen3-32b", "quant": "bf16", "engine": "vllm"})",
       "Qwen3-32B (BF16) does not fit on 1 x NVIDIA A10 with 0.9 memory utilisation: weights 61.02 GiB + reserve 2.40 "
       "GiB + activations 0.70 GiB > 19.86 GiB. It fits on 4 x NVIDIA A10 (--gpus 4). With --quant iq4_xs (16.4 GiB "
       "of weights) it fits on 1 x NVIDIA A10.",
       "Qwen3-32B（BF16）はメモリ使用率 0.9 の 1 x NVIDIA A10 に収まりません：重み 61.02 GiB + 予約 2.40 GiB + "
       "アクティベーション 0.70 GiB > 19.86 GiB。4 x NVIDIA A10 なら収まります（--gpus 4）。--quant iq4_xs（重み 16.4 "
       "GiB）なら 1 x NVIDIA A10 に収まります。"},
      {"/calc", "gpu=rtx3060-12gb&model=llama-2-70b&quant=bf16&engine=vllm",
       R"({"gpu": "rtx3060-12gb", "model": "llama-2-70b", "quant": "bf16", "engine": "vllm"})",
       "Llama-2-70B (BF16) does not fit on 1 x NVIDIA GeForce RTX 3060 12 GB with 0.9 memory utilisation: weights "
       "128.48 GiB + reserve 2.40 GiB + activations 0.58 GiB > 10.66 GiB. No quantisation in the catalog and no "
       "count up to 8 of this GPU holds it: choose a larger GPU.",
       "Llama-2-70B（BF16）はメモリ使用率 0.9 の 1 x NVIDIA GeForce RTX 3060 12 GB に収まりません：重み 128.48 GiB + "
       "予約 2.40 GiB + アクティベーション 0.58 GiB > 10.66 GiB。カタログのどの量子化でも、この GPU を 8 "
       "台まで増やしても収まりません。より大きな GPU を選んでください。"},
  });
}

// A prediction's notes and warnings (the calculator's sentences) on /calc: in Japanese on
// ?lang=ja, and on ?lang=en the English of the API's result, word for word.
TEST_F(ErrorLanguageTest, APredictionsNotesAndWarningsFollowThePage) {
  const std::string query =
      "gpu=a100-80gb&model=llama-3.1-8b&quant=fp8&engine=vllm&contexts=0&concurrency=1&prefill=8K&max_output=64";
  SiteRequest post;
  post.method = HttpMethod::Post;
  post.path = "/api/v1/calc";
  post.content_type = "application/json";
  post.client = "127.0.0.1";
  post.body = R"({"gpu": "a100-80gb", "model": "llama-3.1-8b", "quant": "fp8", "engine": "vllm", "contexts": [0],
                  "concurrency": [1], "prefill_contexts": ["8K"], "max_output_tokens": 64})";
  const SiteResponse api = site_->handle(post);
  ASSERT_EQ(api.status, 200) << api.body;
  const nlohmann::json result = nlohmann::json::parse(api.body);
  const std::string notes = result.value("notes", "");
  const std::vector<std::string> warnings = result.value("warnings", std::vector<std::string>{});
  ASSERT_TRUE(notes.starts_with("Predicted by speedmatrix calc")) << notes;
  ASSERT_EQ(warnings.size(), 2u);
  EXPECT_TRUE(warnings[0].starts_with("expected error (80% interval")) << warnings[0];

  const SiteResponse en = get("/calc", query + "&lang=en");
  ASSERT_EQ(en.status, 200);
  EXPECT_NE(en.body.find(esc(notes)), std::string::npos) << notes;
  for (const auto& w : warnings) EXPECT_NE(en.body.find(esc(w)), std::string::npos) << w;

  const SiteResponse ja = get("/calc", query + "&lang=ja");
  ASSERT_EQ(ja.status, 200);
  EXPECT_EQ(ja.body.find(esc(notes)), std::string::npos);
  for (const auto& w : warnings) EXPECT_EQ(ja.body.find(esc(w)), std::string::npos) << w;
  for (const char* japanese :
       {"speedmatrix calc（性能モデル v1、エンジンパラメーター「vllm」）による予測で、計測ではありません。メモリ：重み 8.46 GiB",
        "予想誤差（80% 区間。較正コーパスで出典ごとに 1 つずつ除いた交差検証、datacenter GPU 上の vllm）：デコード "
        "±39%、プリフィル：推定なし",
        "NVIDIA A100 80 GB SXM 上の FP8 W8A8：この GPU の 8 ビットテンソル演算は int8 だけのため、FP8 "
        "のテンソル演算はありません。"})
    EXPECT_NE(ja.body.find(esc(japanese)), std::string::npos) << japanese;
}

// Every sentence the calculator composes (each kind of refusal and alternative, some of which no
// built-in setup produces: an engine with no quantisation to suggest, two smaller quantisations)
// renders from its fields in English word for word as the command line prints it, and in
// Japanese with every field's value and none of the English.
TEST(ErrorLanguage, EveryCalculatorSentenceRendersInBothLanguages) {
  auto catalogs = MessageCatalogs::load_embedded();
  ASSERT_TRUE(catalogs) << catalogs.error().message;
  const std::regex field(R"(\{([a-z0-9_]+)\})");
  ASSERT_GE(calc::phrase_templates().size(), 13u);
  for (const auto& [id, text] : calc::phrase_templates()) {
    calc::Phrase p{std::string(id), {}};
    const std::string pattern(text);
    std::set<std::string> names;
    for (auto it = std::sregex_iterator(pattern.begin(), pattern.end(), field); it != std::sregex_iterator(); ++it)
      if (names.insert((*it)[1]).second) p.fields.emplace_back((*it)[1], "«" + std::string((*it)[1]) + "»");
    const UiError e = ui_fail_phrases(std::vector<calc::Phrase>{p}).error();
    EXPECT_EQ(e.message, calc::english(p)) << id;
    {
      UiLanguageScope scope(*catalogs, "en", "/calc", "");
      EXPECT_EQ(ui_error_text(e), calc::english(p)) << id;  // messages-en.json has the calculator's English
    }
    UiLanguageScope scope(*catalogs, "ja", "/calc", "");
    const std::string ja = ui_error_text(e);
    EXPECT_NE(ja, calc::english(p)) << id << ": no Japanese (or its fields do not fit)";
    for (const auto& [name, value] : p.fields) EXPECT_NE(ja.find(value), std::string::npos) << id << ": " << name;
  }
  // Sentences are joined as the language joins them: a space in English, nothing in Japanese.
  const std::vector<calc::Phrase> two = {{"calc.refusal.no_format",
                                          {{"engine", "E"}, {"quant", "Q"}, {"format", "f"}, {"formats", "g, h"}}},
                                         {"calc.refusal.use_engine_for", {{"engines", "x, y"}, {"quant", "Q"}}}};
  const UiError e = ui_fail_phrases(two).error();
  EXPECT_EQ(e.message, "E does not load Q weights (format f; it loads g, h). Use --engine x, y for Q.");
  UiLanguageScope scope(*catalogs, "ja", "/calc", "");
  EXPECT_EQ(ui_error_text(e), "E は Q の重みを読み込めません（形式 f。読み込めるのは g, h）。Q には --engine x, y を使ってください。");
}

// A catalog whose text asks for a field the sentence lacks (a `serve --messages` file) shows the
// English rather than failing the page; an error without sentences is its message everywhere.
TEST(ErrorLanguage, AnUnfitTranslationFallsBackToTheEnglish) {
  auto catalogs = MessageCatalogs::from_json({{"en", R"({"k": "{param}: bad", "locale.sentence_separator": " "})"},
                                              {"xx", R"({"k": "{nope} schlecht", "locale.sentence_separator": " "})"}});
  ASSERT_TRUE(catalogs) << catalogs.error().message;
  const UiError e = ui_fail_as("limit: bad", {{"k", {{"param", "limit"}}}}).error();
  UiLanguageScope scope(*catalogs, "xx", "/", "");
  EXPECT_EQ(ui_error_text(e), "limit: bad");
  EXPECT_EQ(ui_error_text(untranslated(Error{ErrorCode::InvalidArgument, "as it is"})), "as it is");
}

// The keys the errors name are in every catalog: the calculator's sentence ids, and every
// "listing.*" / "calc_input.*" string the site's code names (ui_fail and the tables beside it);
// EveryCatalogFileHasTheSameKeysAsTheEnglishOne carries them to every language.
TEST(ErrorLanguage, EveryErrorKeyIsInTheCatalogs) {
  const nlohmann::json en = catalog_file("messages-en.json");
  const nlohmann::json ja = catalog_file("messages-ja.json");
  for (const auto& [id, text] : calc::phrase_templates()) {
    ASSERT_TRUE(en.contains(std::string(id))) << id;
    EXPECT_EQ(en[std::string(id)], std::string(text)) << id << ": messages-en.json differs from calc/phrase.cc";
    EXPECT_TRUE(ja.contains(std::string(id))) << id;
  }
  const std::regex key(R"re("((listing|calc_input)\.[a-z0-9_.]+)")re");
  int used = 0;
  for (const auto& entry : std::filesystem::directory_iterator(std::filesystem::path(SPEEDMATRIX_SOURCE_DIR) / "src/site")) {
    if (entry.path().extension() != ".cc") continue;
    const std::string text = read_file(entry.path());
    for (auto it = std::sregex_iterator(text.begin(), text.end(), key); it != std::sregex_iterator(); ++it) {
      ++used;
      EXPECT_TRUE(en.contains((*it)[1].str())) << entry.path().filename() << ": " << (*it)[1];
    }
  }
  EXPECT_GE(used, 30);
}

}  // namespace
}  // namespace sm::site
