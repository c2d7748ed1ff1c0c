#pragma once
// The report's findings from the output checks (docs/METRICS.md, "Output checks"): the cells whose
// requests looped or wrote no text, each named with an excerpt, or the check that held.
#include <optional>
#include <string>
#include <vector>

#include "report/report_model.h"
#include "result/result.h"

namespace sm::report {

/// A warning for each measured cell flagged `loop` or `not_text` (a note on a synthetic model,
/// which loops by construction: its cells stay valid).
std::vector<Finding> output_check_findings(const RunResult& r);

/// The same for a sweep's rates (`speedmatrix sweep`).
std::vector<Finding> sweep_output_findings(const RunResult& r);
/// A sweep rate's figures stand as the model's: its output was not flagged, or the model is synthetic.
bool sweep_output_stands(const RunResult& r, const SweepPoint& p);

/// "The output of every checked request was text without loops (N requests in M cells)." when
/// some cell was checked and none was flagged; nullopt otherwise.
std::optional<std::string> output_check_passed(const RunResult& r);

}  // namespace sm::report
