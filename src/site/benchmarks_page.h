#pragma once
// The Benchmarks page: what each kind of benchmark the site holds measures (the sustained
// matrix, burst cells, request-rate sweeps) and the latest runs of each.
#include <string>
#include <string_view>
#include <vector>

#include "store/result_store.h"

namespace sm::site {

/// The kinds of benchmark, in the order the page shows them.
inline constexpr std::string_view kBenchmarkKinds[] = {"matrix", "burst", "sweep"};

/// The benchmark a stored result is, from its canonical JSON (sorted keys, no whitespace, as the
/// store keeps it): "sweep" (`speedmatrix sweep`: a "sweep" object), "burst" (`run --requests N`:
/// settings.decode_test "burst") or "matrix" (the sustained matrix of `run`, and predictions).
/// A string value cannot fake either key: inside a JSON string a quote is written \".
std::string_view benchmark_kind(std::string_view canonical_json);

/// How many of the newest runs the page reads to sort them by benchmark (it reads their JSON).
inline constexpr int64_t kBenchmarkScanRuns = 24;
/// Runs shown per benchmark.
inline constexpr size_t kBenchmarkLatestRuns = 5;

/// The newest visible runs (at most kBenchmarkScanRuns, every kind of run) by benchmark, at
/// most kBenchmarkLatestRuns each, in kBenchmarkKinds order.
Result<std::vector<std::vector<store::RunSummary>>> latest_runs_by_benchmark(store::ResultStore& store);

}  // namespace sm::site
