// One name per GPU and model (issue 30 point 1) and unverified hardware (point 2): the names
// drivers report find the catalog's GPU (each with its source), model names split into the model
// and its quantisation, uploads are grouped, filtered, checked and put in the calculator's
// evidence under the canonical names with the reported ones kept, GPUs the catalog does not know
// are checked against their class and not ranked, and stored runs are checked again on start.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "calc/catalog.h"
#include "result/result_json.h"
#include "site/canonical_names.h"
#include "site/run_checks.h"
#include "site/site.h"
#include "site/site_fixtures.h"
#include "site/upload_token.h"
#include "store/result_store.h"
#include "support/temp_dir.h"

namespace sm::site {
namespace {

using nlohmann::json;

const calc::Catalog& builtin_catalog() {
  static const calc::Catalog catalog = calc::Catalog::builtin().value();
  return catalog;
}

TEST(GpuNames, EveryReportedNameFindsItsEntryAndCarriesItsSource) {
  int names = 0;
  for (const calc::GpuSpec& g : builtin_catalog().gpus()) {
    for (const calc::ReportedGpuName& r : g.reported_names) {
      ++names;
      auto found = builtin_catalog().find_gpu(r.name);
      ASSERT_TRUE(found) << r.name;
      EXPECT_EQ(found->id, g.id) << r.name;
      EXPECT_FALSE(r.reporter.empty()) << r.name;
      EXPECT_NE(r.source.find("https://github.com/"), std::string::npos) << r.name << ": " << r.source;
    }
  }
  EXPECT_GE(names, 12);
}

TEST(GpuNames, DriverStringsFindTheCatalogsGpu) {
  // As nvidia-smi / NVML / ROCm print them (sources in data/gpus.json).
  const std::pair<const char*, const char*> cases[] = {
      {"NVIDIA H100 80GB HBM3", "h100-sxm"},
      {"NVIDIA A100-SXM4-80GB", "a100-80gb"},
      {"NVIDIA A100 80GB PCIe", "a100-80gb-pcie"},
      {"NVIDIA H100 PCIe", "h100-pcie"},
      {"NVIDIA H200", "h200"},
      {"NVIDIA L40S", "l40s"},
      {"Tesla T4", "t4"},
      {"AMD Instinct MI300X", "mi300x"},
      {"AMD Instinct MI300X (gfx942:sramecc+:xnack-)", "mi300x"},
      {"AMD Instinct MI210", "mi210"},
      {"Apple M4 Max", "m4-max"},
      {"Apple M4", "m4"},
  };
  for (const auto& [reported, id] : cases) {
    auto found = builtin_catalog().find_gpu(reported);
    ASSERT_TRUE(found) << reported;
    EXPECT_EQ(found->id, id) << reported;
  }
  // Parts the catalog has no figures for stay unknown rather than borrowing another part's:
  // an H100 NVL has 94 GB, an A10G is not an A10, a laptop RTX 4070 is not the desktop card.
  for (const char* other : {"NVIDIA H100 NVL", "NVIDIA A10G", "NVIDIA GeForce RTX 4070 Laptop GPU"})
    EXPECT_FALSE(builtin_catalog().find_gpu(other)) << other;
}

TEST(ModelNames, SplitIntoTheModelAndItsQuantisation) {
  struct Case {
    const char* reported;
    const char* model;
    const char* quantization;
  };
  const Case cases[] = {
      {"Qwen3.5-4B-AWQ-4bit", "Qwen3.5-4B", "AWQ 4-bit"},
      {"Qwen3.5-4B-AWQ", "Qwen3.5-4B", "AWQ 4-bit"},
      {"Qwen3.5-4B", "Qwen3.5-4B", ""},
      {"llama-3.1-8b-instruct-q4_k_m", "Llama-3.1-8B", "GGUF Q4_K_M"},
      {"Meta-Llama-3.1-8B-Instruct-Q4_K_M-00001-of-00002", "Meta-Llama-3.1-8B-Instruct", "GGUF Q4_K_M"},
      {"Llama-3.1-8B-Instruct-GPTQ-Int4", "Llama-3.1-8B", "GPTQ 4-bit"},
      {"Llama-3.1-8B-Instruct-FP8", "Llama-3.1-8B", "FP8 W8A8"},
      {"Qwen2.5-7B-Instruct-GGUF", "Qwen2.5-7B-Instruct", ""},
      {"Qwen3-8B-bnb-4bit", "Qwen3-8B", "bnb-4bit"},
      {"qwen3:8b-q4_K_M", "qwen3:8b", "GGUF Q4_K_M"},
      {"some-model-7b", "some-model-7b", ""},
  };
  for (const Case& c : cases) {
    const CanonicalModel m = canonical_model(c.reported, builtin_catalog());
    // The catalog's name when it knows the model; else the name without its quantisation tail.
    if (auto known = builtin_catalog().find_model(c.model)) EXPECT_EQ(m.name, known->name) << c.reported;
    else EXPECT_EQ(m.name, c.model) << c.reported;
    EXPECT_EQ(m.quantization, c.quantization) << c.reported;
  }
}

class CanonicalNamesSiteTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto s = store::open_store("sqlite:" + dir_.file("site.db"));
    ASSERT_TRUE(s) << s.error().message;
    store_ = std::move(*s);
    auto t = generate_upload_token();
    ASSERT_TRUE(t);
    token_ = t->secret;
    ASSERT_TRUE(store_->create_token({t->token_id, "test", "2026-12-03T09:00:00Z", "", 0}, t->sha256_hex));
    start_site();
  }

  void start_site() {
    SiteConfig config;
    config.upload_rate_per_min = 0;
    auto site = Site::create(*store_, config, clock_);
    ASSERT_TRUE(site) << site.error().message;
    site_ = std::move(*site);
  }

  SiteResponse get(const std::string& target) {
    SiteRequest r;
    size_t q = target.find('?');
    r.path = target.substr(0, q);
    if (q != std::string::npos) r.query = target.substr(q + 1);
    r.client = "127.0.0.1";
    return site_->handle(r);
  }

  SiteResponse upload(const RunResult& result) {
    SiteRequest r;
    r.method = HttpMethod::Post;
    r.path = "/api/v1/runs";
    r.body = to_json(result).dump();
    r.client = "127.0.0.1";
    r.authorization = "Bearer " + token_;
    return site_->handle(r);
  }

  // An 8B model the catalog knows, at `single_tok_s` on one `gpu`.
  static RunResult llama_run(const std::string& id, const std::string& gpu, double single_tok_s) {
    RunResult r = test::site_result(id, "Llama-3.1-8B-Instruct-AWQ", gpu, single_tok_s, 3000.0);
    r.hardware.gpus[0].vram_bytes = int64_t{80} << 30;
    return r;
  }

  store::RunSummary summary(const std::string& id) { return store_->get_run_summary(id).value().value(); }

  test::TempDir dir_;
  ManualClock clock_{1'000'000'000};
  std::unique_ptr<store::ResultStore> store_;
  std::unique_ptr<Site> site_;
  std::string token_;
};

TEST_F(CanonicalNamesSiteTest, AnH100AsTheDriverNamesItIsCheckedGroupedAndEvidence) {
  // 10,000 tok/s single-stream on an 8B model: was ranked, unchecked, because the driver's
  // name matched no catalog entry. It is checked against the H100's roofline now.
  SiteResponse fast = upload(llama_run("too-fast", "NVIDIA H100 80GB HBM3", 10000));
  ASSERT_EQ(fast.status, 201) << fast.body;
  const json fast_body = json::parse(fast.body);
  ASSERT_TRUE(fast_body.contains("implausible")) << fast.body;
  EXPECT_NE(fast_body["implausible"].get<std::string>().find("H100 SXM"), std::string::npos) << fast.body;

  ASSERT_EQ(upload(llama_run("real", "NVIDIA H100 80GB HBM3", 150)).status, 201);
  const store::RunSummary s = summary("real");
  EXPECT_EQ(s.gpu, "H100 SXM 80GB");
  EXPECT_EQ(s.gpu_reported, "H100 80GB HBM3");
  EXPECT_EQ(s.model, "Llama-3.1-8B");
  EXPECT_EQ(s.model_reported, "Llama-3.1-8B-Instruct-AWQ");
  EXPECT_EQ(s.calc_gpu, "h100-sxm");
  EXPECT_FALSE(s.unverified_hardware);
  EXPECT_TRUE(s.ranked()) << store::not_ranked_because(s);
  // The same card named as the catalog names it is the same group.
  ASSERT_EQ(upload(llama_run("by-alias", "H100 SXM 80 GB", 160)).status, 201);
  const json hardware = json::parse(get("/api/v1/hardware").body)["hardware"];
  ASSERT_EQ(hardware.size(), 1u) << hardware.dump();
  EXPECT_EQ(hardware[0]["name"], "H100 SXM 80GB");
  EXPECT_EQ(hardware[0]["runs"], 3);
  // Filters take the canonical names; the API shows the reported one too.
  const json listed = json::parse(get("/api/v1/runs?gpu=H100%20SXM%2080GB&model=Llama-3.1-8B").body);
  EXPECT_EQ(listed["total"], 3);
  const json real = json::parse(get("/api/v1/runs?gpu=H100%20SXM%2080GB&sort=newest&limit=50").body)["runs"];
  bool seen = false;
  for (const auto& run : real)
    if (run["run_id"] == "real") {
      seen = true;
      EXPECT_EQ(run["gpu_reported"], "H100 80GB HBM3");
    }
  EXPECT_TRUE(seen);
  // A link written with the names the run reported finds it too.
  EXPECT_EQ(json::parse(get("/api/v1/runs?gpu=NVIDIA%20H100%2080GB%20HBM3&model=Llama-3.1-8B-Instruct-AWQ").body)["total"], 3);
  EXPECT_EQ(json::parse(get("/api/v1/runs?model=Llama-3.1-8B-Instruct-GPTQ-Int4").body)["total"], 0)
      << "the quantisation a model name carries filters too";
  EXPECT_NE(get("/hardware?gpu=NVIDIA%20H100%2080GB%20HBM3").body.find("data-run-id=\"real\""), std::string::npos);
  // The calculator's evidence for an H100 SXM has the runs the driver named otherwise.
  auto evidence = store_->list_runs_for_setup({"h100-sxm", 1, "llama-3.1-8b", "vllm"}, 10);
  ASSERT_TRUE(evidence);
  EXPECT_EQ(evidence->size(), 3u);
  // The run page keeps the reported names visible.
  const std::string page = get("/runs/real").body;
  EXPECT_NE(page.find("id=\"reported-names\""), std::string::npos);
  EXPECT_NE(page.find("H100 80GB HBM3"), std::string::npos);
}

TEST_F(CanonicalNamesSiteTest, AGpuTheCatalogDoesNotKnowIsUnverifiedNotRankedAndClassBound) {
  SiteResponse plain = upload(llama_run("a10g", "NVIDIA A10G", 60));
  ASSERT_EQ(plain.status, 201) << plain.body;
  const json body = json::parse(plain.body);
  EXPECT_EQ(body["ranked"], false);
  EXPECT_EQ(body["not_ranked_because"], "unverified_hardware");
  EXPECT_FALSE(body.contains("implausible"));
  const store::RunSummary s = summary("a10g");
  EXPECT_TRUE(s.unverified_hardware);
  EXPECT_EQ(s.gpu, "A10G 80GB");
  EXPECT_TRUE(json::parse(get("/api/v1/leaderboard").body)["runs"].empty());
  EXPECT_EQ(json::parse(get("/api/v1/runs").body)["total"], 1);  // listed, not ranked
  EXPECT_NE(get("/runs/a10g").body.find("id=\"unverified-hardware\""), std::string::npos);
  EXPECT_NE(get("/runs").body.find("badge unverified"), std::string::npos);
  auto flagged = store_->list_runs_for_moderation({.flag = "unverified_hardware"}, 10);
  ASSERT_TRUE(flagged);
  EXPECT_EQ(flagged->total, 1);
  // Beyond even the fastest NVIDIA GPU the catalog knows: implausible as well.
  SiteResponse fast = upload(llama_run("a10g-fast", "NVIDIA A10G", 10000));
  ASSERT_EQ(fast.status, 201) << fast.body;
  const json fast_body = json::parse(fast.body);
  ASSERT_TRUE(fast_body.contains("implausible")) << fast.body;
  EXPECT_NE(fast_body["implausible"].get<std::string>().find("any NVIDIA GPU"), std::string::npos) << fast.body;
}

TEST_F(CanonicalNamesSiteTest, StoredRunsAreCheckedAgainWhenTheSiteStarts) {
  // As a run stored by an older build: the report's names, no site checks.
  auto stored = [&](const RunResult& r) {
    store::RunRecord rec;
    rec.summary = store::summarize_run(r);
    rec.summary.uploaded_at = "2026-12-03T10:00:00.000Z";
    rec.result_json = to_json(r).dump();
    rec.content_sha256 = sha256_hex(rec.result_json);
    ASSERT_TRUE(store_->put_run(rec));
  };
  stored(llama_run("old-h100", "NVIDIA H100 80GB HBM3", 150));
  stored(llama_run("old-fast", "NVIDIA H100 80GB HBM3", 10000));
  stored(llama_run("old-a10g", "NVIDIA A10G", 60));
  EXPECT_EQ(summary("old-h100").gpu, "H100 80GB HBM3");
  EXPECT_TRUE(summary("old-fast").implausible.empty());
  EXPECT_FALSE(summary("old-a10g").unverified_hardware);

  start_site();
  const store::RunSummary h100 = summary("old-h100");
  EXPECT_EQ(h100.gpu, "H100 SXM 80GB");
  EXPECT_EQ(h100.gpu_reported, "H100 80GB HBM3");
  EXPECT_EQ(h100.model, "Llama-3.1-8B");
  EXPECT_EQ(h100.calc_gpu, "h100-sxm");
  EXPECT_EQ(h100.checked_with, checks_fingerprint(builtin_catalog()));
  EXPECT_FALSE(summary("old-fast").implausible.empty());
  EXPECT_TRUE(summary("old-a10g").unverified_hardware);
  // Checked once per catalog: nothing is left for the same catalog.
  auto again = recheck_stored_runs(*store_, builtin_catalog(), checks_fingerprint(builtin_catalog()));
  ASSERT_TRUE(again);
  EXPECT_EQ(*again, 0);
}

}  // namespace
}  // namespace sm::site
