#include "site/benchmarks_page.h"

#include <algorithm>

namespace sm::site {

std::string_view benchmark_kind(std::string_view json) {
  if (json.find("\"sweep\":{") != std::string_view::npos) return "sweep";
  if (json.find("\"decode_test\":\"burst\"") != std::string_view::npos) return "burst";
  return "matrix";
}

Result<std::vector<std::vector<store::RunSummary>>> latest_runs_by_benchmark(store::ResultStore& store) {
  std::vector<std::vector<store::RunSummary>> out(std::size(kBenchmarkKinds));
  auto page = store.list_runs({}, store::RunOrder::Newest, {.limit = kBenchmarkScanRuns});
  if (!page) return std::unexpected(page.error());
  for (const auto& run : page->runs) {
    auto text = store.get_run_json(run.run_id);
    if (!text) return std::unexpected(text.error());
    if (!*text) continue;  // hidden or deleted since it was listed
    const std::string_view kind = benchmark_kind(**text);
    const auto at = static_cast<size_t>(std::find(std::begin(kBenchmarkKinds), std::end(kBenchmarkKinds), kind) -
                                        std::begin(kBenchmarkKinds));
    if (out[at].size() < kBenchmarkLatestRuns) out[at].push_back(run);
  }
  return out;
}

}  // namespace sm::site
