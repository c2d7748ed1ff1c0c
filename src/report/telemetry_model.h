#pragma once
// The report's telemetry content (docs/METRICS.md, "Telemetry"), worked out from a RunResult for
// build_report_model(): the All-measurements columns, the findings, the machine facts and the
// definitions. A run without telemetry gets none of it, so its report reads as before.
#include <optional>
#include <string>
#include <vector>

#include "report/report_model.h"
#include "result/result.h"

namespace sm::report {

/// True when any prefill row or decode cell carries a telemetry figure (server_running_mean and
/// server_waiting_mean included).
bool has_cell_telemetry(const RunResult& result);

/// What one row of the All-measurements table measured: a prefill row's or a decode cell's
/// telemetry, `cell` set for decode (its server_running_mean), `ran` false when it has no numbers.
struct MeasurementSource {
  const CellTelemetry* telemetry = nullptr;
  const DecodeCell* cell = nullptr;
  bool ran = false;
};

/// Appends to `table` the telemetry columns that some row has a value for (GPU power, SM clock,
/// GPU temperature, throttle, tokens per joule, host CPU, the server's figures); `sources` gives
/// each row of the table, in order. A run without telemetry gets no column.
void append_telemetry_columns(Table& table, const std::vector<MeasurementSource>& sources);

/// Findings before the per-cell ones: no GPU telemetry and why; readings of the client's machine.
std::vector<Finding> telemetry_notes(const RunResult& result);

/// Measurements whose GPU sat idle (utilisation below 5% over the window's samples): one warning
/// when every sampled measurement did (the server did not run on this GPU), else one per idle
/// row or cell (its time went elsewhere). Nothing for readings of the client's machine.
std::vector<Finding> gpu_idle_findings(const RunResult& result);

/// One warning naming every throttled row and cell, grouped by verdict; nothing when none was.
std::optional<Finding> throttle_finding(const RunResult& result);

/// "The GPU was not throttled in any measurement …" when verdicts were recorded and all were ok.
std::optional<std::string> throttle_check(const RunResult& result);

/// Adds the GPUs' power limit, maximum clocks and PCIe link (TelemetryInfo) to the Hardware group
/// (the Client group when the readings are the client's), replacing what nvidia-smi said, and
/// what was sampled to the Run group.
void add_telemetry_facts(std::vector<FactGroup>& groups, const RunResult& result);

/// The telemetry figures' definitions; empty for a run without telemetry.
std::vector<Definition> telemetry_definitions(const RunResult& result);

}  // namespace sm::report
