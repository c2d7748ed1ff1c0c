#pragma once
// The per-engine parameters of the performance model (data/engines.json). They are shared by
// every GPU and model: docs/calculator.md explains each value and how it was fitted.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace sm::calc {

struct EngineParams {
  std::string id;                        ///< catalog key and RunResult engine.kind: "vllm", "sglang", "llamacpp"
  std::string name;                      ///< display name, e.g. "vLLM"
  std::vector<std::string> aliases;      ///< other names accepted on the command line
  double bandwidth_efficiency = 0.9;     ///< fraction of datasheet bandwidth memory-bound kernels reach (≤ 0.95)
  /// Fraction of datasheet bandwidth the attention kernels reach reading the KV cache; 0: the same
  /// as bandwidth_efficiency. Fitted where the corpus asks for it (llama.cpp decode slows with
  /// context faster than its KV reads at the weights' efficiency explain).
  double attention_bandwidth_efficiency = 0;
  /// Fraction of 16-bit tensor peak that attention reaches when it runs without a fused
  /// flash-attention kernel (separate KQ, softmax and KQV kernels: llama.cpp `-fa off`, its default
  /// before September 2025); 0: the same as the decode and prefill compute efficiencies. Fitted
  /// where the corpus asks for it (llama.cpp decode without flash attention slows with context in
  /// proportion to the GPU's arithmetic, not its bandwidth).
  double no_flash_attention_efficiency = 0;
  /// The same for prefill: fraction of 16-bit tensor peak that prefill attention reaches without a
  /// fused kernel (the chunk's whole KQ matrix is written, soft-maxed and read back in float32);
  /// 0: prefill_compute_efficiency. Fitted where the corpus asks for it (llama.cpp prompt speed
  /// without flash attention falls from pp512 to pp8192 far faster than its FLOPs grow).
  double no_flash_attention_prefill_efficiency = 0;
  /// FP4 weights (MXFP4, NVFP4) on a GPU without FP4 tensor math are upcast inside the matmul
  /// (vLLM's Marlin / Triton MXFP4 paths): the fraction of the weight-read rate those kernels keep;
  /// 0: no penalty (llama.cpp's own FP4 matrix-vector kernels are bandwidth-bound).
  double emulated_fp4_weight_efficiency = 0;
  /// Tokens per routed expert at which a prefill step's expert matmuls run at half the prefill
  /// rate: a chunk of n tokens gives each touched expert only n × k / touched rows (16 for
  /// gpt-oss-120b's pp512), and grouped GEMMs over so few rows waste most of their tiles. The
  /// expert matmuls run at rows / (rows + this) of prefill_compute_efficiency; 0: no penalty.
  double expert_gemm_half_rows = 0;
  double decode_compute_efficiency = 0.5;   ///< fraction of tensor peak decode-step matmuls reach
  double prefill_compute_efficiency = 0.5;  ///< fraction of tensor peak prefill (large matmuls, attention) reaches
  /// Without CUDA graphs (vLLM --enforce-eager, SGLang --disable-cuda-graph) every layer's kernels
  /// are launched from Python each step: seconds added per decoder layer and step; 0: the engine
  /// has no such mode modelled (calc refuses --enforce-eager for it).
  double eager_overhead_s_per_layer = 0;
  /// On a GPU of several dies (GpuSpec::dies: Apple's Ultra chips) each decoder layer's kernels
  /// end with the dies synchronising: seconds per layer, step and extra die. Fitted where the
  /// corpus asks for it (llama.cpp decode on M1/M2/M3 Ultra falls short of its bandwidth by a
  /// fixed time per token that grows with the layers, not the bytes); 0: none.
  double die_sync_s_per_layer = 0;
  double step_overhead_s = 0.002;        ///< fixed time of every scheduler step not hidden behind the GPU (launch, scheduling, sampling)
  double shared_prefix_reuse = 0;        ///< fraction of repeated reads of KV blocks shared by several streams served on chip (L2 / cascade)
  double tp_loss_per_extra_gpu = 0.08;   ///< throughput lost per extra tensor-parallel GPU (all-reduce, sync)
  double default_gpu_mem_util = 0.9;     ///< fraction of usable memory the engine takes when --gpu-mem-util is not given
  int64_t reserve_bytes = 0;             ///< per GPU, not KV: CUDA context, graphs, workspaces, allocator slack
  int64_t max_batched_tokens = 2048;     ///< tokens per scheduler step (prefill chunk) on GPUs below large_gpu_memory_bytes
  int64_t max_batched_tokens_large_gpu = 8192;  ///< the same on GPUs with at least large_gpu_memory_bytes
  int64_t large_gpu_memory_bytes = 0;    ///< memory from which the large-GPU defaults apply (0: never)
  int64_t max_num_seqs = 256;            ///< default concurrent sequences (sizes the sampler's logits buffer)
  double request_overhead_s = 0.005;     ///< CPU time per request admitted (HTTP, detokenizer set-up, scheduling)
  double tokenize_s_per_token = 2e-6;    ///< CPU time to tokenize and hash one prompt token (API server)
  /// Half-width of the 80% error interval of predictions with these values, by "family/class"
  /// ("decode/geforce", "prefill/all"; family decode or prefill, class geforce, workstation,
  /// datacenter, apple or all): calibrated on held-out residuals of the corpus, its coverage
  /// measured on sources it was not calibrated on (`calc fit --cross-validate`, calc/fit.h).
  std::map<std::string, double> error_80;
  /// error_80 keys calibrated on little evidence (few rows or one source): a wide band, and
  /// predictions say so.
  std::vector<std::string> error_80_little_evidence;
  std::string error_source;              ///< how error_80 was obtained
  /// GPU backends the engine runs on ("cuda", "rocm", "metal", "sycl"); empty: any. Others are refused.
  std::vector<std::string> backends;
  /// Weight formats it loads (QuantSpec::format); empty: any. Others are refused.
  std::vector<std::string> quant_formats;
  /// Formats it loads only experimentally, with the reason: predicted, with a warning.
  std::map<std::string, std::string> experimental_quant_formats;
  std::string source;                    ///< where the values come from
  std::string notes;                     ///< caveats
};

}  // namespace sm::calc
