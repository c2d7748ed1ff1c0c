#pragma once
// Just enough of the Prometheus text format to read engines' gauges, counters and info labels.
#include <cstdint>
#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sm {

struct PromSample {
  std::string name;                           ///< metric name, e.g. "vllm:cache_config_info"
  std::map<std::string, std::string> labels;  ///< label name -> unescaped value
  double value = 0;
};

/// Parses every sample line; comments and malformed lines are skipped.
std::vector<PromSample> parse_prometheus(std::string_view text);

/// First sample with this name, if any.
std::optional<PromSample> find_sample(const std::vector<PromSample>& samples, std::string_view name);

/// How the values of several engines (data-parallel ranks, one label set each) make one figure.
enum class AcrossEngines : uint8_t {
  Sum,   ///< counts and counters: requests, preemptions, tokens
  Max,   ///< the fullest engine: KV-cache usage
  Mean,  ///< rates: prefix-cache hit rate, speculative accept length
};

/// One figure from the first of `names` (aliases, oldest last) that has a finite sample; nullopt
/// when none does. Label sets that differ only in tp_rank / pp_rank / moe_ep_rank (SGLang) are one
/// engine seen from several ranks and count once (their largest value); distinct engines (dp_rank,
/// vLLM's engine label) are then combined.
std::optional<double> across_engines(const std::vector<PromSample>& samples,
                                     std::initializer_list<std::string_view> names, AcrossEngines how);

}  // namespace sm
