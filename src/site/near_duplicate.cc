#include "site/near_duplicate.h"

#include <algorithm>
#include <cmath>

#include <nlohmann/json.hpp>

#include "result/result_json.h"

namespace sm::site {

namespace {

bool close(const std::optional<double>& a, const std::optional<double>& b) {
  if (!a || !b) return a.has_value() == b.has_value();
  const double larger = std::max(std::abs(*a), std::abs(*b));
  return std::abs(*a - *b) <= kNearDuplicateTolerance * larger;
}

bool same_gpus(const HardwareInfo& a, const HardwareInfo& b) {
  if (a.gpus.size() != b.gpus.size()) return false;
  for (size_t i = 0; i < a.gpus.size(); ++i)
    if (a.gpus[i].name != b.gpus[i].name) return false;
  return true;
}

}  // namespace

bool is_near_duplicate(const RunResult& a, const RunResult& b) {
  if (a.kind != b.kind || a.engine.kind != b.engine.kind || a.engine.version != b.engine.version ||
      a.engine.model != b.engine.model || a.engine.quantization != b.engine.quantization ||
      !same_gpus(a.hardware, b.hardware))
    return false;
  if (a.decode.size() != b.decode.size() || a.prefill.size() != b.prefill.size()) return false;
  int compared = 0;
  for (size_t i = 0; i < a.decode.size(); ++i) {
    const DecodeCell& x = a.decode[i];
    const DecodeCell& y = b.decode[i];
    if (x.context != y.context || x.concurrency != y.concurrency || x.status != y.status) return false;
    if (x.status != CellStatus::Valid) continue;
    if (!close(x.total_tok_s, y.total_tok_s)) return false;
    compared += x.total_tok_s.has_value();
  }
  for (size_t i = 0; i < a.prefill.size(); ++i) {
    const PrefillRow& x = a.prefill[i];
    const PrefillRow& y = b.prefill[i];
    if (x.context != y.context || x.status != y.status) return false;
    if (x.status != CellStatus::Valid) continue;
    if (!close(x.prompt_tok_s, y.prompt_tok_s)) return false;
    compared += x.prompt_tok_s.has_value();
  }
  return compared > 0;
}

Result<std::optional<std::string>> find_near_duplicate(store::ResultStore& store, const RunResult& run,
                                                       const store::RunSummary& summary) {
  store::RunFilter filter;
  filter.gpu = summary.gpu;
  filter.model = summary.model;
  filter.engine = summary.engine;
  filter.quantization = summary.quantization;
  filter.kind = summary.kind;
  auto page = store.list_runs(filter, store::RunOrder::Newest, {.limit = kNearDuplicateCandidates});
  if (!page) return std::unexpected(page.error());
  for (const store::RunSummary& candidate : page->runs) {
    if (candidate.run_id == run.run_id) continue;  // the same id: a retry or a conflict, the store's answer
    // The headline figures first: most candidates differ there, and reading one costs nothing.
    if (!close(candidate.single_stream_tok_s, summary.single_stream_tok_s) ||
        !close(candidate.best_total_tok_s, summary.best_total_tok_s) ||
        !close(candidate.prefill_32k_tok_s, summary.prefill_32k_tok_s) || candidate.valid_cells != summary.valid_cells ||
        candidate.decode_cells != summary.decode_cells)
      continue;
    auto text = store.get_run_json(candidate.run_id);
    if (!text) return std::unexpected(text.error());
    if (!*text) continue;
    auto document = nlohmann::json::parse(**text, nullptr, false);
    if (document.is_discarded()) continue;
    auto stored = result_from_json(document);
    if (stored && is_near_duplicate(run, *stored)) return std::optional<std::string>(candidate.run_id);
  }
  return std::optional<std::string>();
}

}  // namespace sm::site
