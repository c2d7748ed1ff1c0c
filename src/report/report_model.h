#pragma once
// The seed page's content, worked out once from a RunResult: titles, facts, the prefill lines,
// the decode matrices, the All-measurements table, notes, warnings and definitions, every value
// already formatted. Each printer (terminal, HTML, Markdown) only lays this out, so a number is
// formatted in exactly one place. The CSV printer reads RunResult directly (raw numbers).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "result/cell_status.h"
#include "report/report_headline.h"
#include "result/result.h"

namespace sm::report {

/// One labelled fact of the Hardware, Engine or Run section.
struct Fact {
  std::string label;  ///< e.g. "GPU"
  std::string value;  ///< e.g. "RTX 3090"
};

/// A section of facts.
struct FactGroup {
  std::string id;           ///< HTML id and anchor: "hardware", "engine", "run"
  std::string title;        ///< "Hardware", "Engine", "Run"
  std::vector<Fact> facts;  ///< in the seed page's order, then the extras speedmatrix records
};

enum class Align { Left, Right };

/// One row of a table; `status` lets printers dim rows that did not run.
struct TableRow {
  std::vector<std::string> cells;         ///< formatted, one per header column
  CellStatus status = CellStatus::Valid;  ///< the row's or cell's status
};

/// A table of formatted text.
struct Table {
  std::vector<std::string> header;  ///< column titles
  std::vector<Align> align;         ///< one per column
  std::vector<TableRow> rows;
};

/// One line of the seed's Prefill section: "8K context  10.6K  773 ms TTFT".
struct PrefillLine {
  int64_t context = 0;                    ///< prompt tokens
  CellStatus status = CellStatus::Valid;
  std::string context_text;               ///< "8K context"
  std::string rate;                       ///< "10.6K", or the status label when there is no number
  std::string ttft;                       ///< "773 ms TTFT"; empty when there is no number
  std::optional<double> rate_tok_s;       ///< the number behind `rate`
  std::optional<double> ttft_ms;          ///< the number behind `ttft`
  std::string note;                       ///< error reason
};

/// One cell of a matrix (rows context, columns concurrency).
struct MatrixCell {
  bool present = false;                     ///< the result has this cell
  CellStatus status = CellStatus::Pending;  ///< meaningful when present
  std::string value;                        ///< "181.7"; the status label when not run; kDash when absent
  std::string detail;                       ///< "24 ms"; empty when there is no number (see Matrix::detail_text)
  std::optional<double> value_num;          ///< the number behind `value`
  std::optional<double> heat;               ///< 0..1, log position between the matrix's smallest and largest value
  bool noisy = false;                       ///< `value` carries its ± (report/cell_noise.h: wider than 2%)
  std::string note;                         ///< error reason and cell warnings (tooltips)
};

/// A decode matrix, as the seed's Sustained decode heatmap.
struct Matrix {
  std::string title;                           ///< "Sustained decode"
  std::string caption;                         ///< "total tok/s · rows are context length, ..."
  std::string detail_label;                    ///< suffix of each cell's detail: "TTFT", "/token"; empty: none
  std::string detail_name;                     ///< the detail named in a caption: "TTFT", "time between tokens"
  std::vector<int64_t> contexts;               ///< rows, ascending
  std::vector<int64_t> concurrency;            ///< columns, ascending
  std::vector<std::string> column_labels;      ///< the columns' headings when they are not concurrencies
                                               ///< (the capacity table's "20 tok/s"); empty: the numbers
  std::vector<std::vector<MatrixCell>> cells;  ///< [row][column]
  /// Total matrix: each row's cold TTFT, from the prefill row of the same context (kDash when the
  /// run has none); empty for the other matrices. The terminal shows it beside the warm TTFTs.
  std::vector<std::string> cold_ttft;
};

enum class Severity { Info, Warning, Error };

/// Something a reader must know before trusting a number.
struct Finding {
  Severity severity = Severity::Warning;
  std::string text;  ///< one sentence, naming the row or cell
};

/// A metric and what it means.
struct Definition {
  std::string term;     ///< "TTFT"
  std::string meaning;  ///< one or two sentences
};

/// Everything a report shows.
struct ReportModel {
  std::string model_name;       ///< "Qwen3.5-4B-AWQ-4bit" (weights name, else served id)
  std::string hardware_name;    ///< "RTX 3090 24GB"
  std::string title;            ///< "Qwen3.5-4B-AWQ-4bit on RTX 3090 24GB"
  std::string engine_line;      ///< "vllm · 0.32.0 · AWQ 4-bit"
  std::string matrix_line;      ///< "6 contexts (0–248K) × 8 concurrency levels (1–128) · prefill at 8K, …"
  std::string by_line;          ///< "by @Sandberg"; empty when nobody is named
  std::string tool_line;        ///< "speedmatrix v0.1.0"
  std::string kind_label;       ///< "Measured", "Simulated" or "Predicted"
  std::vector<HeadlineFigure> headline;  ///< the figures a reader wants first (report_headline.h)
  std::vector<FactGroup> facts; ///< Hardware, Engine, Run
  std::string launch_command;   ///< verbatim; empty when unknown
  std::string notes;            ///< the run's free-text notes
  std::vector<PrefillLine> prefill;
  Matrix decode_total;          ///< total tok/s with TTFT under it (the seed's heatmap)
  Matrix decode_per_request;    ///< per-request tok/s with time between tokens under it
  Matrix capacity;              ///< users at each speed floor, the box's total under it (report_capacity.h)
  Matrix energy;                ///< joules per output token, cost under it (report_energy.h); empty: no energy
  Matrix capacity_cost;         ///< cost per million output tokens at each speed floor; empty: no prices
  Matrix decode_efficiency;     ///< tokens per joule with GPU power under it (valid cells); no cells when
                                ///< no cell has the figure, and then printers leave it out
  std::vector<std::string> decode_notes;       ///< under the matrix: over capacity, TTFT, ...
  Table measurements;                          ///< All measurements, the seed's columns
  std::string measurements_caption;            ///< above that table: "Latencies are medians. ..."
  std::vector<std::string> measurement_notes;  ///< below that table: what its statuses mean
  std::vector<Finding> findings;               ///< warnings; empty when every check passed
  std::vector<std::string> checks_passed;      ///< what was checked and held (shown when no findings)
  Table retrieval;                             ///< the long-context retrieval check by context; no rows when
                                               ///< none ran (printers then leave the section out)
  std::string retrieval_caption;               ///< above that table: what was asked and how it is scored
  Table slo;                                   ///< run --slo: each context's SLO search; no rows without one
  std::string slo_caption;                     ///< above that table: the targets and how the search works
  Table mixed_prefill;                         ///< run --mixed-prefill: a row per long prompt; no rows without
  Table speculation;                           ///< decode cells where the server speculated; no rows otherwise
  std::string speculation_caption;             ///< above that table
  Table reasoning;                             ///< decode cells where the server streamed reasoning apart
  std::string reasoning_caption;               ///< above that table
  Table answer_lengths;                        ///< run --natural-eos: each decode cell's answer lengths
  std::string answer_lengths_caption;          ///< above that table
  std::string mixed_prefill_caption;           ///< above that table: what was measured
  Table sessions;                              ///< run --sessions / --trace: a row per turn number
  std::string sessions_caption;                ///< above that table: what ran and the whole's figures
  std::vector<Definition> definitions;
  std::string token_counts;     ///< where the output token counts came from
  std::string footer;           ///< tool, commit, build, run id, times
};

/// The heading of column `j`: its label, else its concurrency.
std::string column_heading(const Matrix& matrix, size_t j);

/// A cell's detail with its label, as the page shows it: "24 ms TTFT", "5.5 ms/token".
std::string detail_text(const Matrix& matrix, const MatrixCell& cell);

/// How reports, and the results site's hardware column, name a machine whose hardware is not
/// known (hardware.source "unknown"); the site keeps such runs out of hardware rankings.
inline constexpr std::string_view kUnknownHardwareName = "unknown hardware";

/// "RTX 3090 24GB", "2× H100 80GB HBM3", a CPU, or kUnknownHardwareName.
std::string hardware_display_name(const HardwareInfo& hardware);

/// The run's "Time per measurement": "30 s", or with adaptive windows (--precision) "adaptive:
/// 10 s to 30 s, closed within ±2% (a settled cell's rate is projected to 30 s)". The report's
/// run facts and compare's setting differences both say it this way.
std::string measurement_time_text(const RunSettings& settings);

/// The run's "Prompts": "Random common words", or the corpus they were cut from with its hash's
/// start ("Natural text: News from Nowhere (William Morris, 1890), public domain · sha256 1a2b3c4d5e6f"),
/// and "; answers ended by the model" with --natural-eos. The report's run facts and compare's
/// setting differences both say it this way.
std::string prompt_source_text(const RunSettings& settings);

/// Works out the report of one run.
ReportModel build_report_model(const RunResult& result);

/// What a status means, as the note under a matrix or table says it (empty for Valid).
std::string status_note(CellStatus status);

/// "16K × 8" — how findings and compare name a decode cell.
std::string cell_name(int64_t context, int64_t concurrency);

}  // namespace sm::report
