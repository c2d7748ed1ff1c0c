#include "calc/predict.h"

#include <gtest/gtest.h>

#include "calc_test_setup.h"
#include "result/result_json.h"

namespace sm::calc {
namespace {

using test::make_setup;
using test::seed_setup;

PredictOptions seed_options() {
  PredictOptions o;
  o.max_model_len = 262144;
  o.matrix.max_output_tokens = 8192;
  o.matrix.duration_s = 30;
  o.matrix.contexts = default_contexts(o.max_model_len, 8192);
  o.matrix.concurrency = default_concurrency();
  o.matrix.prefill_contexts = default_prefill_contexts();
  return o;
}

TEST(CalcPredict, SeedMatrixIsAPredictedRunResult) {
  auto r = predict(seed_setup(), seed_options());
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->kind, "predicted");
  EXPECT_EQ(r->engine.kind, "vllm");
  EXPECT_EQ(r->engine.quantization, "AWQ 4-bit");
  ASSERT_EQ(r->hardware.gpus.size(), 1u);
  EXPECT_EQ(r->hardware.gpus[0].name, "NVIDIA GeForce RTX 3090");
  EXPECT_EQ(r->prefill.size(), 5u);
  EXPECT_EQ(r->decode.size(), 48u);
  ASSERT_TRUE(r->engine.kv_capacity_tokens);
  int valid = 0;
  for (const auto& c : r->decode) {
    if (c.status != CellStatus::Valid) {
      EXPECT_FALSE(c.total_tok_s);
      continue;
    }
    ++valid;
    ASSERT_TRUE(c.total_tok_s && c.per_request_tok_s && c.tbt_ms && c.ttft_ms);
    EXPECT_GT(*c.total_tok_s, 0);
    // N streams each at 1/step: total ≈ N × per-request.
    EXPECT_NEAR(*c.total_tok_s, static_cast<double>(c.concurrency) * *c.per_request_tok_s,
                0.05 * *c.total_tok_s);
    EXPECT_NEAR(*c.per_request_tok_s, 1000.0 / *c.tbt_ms, 0.05 * *c.per_request_tok_s);
    EXPECT_NEAR(*c.avg_active, static_cast<double>(c.concurrency), 0.01);
    EXPECT_EQ(*c.measured_s, 30.0);
  }
  EXPECT_EQ(valid, 23);
}

TEST(CalcPredict, JsonRoundTripKeepsThePrediction) {
  auto r = predict(seed_setup(), seed_options());
  ASSERT_TRUE(r);
  auto back = result_from_json(to_json(*r));
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(back->kind, "predicted");
  EXPECT_EQ(back->decode.size(), r->decode.size());
  EXPECT_EQ(back->decode[0].total_tok_s, r->decode[0].total_tok_s);
}

TEST(CalcPredict, TheIdNamesTheSetupAndHashesItsSettings) {
  auto a = predict(seed_setup(), seed_options());
  auto again = predict(seed_setup(), seed_options());
  PredictOptions other = seed_options();
  other.matrix.contexts = {0, 16 * 1024};
  auto b = predict(seed_setup(), other);
  ASSERT_TRUE(a && again && b);
  EXPECT_TRUE(a->run_id.starts_with("calc-1xrtx3090-qwen3.5-4b-awq-4bit-vllm-")) << a->run_id;
  EXPECT_EQ(a->run_id.size(), std::string("calc-1xrtx3090-qwen3.5-4b-awq-4bit-vllm-").size() + 8);
  EXPECT_EQ(a->run_id, again->run_id);  // the same prediction, the same id
  EXPECT_NE(a->run_id, b->run_id);      // other settings, another id
}

TEST(CalcPredict, ModelThatDoesNotFitFails) {
  auto r = predict(make_setup("rtx3090", "llama-3.1-70b", "bf16", "vllm"), seed_options());
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("does not fit"), std::string::npos) << r.error().message;
}

TEST(CalcPredict, KvCapacityOverrideAndTooLongCells) {
  PredictOptions o = seed_options();
  o.kv_capacity_override = 100000;
  o.max_model_len = 65536;
  o.matrix.contexts = {0, 65536};
  o.matrix.concurrency = {1, 16};
  o.matrix.prefill_contexts = {8192, 131072};
  auto r = predict(seed_setup(), o);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(*r->engine.kv_capacity_tokens, 100000);
  EXPECT_EQ(r->decode[0].status, CellStatus::Valid);         // 1 × (0 + 8K)
  EXPECT_EQ(r->decode[1].status, CellStatus::OverCapacity);  // 16 × 8K > 100000
  EXPECT_EQ(r->decode[2].status, CellStatus::BeyondModel);       // 64K + 8K > 64K
  EXPECT_EQ(r->prefill[1].status, CellStatus::BeyondModel);
}

TEST(CalcPredict, ShortRequestsRestartInsideTheWindow) {
  PerfModel m(seed_setup());
  const CellPrediction p = predict_decode_cell(m, 1024, 4, 64, 5.0);
  EXPECT_GT(p.completed, 0);
  EXPECT_GT(p.requests_started, 4);
  // Restarts cost a queue + prefill gap: fewer tokens than streams × 1/step.
  EXPECT_LT(p.total_tok_s, 4 * p.per_request_tok_s);
  EXPECT_LT(p.effective_concurrency, p.avg_active);
}

TEST(CalcPredict, InvalidOptionsFail) {
  PredictOptions o = seed_options();
  o.matrix.duration_s = 0;
  EXPECT_FALSE(predict(seed_setup(), o));
  calc::Setup s = seed_setup();
  s.gpus = 0;
  EXPECT_FALSE(predict(s, seed_options()));
}

TEST(CalcPredict, EveryCatalogModelFitsSomewhere) {
  auto c = Catalog::builtin();
  ASSERT_TRUE(c);
  PredictOptions o;
  o.matrix.contexts = {0, 2048};
  o.matrix.concurrency = {1, 8};
  o.matrix.prefill_contexts = {2048};
  o.matrix.max_output_tokens = 1024;  // Llama 2 and Phi-3-mini stop at 4,096 positions
  o.matrix.duration_s = 2;
  for (const auto& model : c->models()) {
    calc::Setup s = make_setup("h200", model.id, "fp8", "vllm");
    auto r = predict(s, o);
    // Models larger than one GPU (Llama-3.1-405B) on the fewest tensor-parallel GPUs that hold them.
    for (int gpus = 2; !r && gpus <= 8; gpus *= 2) {
      s.gpus = gpus;
      r = predict(s, o);
    }
    ASSERT_TRUE(r) << model.id << ": " << r.error().message;
    ASSERT_EQ(r->decode[0].status, CellStatus::Valid) << model.id;
    EXPECT_GT(*r->decode[0].total_tok_s, 10) << model.id;
    EXPECT_GT(*r->prefill[0].prompt_tok_s, 1000) << model.id;
  }
}

// The step cap: a cell that would need more steps is not truncated silently. Its figures are
// over the part simulated, and the cell says so (or is an error when no window opened).
TEST(CalcPredict, StepCapIsReportedNotSilent) {
  const PerfModel model(seed_setup());
  const CellPrediction full = predict_decode_cell(model, 0, 4, 8192, 2.0);
  EXPECT_FALSE(full.truncated);
  EXPECT_EQ(full.window_s, 2.0);
  EXPECT_LT(full.steps, default_max_steps(2.0));

  const CellPrediction cut = predict_decode_cell(model, 0, 4, 8192, 2.0, full.steps / 2);
  ASSERT_TRUE(cut.truncated);
  EXPECT_GT(cut.window_s, 0.0);
  EXPECT_LT(cut.window_s, 2.0);
  EXPECT_EQ(cut.steps, full.steps / 2);
  // Throughput over the part simulated, not over the whole window: the same rate as the full cell.
  EXPECT_NEAR(cut.total_tok_s, static_cast<double>(cut.output_tokens) / cut.window_s, 1e-9);
  EXPECT_NEAR(cut.total_tok_s, full.total_tok_s, 0.02 * full.total_tok_s);

  PredictOptions o;
  o.max_model_len = 262144;
  o.matrix.max_output_tokens = 8192;
  o.matrix.duration_s = 2.0;
  o.matrix.contexts = {0};
  o.matrix.concurrency = {4};
  o.matrix.prefill_contexts = {};
  o.max_steps_per_cell = full.steps / 2;
  auto r = predict(seed_setup(), o);
  ASSERT_TRUE(r) << r.error().message;
  ASSERT_EQ(r->decode.size(), 1u);
  const DecodeCell& cell = r->decode[0];
  EXPECT_EQ(cell.status, CellStatus::Valid);
  ASSERT_EQ(cell.warnings.size(), 1u);
  EXPECT_NE(cell.warnings[0].find("cap of"), std::string::npos) << cell.warnings[0];
  ASSERT_TRUE(cell.measured_s);
  EXPECT_LT(*cell.measured_s, 2.0);

  o.max_steps_per_cell = 1;  // not even the first tokens: no window at all
  r = predict(seed_setup(), o);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->decode[0].status, CellStatus::Error);
  EXPECT_NE(r->decode[0].error.find("cap of 1 engine steps"), std::string::npos) << r->decode[0].error;
}

}  // namespace
}  // namespace sm::calc
