#pragma once
// Just enough of the Prometheus text format to read engines' gauges and info labels.
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

}  // namespace sm
