#include "site/run_checks.h"

#include <fmt/format.h>

#include "core/sha256.h"
#include "result/result_json.h"
#include "site/canonical_names.h"
#include "site/catalog_match.h"
#include "site/upload_checks.h"
#include "store/run_summary.h"

namespace sm::site {

namespace {

// Raised when the checks decide differently on the same catalog (a new check, a new bound).
constexpr int kChecksVersion = 2;  // 2: power above the enforced limit

constexpr int64_t kRecheckPage = 200;

}  // namespace

std::string checks_fingerprint(const calc::Catalog& catalog) {
  std::string text = fmt::format("checks {}\n", kChecksVersion);
  for (const calc::GpuSpec& g : catalog.gpus()) {
    text += fmt::format("gpu {}|{}|{}|{}|{}|{}", g.id, g.name, g.memory_bytes, g.bandwidth_bytes_per_s,
                        g.tensor_16bit_flops, g.tensor_8bit_flops.value_or(0));
    for (const auto& a : g.aliases) text += "|a:" + a;
    for (const auto& r : g.reported_names) text += "|r:" + r.name;
    text += '\n';
  }
  for (const calc::ModelShape& m : catalog.models()) {
    text += fmt::format("model {}|{}", m.id, m.name);
    for (const auto& a : m.aliases) text += "|a:" + a;
    text += '\n';
  }
  for (const calc::QuantSpec& q : catalog.quants()) {
    text += fmt::format("quant {}|{}|{}", q.id, q.name, q.bits_per_weight());
    for (const auto& a : q.aliases) text += "|a:" + a;
    text += '\n';
  }
  return sha256_hex(text).substr(0, 16);
}

void apply_site_checks(store::RunSummary& summary, const RunResult& run, const nlohmann::json& document,
                       const calc::Catalog& catalog, std::string_view fingerprint) {
  const CatalogMatch match = match_run(run, catalog);
  summary.calc_gpu.clear();
  summary.calc_gpu_count = 0;
  summary.calc_model.clear();
  summary.calc_engine.clear();
  set_calc_columns(summary, match);
  apply_canonical_names(summary, run, match, catalog);
  // Only a measurement claims what the hardware did; a prediction or a simulation does not.
  summary.implausible = summary.kind == "measured" ? implausible_reason(run, match, catalog) : std::string();
  summary.synthetic_model = is_synthetic_model(run, document);
  summary.checked_with = std::string(fingerprint);
}

Result<int64_t> recheck_stored_runs(store::ResultStore& store, const calc::Catalog& catalog,
                                    std::string_view fingerprint) {
  int64_t checked = 0;
  // Each page is read after the previous one is written: a run checked now no longer matches,
  // so the cursor (the last run id) only moves forward.
  std::string after;
  while (true) {
    auto page = store.runs_checked_otherwise(fingerprint, after, kRecheckPage);
    if (!page) return std::unexpected(page.error());
    if (page->empty()) return checked;
    std::vector<store::RunSummary> updates;
    for (const store::StoredRun& stored : *page) {
      after = stored.summary.run_id;
      store::RunSummary summary = stored.summary;
      auto document = nlohmann::json::parse(stored.result_json, nullptr, false);
      auto result = document.is_discarded() ? Result<RunResult>(fail(ErrorCode::InvalidArgument, "not JSON"))
                                            : result_from_json(document);
      if (result) {
        // From the result, as at upload: the names the report gives, then the site's checks.
        const store::RunSummary fresh = store::summarize_run(*result);
        summary.gpu = fresh.gpu;
        summary.model = fresh.model;
        summary.quantization = fresh.quantization;
        apply_site_checks(summary, *result, document, catalog, fingerprint);
      } else {
        summary.checked_with = fingerprint;
      }
      updates.push_back(std::move(summary));
    }
    // One transaction a page: an upgrade of a large store commits 200 runs at a time.
    if (auto ok = store.update_checks(updates); !ok) return std::unexpected(ok.error());
    checked += static_cast<int64_t>(updates.size());
  }
}

}  // namespace sm::site
