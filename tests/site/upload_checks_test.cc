// The checks an upload goes through after the schemas (site/upload_checks.h) and the catalog
// match they use (site/catalog_match.h): each refusal names its field, the roofline flag, the
// synthetic-model mark and the measurements hash.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "calc/catalog.h"
#include "result/result_json.h"
#include "site/catalog_match.h"
#include "site/site_fixtures.h"
#include "site/upload_checks.h"

namespace sm::site {
namespace {

constexpr int64_t kNow = 1796222088000;  // 2026-12-02T14:34:48Z

std::string refusal(const RunResult& r) {
  auto ok = check_upload_numbers(r, kNow);
  return ok ? "" : ok.error().message;
}

const calc::Catalog& catalog() {
  static const calc::Catalog c = *calc::Catalog::builtin();
  return c;
}

TEST(UploadChecks, ParsesIsoTimesWithFractionsAndOffsets) {
  EXPECT_EQ(parse_iso8601_ms("2026-12-02T14:34:48Z"), kNow);
  EXPECT_EQ(parse_iso8601_ms("2026-12-02T14:34:48.250Z"), kNow + 250);
  EXPECT_EQ(parse_iso8601_ms("2026-12-02T15:34:48+01:00"), kNow);
  EXPECT_EQ(parse_iso8601_ms("2023-01-01T00:00:00Z"), kEarliestRunUnixMs);
  EXPECT_FALSE(parse_iso8601_ms("yesterday"));
  EXPECT_FALSE(parse_iso8601_ms("2026-13-02T14:34:48Z"));
}

TEST(UploadChecks, AFixtureRunPasses) {
  EXPECT_EQ(refusal(test::site_result("ok")), "");
}

TEST(UploadChecks, NegativeOrNonFiniteRatesAreRefusedByField) {
  RunResult r = test::site_result("neg");
  r.decode[1].per_request_tok_s = -3;
  EXPECT_NE(refusal(r).find("$.decode[1].per_request_tok_s"), std::string::npos) << refusal(r);
  r = test::site_result("inf");
  r.decode[2].total_tok_s = std::numeric_limits<double>::infinity();
  EXPECT_NE(refusal(r).find("$.decode[2].total_tok_s: not a finite number"), std::string::npos) << refusal(r);
  r = test::site_result("prefill");
  r.prefill[0].prompt_tok_s = -1;
  EXPECT_NE(refusal(r).find("$.prefill[0].prompt_tok_s"), std::string::npos) << refusal(r);
}

TEST(UploadChecks, TotalMustAgreeWithOutputTokensOverTheWindow) {
  RunResult r = test::site_result("total");
  r.decode[0].total_tok_s = *r.decode[0].total_tok_s * 1.03;  // 3% above output_tokens / measured_s
  EXPECT_NE(refusal(r).find("$.decode[0].total_tok_s"), std::string::npos) << refusal(r);
  r = test::site_result("total-ok");
  r.decode[0].total_tok_s = *r.decode[0].total_tok_s * 1.01;  // within 2%
  EXPECT_EQ(refusal(r), "");
}

// An adaptive window that closed early (issue 14 part 2): total_tok_s is its projection to the
// full window, window_tok_s what the window measured; tokens ÷ length must give the latter, and
// the projection may differ from it by a drift, within 25%.
TEST(UploadChecks, AProjectedCellIsCheckedAgainstItsWindowsOwnRate) {
  RunResult r = test::site_result("projected");
  DecodeCell& c = r.decode[0];
  c.settled = true;
  c.window_tok_s = c.total_tok_s;
  c.total_tok_s = *c.window_tok_s * 0.93;  // the window ran 7% faster than the full one would
  EXPECT_EQ(refusal(r), "");
  c.window_tok_s = *c.window_tok_s * 1.03;
  EXPECT_NE(refusal(r).find("$.decode[0].window_tok_s"), std::string::npos) << refusal(r);
  c.window_tok_s = *c.window_tok_s / 1.03;
  c.total_tok_s = *c.window_tok_s * 0.6;
  EXPECT_NE(refusal(r).find("$.decode[0].total_tok_s: projection"), std::string::npos) << refusal(r);
}

TEST(UploadChecks, PerRequestAboveTotalIsRefused) {
  RunResult r = test::site_result("per-request");
  r.decode[1].per_request_tok_s = *r.decode[1].total_tok_s * 1.5;
  EXPECT_NE(refusal(r).find("$.decode[1].per_request_tok_s"), std::string::npos) << refusal(r);
}

TEST(UploadChecks, OneStreamsRestartGapsExplainAPerRequestRateAboveTheTotal) {
  // One request, 64 tokens each, 0.5 s to each first token at 100 tok/s: the window holds 0.64 s
  // of decoding per 1.14 s, so the total is 56 tok/s while the stream decodes at 100.
  RunResult r = test::site_result("restarts");
  r.settings.max_output_tokens = 64;
  DecodeCell& c = r.decode[0];
  c.per_request_tok_s = 100;
  c.ttft_ms = 500;
  c.total_tok_s = 64 / 1.14;
  c.output_tokens = static_cast<int64_t>(*c.total_tok_s * 30 + 0.5);
  EXPECT_EQ(refusal(r), "");
  c.ttft_ms = 50;  // then the gaps explain a total of 93 tok/s, not 56
  EXPECT_NE(refusal(r).find("$.decode[0].per_request_tok_s"), std::string::npos) << refusal(r);
}

// Issue 31: a CPU-served run on a GPU machine: the GPU idled through the window, so its draw is
// not the server's cost. The tool leaves power, energy and tokens per joule empty there; the site
// refuses them.
TEST(UploadChecks, EfficiencyFiguresOfAnIdleGpuAreRefused) {
  RunResult r = test::site_result("idle-gpu");
  test::add_gpu_telemetry(r, 1.0);
  r.decode[1].telemetry.gpu_util_pct = 40;
  EXPECT_EQ(refusal(r), "");
  r.decode[1].telemetry.gpu_util_pct = 1.5;
  EXPECT_NE(refusal(r).find("$.decode[1].telemetry.gpu_power_w: given for a window whose GPUs were idle "
                            "(gpu_util_pct 1.5% < 5%)"),
            std::string::npos)
      << refusal(r);
  r.decode[1].telemetry.gpu_power_w.reset();
  r.decode[1].telemetry.gpu_energy_j.reset();
  r.decode[1].telemetry.tokens_per_joule.reset();
  EXPECT_EQ(refusal(r), "");  // as the tool writes it: the utilisation alone
}

// Issue 30: `tokens_per_joule: 1e30` ranked first on the efficiency sort. The figure must be the
// window's tokens ÷ its energy, and the energy about its power × its length.
TEST(UploadChecks, TokensPerJouleMustBeTheWindowsTokensOverItsEnergy) {
  RunResult r = test::site_result("tpj");
  test::add_gpu_telemetry(r, 1.0);
  EXPECT_EQ(refusal(r), "");
  r.decode[2].telemetry.tokens_per_joule = 1e30;
  EXPECT_NE(refusal(r).find("$.decode[2].telemetry.tokens_per_joule: 1e+30 disagrees with tokens / gpu_energy_j"),
            std::string::npos)
      << refusal(r);
  r = test::site_result("tpj-no-energy");
  test::add_gpu_telemetry(r, 1.0);
  r.decode[0].telemetry.gpu_energy_j.reset();
  EXPECT_NE(refusal(r).find("$.decode[0].telemetry.tokens_per_joule: given without the window's gpu_energy_j"),
            std::string::npos)
      << refusal(r);
  r = test::site_result("tpj-energy");  // energy and tokens_per_joule agree, but 312 W × 30 s is not 1 J
  test::add_gpu_telemetry(r, 1.0);
  r.decode[1].telemetry.gpu_energy_j = 1.0;
  r.decode[1].telemetry.tokens_per_joule = static_cast<double>(*r.decode[1].output_tokens);
  EXPECT_NE(refusal(r).find("$.decode[1].telemetry.gpu_energy_j: 1 J disagrees with gpu_power_w × window"),
            std::string::npos)
      << refusal(r);
  r = test::site_result("tpj-prefill");
  test::add_gpu_telemetry(r, 1.0);
  r.prefill[0].telemetry.tokens_per_joule = 5e7;
  EXPECT_NE(refusal(r).find("$.prefill[0].telemetry.tokens_per_joule"), std::string::npos) << refusal(r);
}

// Issue 30: a 0 s window, a 1e-9 s window (1e9 tok/s), cells at 0 tok/s, a run with no cells,
// duplicated cells and a finish before the start were each accepted and ranked.
TEST(UploadChecks, DegenerateWindowsCellsAndRunsAreRefused) {
  RunResult r = test::site_result("zero-window");
  r.decode[0].measured_s = 0;
  EXPECT_NE(refusal(r).find("$.decode[0].measured_s: a valid cell needs a window longer than 0 s"), std::string::npos)
      << refusal(r);
  r = test::site_result("tiny-window");
  r.decode[0].measured_s = 1e-9;
  r.decode[0].output_tokens = 1;
  r.decode[0].total_tok_s = 1e9;
  EXPECT_NE(refusal(r).find("$.decode[0].measured_s: 1e-09 s is shorter than the run's settings allow (27 s"),
            std::string::npos)
      << refusal(r);
  r = test::site_result("adaptive");  // an adaptive window may close at its --min-window, not before
  r.settings.precision = 0.02;
  r.settings.min_window_s = 10;
  r.decode[0].measured_s = 10;
  r.decode[0].output_tokens = static_cast<int64_t>(*r.decode[0].total_tok_s * 10);
  EXPECT_EQ(refusal(r), "");
  r.decode[0].measured_s = 5;
  r.decode[0].output_tokens = static_cast<int64_t>(*r.decode[0].total_tok_s * 5);
  EXPECT_NE(refusal(r).find("$.decode[0].measured_s: 5 s is shorter"), std::string::npos) << refusal(r);
  r = test::site_result("zero-cell");
  r.decode[3].total_tok_s = 0;
  r.decode[3].per_request_tok_s = 0;
  r.decode[3].output_tokens = 0;
  EXPECT_NE(refusal(r).find("$.decode[3].total_tok_s: a valid cell measured no output tokens"), std::string::npos)
      << refusal(r);
  r = test::site_result("empty");
  r.decode.clear();
  r.prefill.clear();
  EXPECT_NE(refusal(r).find("nothing was measured"), std::string::npos) << refusal(r);
  r = test::site_result("only-over-capacity");
  for (DecodeCell& c : r.decode) c.status = CellStatus::OverCapacity;
  r.prefill[0].status = CellStatus::Error;
  EXPECT_NE(refusal(r).find("nothing was measured"), std::string::npos) << refusal(r);
  r = test::site_result("duplicate");
  r.decode.push_back(r.decode[2]);
  EXPECT_NE(refusal(r).find("$.decode[4].context: a second cell at context 16384 × concurrency 1"), std::string::npos)
      << refusal(r);
  r = test::site_result("backwards");
  r.finished_at = "2026-12-01T08:00:00Z";
  r.started_at = "2026-12-01T09:00:00Z";
  EXPECT_NE(refusal(r).find("$.finished_at: 2026-12-01T08:00:00Z is before started_at"), std::string::npos)
      << refusal(r);
}

// Issue 30: a `calc` prediction uploaded with "kind": "measured" ranked as a measurement.
TEST(UploadChecks, APredictionLabelledMeasuredIsRefused) {
  RunResult r = test::site_result("relabelled");
  r.engine.version = "predicted";
  EXPECT_NE(refusal(r).find("$.kind: \"measured\", but the run is a calculator prediction"), std::string::npos)
      << refusal(r);
  r = test::site_result("catalog-hardware");
  r.hardware.source = HardwareSource::Catalog;
  EXPECT_NE(refusal(r).find("$.kind:"), std::string::npos) << refusal(r);
  r = test::site_result("predicted-cells");
  r.decode[1].token_count_source = "predicted";
  EXPECT_NE(refusal(r).find("$.decode[1].token_count_source"), std::string::npos) << refusal(r);
  r = test::site_result("no-requests");
  r.decode[2].requests_started.reset();
  EXPECT_NE(refusal(r).find("$.decode[2].requests_started: a measured valid cell says how many requests"),
            std::string::npos)
      << refusal(r);
  r = test::site_result("no-version");
  r.tool_version.clear();
  EXPECT_NE(refusal(r).find("$.tool_version"), std::string::npos) << refusal(r);
  r = test::site_result("a-prediction", "M1", "NVIDIA GeForce RTX 3090", 180.0, 8783.0, "predicted");
  r.engine.version = "predicted";
  r.hardware.source = HardwareSource::Catalog;
  r.decode[1].token_count_source = "predicted";
  EXPECT_EQ(refusal(r), "");  // as what it is, it is fine
}

TEST(UploadChecks, DatesBefore2023OrInTheFutureAreRefused) {
  RunResult r = test::site_result("old");
  r.started_at = "2022-12-31T23:59:59Z";
  EXPECT_NE(refusal(r).find("$.started_at"), std::string::npos);
  r = test::site_result("future");
  r.finished_at = "2026-12-03T14:34:48Z";  // a day after kNow
  EXPECT_NE(refusal(r).find("$.finished_at"), std::string::npos);
  EXPECT_NE(refusal(r).find("future"), std::string::npos);
}

TEST(UploadChecks, APrefillFasterThanItsContextAllowsIsRefused) {
  RunResult r = test::site_result("prefill-fast");
  r.prefill[0].prompt_tok_s = *r.prefill[0].prompt_tok_s * 2;  // TTFT unchanged: twice the tokens
  EXPECT_NE(refusal(r).find("$.prefill[0].prompt_tok_s"), std::string::npos) << refusal(r);
  // The server's own prompt count also explains a rate.
  r = test::site_result("prefill-usage");
  r.prefill[0].prompt_tokens = 40000;
  r.prefill[0].prompt_tok_s = 40000 / (*r.prefill[0].ttft_ms / 1000);
  EXPECT_EQ(refusal(r), "");
}

TEST(CatalogMatch, MatchesVendorGpuNamesAndModelNamesWithAQuantTail) {
  RunResult r = test::site_result("m", "Qwen3.5-4B-AWQ-4bit", "NVIDIA GeForce RTX 3090");
  r.engine.quantization = "";
  const CatalogMatch m = match_run(r, catalog());
  ASSERT_TRUE(m.gpu);
  EXPECT_EQ(m.gpu->id, "rtx3090");
  EXPECT_EQ(m.gpu_count, 1);
  ASSERT_TRUE(m.model);
  EXPECT_EQ(m.model->id, "qwen3.5-4b");
  ASSERT_TRUE(m.quant);
  EXPECT_EQ(m.quant->id, "awq-4bit");  // from the dropped tail "AWQ-4bit"
  ASSERT_TRUE(m.engine);
  EXPECT_EQ(m.engine->id, "vllm");
  r.hardware.source = HardwareSource::Unknown;
  EXPECT_FALSE(match_run(r, catalog()).gpu);
  EXPECT_FALSE(match_model_name("Totally-Unknown-Model", catalog()));
}

TEST(UploadChecks, DecodeAboveTwiceTheRooflineIsImplausible) {
  RunResult r = test::site_result("roof", "Qwen3.5-4B-AWQ-4bit", "NVIDIA GeForce RTX 3090");
  const CatalogMatch m = match_run(r, catalog());
  EXPECT_EQ(implausible_reason(r, m, catalog()), "");  // 180 tok/s single stream is plausible
  calc::Setup s;
  s.gpu = *m.gpu;
  s.model = *m.model;
  s.quant = *m.quant;
  s.engine = *m.engine;
  const double roof = roofline_total_tok_s(s, 0, 1);
  EXPECT_GT(roof, 180.0);
  r.decode[0].total_tok_s = roof * 2.5;
  r.decode[0].output_tokens = static_cast<int64_t>(*r.decode[0].total_tok_s * 30);
  const std::string why = implausible_reason(r, m, catalog());
  EXPECT_NE(why.find("roofline"), std::string::npos) << why;
  EXPECT_NE(why.find("2.5×"), std::string::npos) << why;
  // Unknown hardware cannot be checked.
  CatalogMatch none = m;
  none.gpu.reset();
  EXPECT_EQ(implausible_reason(r, none, catalog()), "");
}

// A run on "AMD Instinct MI300X" (the catalog's own name for it) matched no GPU, so its figures
// were never held to a roofline.
TEST(UploadChecks, ARunOnACatalogGpuNamedAsTheCatalogNamesItIsMatched) {
  const RunResult r = test::site_result("mi300x", "Qwen3.5-4B-AWQ-4bit", "AMD Instinct MI300X");
  const CatalogMatch m = match_run(r, catalog());
  ASSERT_TRUE(m.gpu);
  EXPECT_EQ(m.gpu->id, "mi300x");
}

// 50 M tok/s prefill on an RTX 3090 was ranked #1 on the prefill sort: only decode was checked.
TEST(UploadChecks, PrefillAboveTwiceTheComputeRooflineIsImplausible) {
  RunResult r = test::site_result("prefill-roof", "Qwen3.5-4B-AWQ-4bit", "NVIDIA GeForce RTX 3090");
  const CatalogMatch m = match_run(r, catalog());
  ASSERT_TRUE(m.gpu && m.model && m.quant && m.engine);
  calc::Setup s;
  s.gpu = *m.gpu;
  s.model = *m.model;
  s.quant = *m.quant;
  s.engine = *m.engine;
  const double roof = roofline_prefill_tok_s(s, 32768);
  // The fixture's 8,783 tok/s (a 3090's real figure for this model) is under the roof, and the
  // roof is a bound, not a prediction: above it, below 2× of it is still accepted.
  EXPECT_GT(roof, 8783.0);
  EXPECT_EQ(implausible_reason(r, m, catalog()), "");
  r.prefill[0].prompt_tok_s = roof * 1.9;
  EXPECT_EQ(implausible_reason(r, m, catalog()), "");
  r.prefill[0].prompt_tok_s = 50e6;
  const std::string why = implausible_reason(r, m, catalog());
  EXPECT_NE(why.find("prefill 32K: 50000000 tok/s"), std::string::npos) << why;
  EXPECT_NE(why.find("compute roofline"), std::string::npos) << why;
  // A failed row is not a figure.
  r.prefill[0].status = CellStatus::Error;
  EXPECT_EQ(implausible_reason(r, m, catalog()), "");
}

TEST(UploadChecks, SyntheticModelsAreRecognisedButNotWordsThatContainSynth) {
  RunResult r = test::site_result("s", "tiny-synth.gguf");
  EXPECT_TRUE(is_synthetic_model(r, to_json(r)));
  r = test::site_result("s2", "Synthia-7B");
  EXPECT_FALSE(is_synthetic_model(r, to_json(r)));
  nlohmann::json doc = to_json(r);
  doc["engine"]["synthetic_model"] = true;
  EXPECT_TRUE(is_synthetic_model(r, doc));
  r.engine.model = "speedmatrix synth small q8_0";
  EXPECT_TRUE(is_synthetic_model(r, to_json(r)));
}

TEST(UploadChecks, TheMeasurementsHashIgnoresTheRunIdAndLabels) {
  RunResult a = test::site_result("a");
  RunResult b = a;
  b.run_id = "b";
  b.submitted_by = "someone else";
  b.notes = "uploaded again";
  EXPECT_EQ(measurements_sha256(to_json(a)), measurements_sha256(to_json(b)));
  b.decode[0].total_tok_s = *b.decode[0].total_tok_s + 1;
  EXPECT_NE(measurements_sha256(to_json(a)), measurements_sha256(to_json(b)));
}

// Issue 30 point 2, efficiency against a physical bound: tokens per joule is a cell's tokens over
// its power × window (checked at upload), so power no board can draw makes it up. A mean above
// 1.25 × the sampled GPUs' enforced limit flags the run, whatever its GPU or model.
TEST(UploadChecks, PowerAboveTheGpusEnforcedLimitIsImplausible) {
  RunResult r = test::site_result("power", "M1", "NVIDIA A10G");  // neither GPU nor model in the catalog
  test::add_gpu_telemetry(r, 1.0);  // 350 W limit on the one GPU
  const CatalogMatch m = match_run(r, catalog());
  EXPECT_EQ(implausible_reason(r, m, catalog()), "");
  DecodeCell& c = r.decode[1];
  c.telemetry.gpu_power_w = 430.0;  // within 1.25 × 350 W: a limit raised mid-run
  c.telemetry.gpu_energy_j = 430.0 * *c.measured_s;
  c.telemetry.tokens_per_joule = static_cast<double>(*c.output_tokens) / *c.telemetry.gpu_energy_j;
  EXPECT_EQ(implausible_reason(r, m, catalog()), "");
  c.telemetry.gpu_power_w = 3.0;  // consistent, and low: 100× the tokens per joule ...
  c.telemetry.gpu_energy_j = 3.0 * *c.measured_s;
  c.telemetry.tokens_per_joule = static_cast<double>(*c.output_tokens) / *c.telemetry.gpu_energy_j;
  EXPECT_EQ(refusal(r), "") << "consistent figures pass the arithmetic checks";
  EXPECT_EQ(implausible_reason(r, m, catalog()), "") << "no floor is known for a board's power";
  c.telemetry.gpu_power_w = 1000.0;
  c.telemetry.gpu_energy_j = 1000.0 * *c.measured_s;
  c.telemetry.tokens_per_joule = static_cast<double>(*c.output_tokens) / *c.telemetry.gpu_energy_j;
  const std::string why = implausible_reason(r, m, catalog());
  EXPECT_NE(why.find("1000 W is above 1.25× the sampled GPUs' enforced power limit (350 W)"), std::string::npos) << why;
  // Without a known limit nothing is claimed.
  r.telemetry->gpus[0].power_limit_w.reset();
  EXPECT_EQ(implausible_reason(r, m, catalog()), "");
}

}  // namespace
}  // namespace sm::site
