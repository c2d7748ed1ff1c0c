#pragma once
// The parts of a report's model, one file per section (report_model.cc puts them together):
// report_facts.cc (names and the Hardware / Engine / Run cards), report_matrices.cc (the decode
// matrices, the prefill lines and the all-measurements table), report_findings.cc (warnings and
// checks), report_definitions.cc (definitions, token counts, footer). Internal to src/report.
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "report/report_model.h"

namespace sm::report::section {

// report_model.cc: shared by the sections
std::string kind_display(const std::string& kind);
std::vector<int64_t> sorted_unique(std::vector<int64_t> v);
std::vector<int64_t> matrix_contexts(const RunResult& r);
std::vector<int64_t> matrix_concurrency(const RunResult& r);
std::vector<int64_t> prefill_contexts(const RunResult& r);
std::string join(const std::vector<std::string>& parts, std::string_view sep);
std::string range_text(const std::vector<int64_t>& v, bool tokens);
std::string matrix_line(const RunResult& r);
std::string ms_or_dash(const std::optional<double>& ms);  ///< "120 ms", or "–" when unknown

// report_facts.cc
std::string model_display_name(const EngineInfo& engine);
void add(std::vector<Fact>& facts, std::string label, std::string value);
FactGroup hardware_facts(const HardwareInfo& hw);
FactGroup client_facts(const HardwareInfo& hw);
FactGroup engine_facts(const EngineInfo& e);
FactGroup run_facts(const RunResult& r);

// report_matrices.cc
enum class MatrixKind { Total, PerRequest, Efficiency };
std::string cell_note(const DecodeCell& c);
Matrix build_matrix(const RunResult& r, MatrixKind kind);
std::vector<PrefillLine> prefill_lines(const RunResult& r);
Table measurements_table(const RunResult& r);

// report_findings.cc
std::set<CellStatus> statuses(const RunResult& r);
bool ran_any(const RunResult& r);
std::vector<Finding> findings(const RunResult& r);
std::vector<std::string> checks_passed(const RunResult& r);

// report_retrieval.cc
Table retrieval_table(const RunResult& r);
std::string retrieval_caption(const RunResult& r);
void add_retrieval_findings(const RunResult& r, std::vector<Finding>& out);
std::optional<std::string> retrieval_check_passed(const RunResult& r);

// report_slo.cc
Table slo_table(const RunResult& r);
std::string slo_caption(const RunResult& r);
void add_slo_findings(const RunResult& r, std::vector<Finding>& out);

// report_mixed_prefill.cc
Table mixed_prefill_table(const RunResult& r);
std::string mixed_prefill_caption(const RunResult& r);
void add_mixed_prefill_findings(const RunResult& r, std::vector<Finding>& out);

// report_sessions.cc
Table sessions_table(const RunResult& r);  ///< a row per turn number; no rows without --sessions / --trace
std::string sessions_caption(const RunResult& r);
void add_sessions_findings(const RunResult& r, std::vector<Finding>& out);

// report_speculation.cc
Table speculation_table(const RunResult& r);  ///< no rows where the server did not speculate
std::string speculation_caption(const RunResult& r);
void add_speculation_findings(const RunResult& r, std::vector<Finding>& out);

// report_reasoning.cc
Table reasoning_table(const RunResult& r);  ///< no rows where no request streamed reasoning
std::string reasoning_caption(const RunResult& r);

// report_answer_lengths.cc
Table answer_lengths_table(const RunResult& r);  ///< no rows without --natural-eos
std::string answer_lengths_caption(const RunResult& r);

// report_definitions.cc
std::string token_count_text(const RunResult& r);
std::vector<Definition> definitions(const RunResult& r);
std::string footer(const RunResult& r);

}  // namespace sm::report::section
