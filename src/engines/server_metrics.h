#pragma once
// The server's whole state from one metrics body: running and waiting requests, KV-cache usage,
// preemptions, prefix-cache and speculative-decoding figures, each where the engine exports it.
// Same endpoint and same body as the load (server_load.h); ServerLoadReader::read_reading() reads
// it, and the load is the running / waiting part of it (load_of).
//
// Metric names per engine, and the release they were read from (public source):
//
// vLLM (vllm/v1/metrics/loggers.py and vllm/v1/spec_decode/metrics.py of the 0.9-0.10 releases;
// vllm/engine/metrics.py for the v0 engine, 0.6): running `vllm:num_requests_running`, waiting
// `vllm:num_requests_waiting`, KV `vllm:kv_cache_usage_perc` (a 0-1 fraction despite the name) or
// `vllm:gpu_cache_usage_perc` (v0, and V1 until it was deprecated for the former in 0.9),
// preemptions `vllm:num_preemptions_total` (V1's counter num_preemptions and v0's
// num_preemptions_total are both exported under this name), prefix cache
// `vllm:prefix_cache_queries_total` / `vllm:prefix_cache_hits_total` (tokens) or, before 0.9,
// `vllm:gpu_prefix_cache_queries_total` / `vllm:gpu_prefix_cache_hits_total`, or v0's gauge
// `vllm:gpu_prefix_cache_hit_rate`; speculative decoding `vllm:spec_decode_num_draft_tokens_total`
// / `vllm:spec_decode_num_accepted_tokens_total` (the same names in v0 and V1), and V1's
// `vllm:spec_decode_num_drafts_total` (drafts verified: mean accepted length = 1 + accepted ÷ drafts,
// as vLLM's examples/offline_inference/spec_decode.py computes it). The simulated
// engine (src/sim) exports the current names.
//
// SGLang (python/sglang/srt/metrics/collector.py, 2025-26 main; some releases write `sglang_` for
// `sglang:`, both read): running `num_running_reqs`, waiting `num_queue_reqs`, KV `token_usage`
// (used / pool tokens), preemptions `num_retracted_requests_total` (counter of retracted requests;
// the older gauge `num_retracted_reqs` is per log interval, not cumulative, and is not read),
// prefix cache `cache_hit_rate` (gauge), speculative `spec_accept_length` (gauge). With
// --enable-metrics only.
//
// llama.cpp (tools/server, --metrics): running `llamacpp:requests_processing`, waiting
// `llamacpp:requests_deferred`, KV `llamacpp:kv_cache_usage_ratio` (older builds only; current
// builds dropped it), prefix cache `llamacpp:prompt_tokens_cached_total` (hits) with
// `llamacpp:prompt_tokens_total` (which then counts only the tokens not from the cache; queries =
// both), speculative `llamacpp:spec_decode_num_draft_tokens_total` /
// `llamacpp:spec_decode_num_accepted_tokens_total` (current builds, e.g. Debian's b11669, whose
// /metrics is captured in the fixtures). No preemption: a slot keeps its request. /slots (without
// --metrics): running only.
//
// TGI (docs/source/reference/metrics.md, 3.x): running `tgi_batch_current_size`, waiting
// `tgi_queue_size`; no KV usage, preemption, prefix-cache or speculative metric.
//
// LMDeploy (lmdeploy/metrics/loggers.py): running `lmdeploy:num_requests_running`, waiting
// `lmdeploy:num_requests_waiting`, KV `lmdeploy:gpu_cache_usage_perc` (0-1), prefix cache
// `lmdeploy:prefix_cache_hit_rate` (gauge; 0.16, absent from earlier loggers).
//
// Several engines in one body (data-parallel ranks, one label set each; tensor/pipeline ranks of
// one engine count once): counts and counters are summed, KV usage is the fullest engine's, rates
// are the mean over engines. A KV usage outside 0-1 is not read (it would not be a fraction), nor
// a negative counter.
#include <optional>
#include <string_view>

#include "engines/server_load.h"
#include "result/telemetry_types.h"

namespace sm {

// Parsers of one response body; nullopt when the body does not carry the source's running count
// (the same bodies the load parsers accept).
std::optional<ServerReading> read_vllm_reading(std::string_view metrics_text);
std::optional<ServerReading> read_sglang_reading(std::string_view metrics_text);
std::optional<ServerReading> read_llamacpp_metrics_reading(std::string_view metrics_text);
std::optional<ServerReading> read_llamacpp_slots_reading(std::string_view slots_json);
std::optional<ServerReading> read_tgi_reading(std::string_view metrics_text);
std::optional<ServerReading> read_lmdeploy_reading(std::string_view metrics_text);
std::optional<ServerReading> read_reading(LoadSource source, std::string_view body);

/// The load part of a reading; nullopt without a running count.
std::optional<ServerLoad> load_of(const ServerReading& reading);

}  // namespace sm
