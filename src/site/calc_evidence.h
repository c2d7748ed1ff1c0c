#pragma once
// The evidence beside a prediction (/calc and POST /api/v1/calc): the measured runs in the
// store of the same GPU (and count), model and engine, and the calibration corpus rows
// (data/measurements/) of that setup, each with what the calculator predicts for it.
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "calc/catalog.h"
#include "calc/corpus.h"
#include "core/error.h"
#include "result/result.h"
#include "site/calc_input.h"
#include "store/result_store.h"

namespace sm::site {

/// A source of the corpus (data/measurements/sources.csv).
struct CorpusSource {
  std::string url, title, date;
};

struct CalcEvidence {
  std::optional<store::SetupKey> key;    ///< the setup asked for; nullopt when a name is not in the catalog
  std::vector<store::RunSummary> runs;   ///< measured runs of it, newest first (at most kMaxEvidenceRuns)
  std::vector<const calc::CorpusCase*> corpus;  ///< usable corpus rows of it
};

constexpr int64_t kMaxEvidenceRuns = 20;

/// Reads sources.csv into source id → source; rows it cannot read are skipped.
std::vector<std::pair<std::string, CorpusSource>> parse_corpus_sources(std::string_view csv);

/// The evidence for `input` (the calculator's names resolved in `catalog`).
Result<CalcEvidence> find_evidence(store::ResultStore& store, const std::vector<calc::CorpusCase>& corpus,
                                   const calc::Catalog& catalog, const CalcInput& input);

/// The "Evidence" section of the calculator page: both tables, each measured figure beside the
/// prediction (`prediction`'s cell for a run, the model's figure for a corpus row) and their ratio.
std::string evidence_html(const CalcEvidence& evidence, const RunResult& prediction,
                          const std::vector<std::pair<std::string, CorpusSource>>& sources);

/// The same for the API: {"runs": [...], "corpus": [...]}.
nlohmann::json evidence_json(const CalcEvidence& evidence, const RunResult& prediction,
                             const std::vector<std::pair<std::string, CorpusSource>>& sources);

}  // namespace sm::site
