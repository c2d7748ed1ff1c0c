#include "calc/perf_model.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "calc_test_setup.h"

namespace sm::calc {
namespace {

using test::make_setup;
using test::seed_setup;

TEST(CalcPerfModel, EmptyStepCostsNothing) {
  PerfModel m(seed_setup());
  EXPECT_EQ(m.step_time_s({}), 0.0);
}

TEST(CalcPerfModel, StepGrowsWithStreamsAndContext) {
  PerfModel m(seed_setup());
  std::vector<int64_t> one{0}, two{0, 0}, long_one{131072};
  EXPECT_GT(m.decode_step_time_s(two), m.decode_step_time_s(one));
  EXPECT_GT(m.decode_step_time_s(long_one), m.decode_step_time_s(one));
  // 128K of 32 KiB per token is 4.3 GB more to read per step: several milliseconds.
  EXPECT_GT(m.decode_step_time_s(long_one) - m.decode_step_time_s(one), 4e-3);
}

TEST(CalcPerfModel, BatchOneDecodeIsBoundByWeightsAndOverhead) {
  const calc::Setup s = seed_setup();
  PerfModel m(s);
  std::vector<int64_t> one{0};
  const StepBreakdown b = m.step_breakdown(one);
  EXPECT_FALSE(b.linear_compute_bound);
  EXPECT_DOUBLE_EQ(b.overhead_s, s.engine.step_overhead_s);
  EXPECT_NEAR(b.total_s, b.overhead_s + b.linear_s + b.lm_head_s + b.attention_s + b.state_s, 1e-12);
  // 1.86 GB of AWQ linears + 1.27 GB BF16 LM head at 0.9 × 936 GB/s.
  EXPECT_NEAR(b.linear_s + b.lm_head_s, 3.13e9 / (0.9 * 936e9), 0.1e-3);
}

TEST(CalcPerfModel, SharedPrefixIsCheaperForSeveralStreamsOnly) {
  PerfModel m(seed_setup());
  std::vector<int64_t> one{65536}, four{65536, 65536, 65536, 65536};
  EXPECT_DOUBLE_EQ(m.decode_step_time_s(one, 65536), m.decode_step_time_s(one, 0));
  EXPECT_LT(m.decode_step_time_s(four, 65536), m.decode_step_time_s(four, 0));
  // A shared prefix longer than a stream's context is clamped to it.
  EXPECT_DOUBLE_EQ(m.decode_step_time_s(four, 1 << 30), m.decode_step_time_s(four, 65536));
}

TEST(CalcPerfModel, PrefillChunksAddToADecodeStep) {
  PerfModel m(seed_setup());
  std::vector<int64_t> streams{1000, 1000};
  PrefillChunk chunk{0, 2048};
  EXPECT_GT(m.step_time_s(streams, std::span(&chunk, 1)), m.step_time_s(streams));
  // Prefill is compute-bound: a 2048-token chunk takes far longer than a decode step.
  EXPECT_GT(m.prefill_chunk_time_s(0, 2048), 10 * m.decode_step_time_s(streams));
}

// llama.cpp `-fa off`: decode attention runs at the engine's no_flash_attention_efficiency of
// the 16-bit peak, so the cost of context grows past the KV read on a GPU with little arithmetic
// per byte; with flash attention, or with the efficiency unset, nothing changes.
TEST(CalcPerfModel, AttentionWithoutFlashAttentionIsComputeBound) {
  calc::Setup fa = make_setup("m3-max", "llama-3.1-8b", "q4_k_m", "llamacpp");
  ASSERT_GT(fa.engine.no_flash_attention_efficiency, 0);
  calc::Setup no_fa = fa;
  no_fa.flash_attention = false;
  std::vector<int64_t> short_ctx{256}, long_ctx{8192};
  const StepBreakdown a = PerfModel(fa).step_breakdown(long_ctx);
  const StepBreakdown b = PerfModel(no_fa).step_breakdown(long_ctx);
  EXPECT_DOUBLE_EQ(a.linear_s, b.linear_s);
  EXPECT_GT(b.attention_s, 2 * a.attention_s);
  // 4 × 32 query heads × 128 × 32 layers FLOPs per (query, key) pair at the efficiency.
  const double flops = 4.0 * 32 * 128 * 32 * 8192;
  EXPECT_NEAR(b.attention_s, flops / (no_fa.gpu.tensor_16bit_flops * no_fa.engine.no_flash_attention_efficiency),
              1e-6);
  // Short contexts barely notice.
  EXPECT_LT(PerfModel(no_fa).decode_step_time_s(short_ctx), 1.1 * PerfModel(fa).decode_step_time_s(short_ctx));
  calc::Setup unset = no_fa;
  unset.engine.no_flash_attention_efficiency = 0;
  EXPECT_DOUBLE_EQ(PerfModel(unset).decode_step_time_s(long_ctx), PerfModel(fa).decode_step_time_s(long_ctx));
}

// llama.cpp `-fa off` prefill: attention runs at no_flash_attention_prefill_efficiency of the
// 16-bit peak, or is bound by the float32 score matrix it writes, soft-maxes and reads back (16
// bytes per query-key pair per head and layer), whichever is slower; linear layers are untouched
// and with flash attention nothing changes.
TEST(CalcPerfModel, PrefillWithoutFlashAttentionMovesTheScoreMatrix) {
  calc::Setup fa = make_setup("rtx4090", "llama-3.1-8b", "q4_k_m", "llamacpp");
  ASSERT_GT(fa.engine.no_flash_attention_prefill_efficiency, 0);
  calc::Setup no_fa = fa;
  no_fa.flash_attention = false;
  const PrefillChunk chunk{6144, 2048};  // the last chunk of an 8K prompt
  const std::span<const PrefillChunk> chunks(&chunk, 1);
  const StepBreakdown a = PerfModel(fa).step_breakdown({}, chunks);
  const StepBreakdown b = PerfModel(no_fa).step_breakdown({}, chunks);
  EXPECT_DOUBLE_EQ(a.linear_s, b.linear_s);
  EXPECT_GT(b.attention_s, 2 * a.attention_s);
  // Pairs of the chunk: 2048 × (6144 + 2049/2); 32 heads × 32 layers × 16 bytes each.
  const double pairs = 2048.0 * (6144.0 + 2049.0 / 2.0);
  const double score_s = pairs * 32 * 32 * 16 / (no_fa.gpu.bandwidth_bytes_per_s * no_fa.engine.attention_bandwidth_efficiency);
  const double compute_s = pairs * 4.0 * 32 * 128 * 32 /
                           (no_fa.gpu.tensor_16bit_flops * no_fa.engine.no_flash_attention_prefill_efficiency);
  EXPECT_GE(b.attention_s, std::max(score_s, compute_s) * 0.999);
  EXPECT_LT(b.attention_s, std::max(score_s, compute_s) * 1.1);  // plus the KV read
  // So an 8K prompt prefills clearly slower per token than 512 without flash attention.
  const PerfModel m(no_fa);
  EXPECT_LT(8192 / m.prefill_compute_time_s(8192), 0.8 * 512 / m.prefill_compute_time_s(512));
}

TEST(CalcPerfModel, PrefillAttentionGrowsWithPosition) {
  PerfModel m(seed_setup());
  EXPECT_GT(m.prefill_chunk_time_s(100000, 2048), m.prefill_chunk_time_s(0, 2048));
  const double per_token_8k = m.prefill_compute_time_s(8192) / 8192;
  const double per_token_128k = m.prefill_compute_time_s(131072) / 131072;
  EXPECT_GT(per_token_128k, 1.5 * per_token_8k);
}

TEST(CalcPerfModel, SeedKvCapacityReproducesTheOverCapacityPattern) {
  // design.md "Over capacity": any capacity in [524288, 557055] gives the seed's pattern.
  PerfModel m(seed_setup());
  EXPECT_GE(m.kv_capacity_tokens(), 524288);
  EXPECT_LE(m.kv_capacity_tokens(), 557055);
  calc::Setup default_seqs = seed_setup();
  default_seqs.max_num_seqs.reset();  // vLLM's default 256 sequences: a larger sampler buffer
  PerfModel d(default_seqs);
  EXPECT_GE(d.kv_capacity_tokens(), 524288);
  EXPECT_LE(d.kv_capacity_tokens(), 557055);
}

TEST(CalcPerfModel, CapacityFollowsMemoryUtilisationAndKvDtype) {
  calc::Setup s = seed_setup();
  const int64_t base = PerfModel(s).kv_capacity_tokens();
  s.gpu_mem_util = 0.9;
  EXPECT_LT(PerfModel(s).kv_capacity_tokens(), base);
  s.gpu_mem_util = 0.94;
  s.kv_bytes_per_element = 1;
  EXPECT_NEAR(static_cast<double>(PerfModel(s).kv_capacity_tokens()), 2.0 * static_cast<double>(base), 2.0);
}

TEST(CalcPerfModel, TensorParallelAddsBandwidthWithLosses) {
  calc::Setup one = make_setup("rtx3090", "llama-3.1-8b", "bf16", "vllm");
  calc::Setup two = one;
  two.gpus = 2;
  std::vector<int64_t> streams{4096};
  const double t1 = PerfModel(one).decode_step_time_s(streams);
  const double t2 = PerfModel(two).decode_step_time_s(streams);
  EXPECT_LT(t2, t1);
  EXPECT_GT(t2, (t1 - one.engine.step_overhead_s) / 2);
  EXPECT_GT(PerfModel(two).kv_capacity_tokens(), 2 * PerfModel(one).kv_capacity_tokens());
}

TEST(CalcPerfModel, MoeReadsMoreExpertsAtLargerBatch) {
  calc::Setup s = make_setup("h100-sxm", "qwen3-30b-a3b", "bf16", "vllm");
  PerfModel m(s);
  std::vector<int64_t> one(1, 0), many(64, 0);
  const StepBreakdown b1 = m.step_breakdown(one);
  const StepBreakdown b64 = m.step_breakdown(many);
  // Batch 1 touches 8 of 128 experts per layer; 64 tokens touch almost all of them.
  EXPECT_GT(b64.linear_s, 5 * b1.linear_s);
}

TEST(CalcPerfModel, EightBitWeightsUseEightBitTensorMathWhereAvailable) {
  calc::Setup fp8 = make_setup("h100-sxm", "llama-3.1-8b", "fp8", "vllm");
  calc::Setup bf16 = make_setup("h100-sxm", "llama-3.1-8b", "bf16", "vllm");
  EXPECT_LT(PerfModel(fp8).prefill_compute_time_s(32768), PerfModel(bf16).prefill_compute_time_s(32768));
}

// Gemma 3: 52 of 62 layers attend over at most 1,024 tokens, so at 64K context the KV read is
// ~10/62 of what the same model with every layer global would read.
TEST(CalcPerfModel, SlidingLayersReadKvOnlyUpToTheWindow) {
  const calc::Setup s = make_setup("h100-sxm", "gemma-3-27b", "bf16", "vllm");
  calc::Setup all_global = s;
  all_global.model.full_attention_layers = s.model.layers;
  all_global.model.sliding_window_layers = 0;
  const std::vector<int64_t> ctx{65536};
  const double sliding = PerfModel(s).step_breakdown(ctx).attention_s;
  const double global = PerfModel(all_global).step_breakdown(ctx).attention_s;
  EXPECT_LT(sliding, 0.2 * global);
  EXPECT_GT(sliding, 0.15 * global);
  // Below the window the two are the same.
  const std::vector<int64_t> short_ctx{512};
  EXPECT_NEAR(PerfModel(s).step_breakdown(short_ctx).attention_s, PerfModel(all_global).step_breakdown(short_ctx).attention_s,
              1e-12);
}

// MLA: decode at long context reads the compressed cache, so DeepSeek-V2-Lite's attention term is
// far below a GQA model's with a similar per-layer cache per head.
TEST(CalcPerfModel, MlaDecodeReadsTheLatentCache) {
  const calc::Setup s = make_setup("h100-sxm", "deepseek-v2-lite", "bf16", "vllm");
  PerfModel m(s);
  EXPECT_DOUBLE_EQ(m.memory().kv_bytes_per_token, 27.0 * 576 * 2);
  const std::vector<int64_t> ctx{32768};
  const StepBreakdown b = m.step_breakdown(ctx);
  // 32K tokens × 31,104 B at 3,350 GB/s × 0.9 ≈ 0.34 ms (memory-bound; absorbed compute is smaller).
  EXPECT_NEAR(b.attention_s, 32768.0 * 27 * 576 * 2 / (3350e9 * 0.9), 0.05e-3);
}

TEST(CalcPerfModel, FreeFunctionsMatchTheClass) {
  const calc::Setup s = seed_setup();
  PerfModel m(s);
  std::vector<int64_t> c{100, 200};
  EXPECT_DOUBLE_EQ(decode_step_time_s(s, c), m.decode_step_time_s(c));
  EXPECT_DOUBLE_EQ(prefill_time_s(s, 8192), m.prefill_time_s(8192));
  EXPECT_EQ(kv_capacity_tokens(s), m.kv_capacity_tokens());
}

}  // namespace
}  // namespace sm::calc

namespace sm::calc {
namespace {

// Without CUDA graphs every step also pays the engine's eager_overhead_s_per_layer for each
// decoder layer, whatever the batch; an engine without that figure is unchanged.
TEST(CalcPerfModel, EagerModeAddsAPerLayerCostToEveryStep) {
  calc::Setup graphs = test::make_setup("a100-80gb", "qwen2.5-7b", "bf16", "vllm");
  ASSERT_GT(graphs.engine.eager_overhead_s_per_layer, 0);
  calc::Setup eager = graphs;
  eager.cuda_graphs = false;
  const double per_step = graphs.engine.eager_overhead_s_per_layer * static_cast<double>(graphs.model.layers);
  for (std::vector<int64_t> contexts : {std::vector<int64_t>{512}, std::vector<int64_t>(32, 4096)}) {
    const StepBreakdown a = PerfModel(graphs).step_breakdown(contexts);
    const StepBreakdown b = PerfModel(eager).step_breakdown(contexts);
    EXPECT_NEAR(b.overhead_s - a.overhead_s, per_step, 1e-12);
    EXPECT_DOUBLE_EQ(b.linear_s, a.linear_s);
  }
  // Qwen2.5-7B's 28 layers: ~9.5 ms per step, vllm-omni issue 7960's eager-minus-graph TPOT on an A800.
  EXPECT_NEAR(per_step * 1000, 9.5, 0.5);
  calc::Setup llama = test::make_setup("rtx3090", "llama-3.1-8b", "q4_k_m", "llamacpp");
  calc::Setup llama_eager = llama;
  llama_eager.cuda_graphs = false;
  const std::vector<int64_t> one{512};
  EXPECT_DOUBLE_EQ(PerfModel(llama_eager).decode_step_time_s(one), PerfModel(llama).decode_step_time_s(one));
}

}  // namespace
}  // namespace sm::calc

namespace sm::calc {
namespace {

// FP4 weights on a GPU without FP4 tensor math (issue 35 point 3): vLLM's upcasting kernels read
// them at emulated_fp4_weight_efficiency of the weight rate. Checked on the corpus's gpt-oss-120b
// MXFP4 TPOT rows at 4 requests (S40-012: 11.44 ms on an A100; S41-013: 8.24 ms on an H100),
// which the uncorrected model put at 6.8 and 4.8 ms; FP8 (native on the H100) and llama.cpp's
// FP4 kernels are unchanged.
TEST(CalcPerfModel, Fp4WithoutFp4TensorMathReadsWeightsSlower) {
  for (auto [gpu, measured_ms] : {std::pair<const char*, double>{"a100-80gb", 11.44}, {"h100-sxm", 8.24}}) {
    calc::Setup s = test::make_setup(gpu, "gpt-oss-120b", "mxfp4", "vllm");
    ASSERT_GT(s.engine.emulated_fp4_weight_efficiency, 0);
    calc::Setup plain = s;
    plain.engine.emulated_fp4_weight_efficiency = 0;
    const std::vector<int64_t> four(4, 300);
    const StepBreakdown slow = PerfModel(s).step_breakdown(four);
    const StepBreakdown fast = PerfModel(plain).step_breakdown(four);
    EXPECT_NEAR(slow.linear_s, fast.linear_s / s.engine.emulated_fp4_weight_efficiency, 1e-9 * slow.linear_s);
    EXPECT_DOUBLE_EQ(slow.attention_s, fast.attention_s);
    EXPECT_NEAR(slow.total_s * 1000 / measured_ms, 1.0, 0.15) << gpu << " " << slow.total_s * 1000;
    EXPECT_LT(fast.total_s * 1000 / measured_ms, 0.65) << gpu;
  }
  const calc::Setup fp8 = test::make_setup("h100-sxm", "llama-3.1-8b", "fp8", "vllm");
  calc::Setup fp8_plain = fp8;
  fp8_plain.engine.emulated_fp4_weight_efficiency = 0;
  const std::vector<int64_t> one{512};
  EXPECT_DOUBLE_EQ(PerfModel(fp8).decode_step_time_s(one), PerfModel(fp8_plain).decode_step_time_s(one));
  EXPECT_EQ(test::make_setup("rtx3090", "gpt-oss-20b", "mxfp4", "llamacpp").engine.emulated_fp4_weight_efficiency, 0);
}

}  // namespace
}  // namespace sm::calc

namespace sm::calc {
namespace {

// A prompt computed in several micro-batches samples once: only the chunk that ends it pays for
// the LM head.
TEST(CalcPerfModel, OnlyTheChunkThatEndsAPromptComputesLogits) {
  const calc::Setup s = make_setup("rtx3090", "llama-3.1-8b", "q4_k_m", "llamacpp");
  PerfModel m(s);
  const PrefillChunk middle{0, 512, /*samples=*/false}, last{512, 512, /*samples=*/true};
  EXPECT_EQ(m.step_breakdown({}, std::span(&middle, 1)).lm_head_s, 0.0);
  EXPECT_GT(m.step_breakdown({}, std::span(&last, 1)).lm_head_s, 0.0);
  // pp2048 in 512-token micro-batches: four weight reads, one LM head.
  calc::Setup small = s;
  small.max_batched_tokens = 512;
  PerfModel chunked(small);
  const double expected = chunked.prefill_chunk_time_s(0, 512, false) + chunked.prefill_chunk_time_s(512, 512, false) +
                          chunked.prefill_chunk_time_s(1024, 512, false) + chunked.prefill_chunk_time_s(1536, 512, true);
  EXPECT_NEAR(chunked.prefill_compute_time_s(2048), expected, 1e-12);
}

// Mixture-of-experts prefill: a chunk of n tokens gives each touched expert n × k / touched rows;
// with expert_gemm_half_rows h the routed experts' matmuls run at rows / (rows + h) of the prefill
// rate. Checked on the llama.cpp value fitted to the corpus's MoE prefill rows, and only prefill:
// decode steps and dense models are unchanged.
TEST(CalcPerfModel, ExpertMatmulsWithFewRowsPerExpertAreSlower) {
  calc::Setup moe = make_setup("rtx4090", "qwen3-30b-a3b", "q4_0", "llamacpp");
  ASSERT_GT(moe.engine.expert_gemm_half_rows, 0);
  calc::Setup plain = moe;
  plain.engine.expert_gemm_half_rows = 0;
  const PrefillChunk chunk{0, 512};
  const StepBreakdown slow = PerfModel(moe).step_breakdown({}, std::span(&chunk, 1));
  const StepBreakdown fast = PerfModel(plain).step_breakdown({}, std::span(&chunk, 1));
  ASSERT_TRUE(slow.linear_compute_bound);
  // 512 tokens × 8 of 128 experts: all 128 touched, 32 rows each.
  const ParamCounts p = count_params(moe.model);
  const double routed_flops = 2.0 * 512 * static_cast<double>(moe.model.moe_layer_count()) * 8 * p.expert_one;
  const double h = moe.engine.expert_gemm_half_rows;
  const double rows = 512.0 * 8 / (128 * (1 - std::pow(1 - 8.0 / 128, 512)));
  const double prefill_flops = moe.gpu.tensor_16bit_flops * moe.engine.prefill_compute_efficiency;
  EXPECT_NEAR(slow.linear_s - fast.linear_s, routed_flops * (h / rows) / prefill_flops, 1e-6);
  // Bigger chunks give each expert more rows: a smaller penalty per token.
  auto per_token_ratio = [&](int64_t n) {
    return PerfModel(moe).prefill_chunk_time_s(0, n) / PerfModel(plain).prefill_chunk_time_s(0, n);
  };
  EXPECT_GT(per_token_ratio(512), per_token_ratio(4096));
  EXPECT_GT(per_token_ratio(4096), 1.0);
  // Decode and dense models: no change.
  std::vector<int64_t> streams(8, 1000);
  EXPECT_DOUBLE_EQ(PerfModel(moe).decode_step_time_s(streams), PerfModel(plain).decode_step_time_s(streams));
  calc::Setup dense = make_setup("rtx4090", "llama-3.1-8b", "q4_0", "llamacpp"), dense_plain = dense;
  dense_plain.engine.expert_gemm_half_rows = 0;
  EXPECT_DOUBLE_EQ(PerfModel(dense).prefill_chunk_time_s(0, 512), PerfModel(dense_plain).prefill_chunk_time_s(0, 512));
}

// Apple's Ultra chips are two Max dies: every step pays die_sync per decoder layer on top of the
// step overhead; one-die GPUs do not.
TEST(CalcPerfModel, UltraChipsSyncTheirDiesEveryLayer) {
  const calc::Setup ultra = make_setup("m2-ultra", "qwen3-30b-a3b", "q8_0", "llamacpp");
  const calc::Setup max = make_setup("m3-max", "qwen3-30b-a3b", "q8_0", "llamacpp");
  ASSERT_EQ(ultra.gpu.dies, 2);
  ASSERT_EQ(max.gpu.dies, 1);
  ASSERT_GT(ultra.engine.die_sync_s_per_layer, 0);
  std::vector<int64_t> one{0};
  EXPECT_NEAR(PerfModel(ultra).step_breakdown(one).overhead_s,
              ultra.engine.step_overhead_s + ultra.engine.die_sync_s_per_layer * static_cast<double>(ultra.model.layers),
              1e-12);
  EXPECT_DOUBLE_EQ(PerfModel(max).step_breakdown(one).overhead_s, max.engine.step_overhead_s);
}

}  // namespace
}  // namespace sm::calc
