#include "bench/run_outcome.h"

#include <fmt/format.h>

#include "bench/run_config.h"

namespace sm {

namespace {
struct Tally {
  int64_t planned = 0;  ///< rows and cells in the plan
  int64_t valid = 0;
  int64_t failed = 0;   ///< error, pending or interrupted
  int64_t beyond = 0;   ///< beyond the model
  int64_t over = 0;     ///< over capacity
  std::string first_error;
};

Tally tally(const RunResult& r) {
  Tally t;
  auto add = [&](CellStatus s, const std::string& error) {
    ++t.planned;
    switch (s) {
      case CellStatus::Valid: ++t.valid; break;
      case CellStatus::BeyondModel: ++t.beyond; break;
      case CellStatus::OverCapacity: ++t.over; break;
      case CellStatus::Error:
      case CellStatus::Pending:
      case CellStatus::Interrupted:
        ++t.failed;
        if (t.first_error.empty() && !error.empty()) t.first_error = error;
        break;
    }
  };
  for (const auto& row : r.prefill) add(row.status, row.error);
  for (const auto& cell : r.decode) add(cell.status, cell.error);
  // The workloads after the matrix count like rows: a run of sessions alone measured something.
  for (const auto& row : r.mixed_prefill) add(row.status, row.error);
  if (r.sessions) add(r.sessions->status, r.sessions->error);
  return t;
}
}  // namespace

int exit_code_for(const RunResult& result) {
  const Tally t = tally(result);
  if (t.valid == 0) return kExitNothingMeasured;
  if (t.failed > 0) return kExitCellErrors;
  return kExitOk;
}

std::string outcome_line(const RunResult& result) {
  const Tally t = tally(result);
  if (t.valid == 0) {
    if (t.planned == 0) return "nothing was measured: the plan has no row or cell that fits this server";
    if (t.failed == 0)
      return fmt::format("nothing was measured: all {} rows and cells are beyond the model or over capacity "
                         "(--dry-run --url shows the plan against the server)",
                         t.planned);
    return fmt::format("nothing was measured: {} of {} rows and cells ended in error{}", t.failed, t.planned,
                       t.first_error.empty() ? "" : " (first: " + t.first_error + ")");
  }
  if (t.failed > 0)
    return fmt::format("{} of {} rows and cells ended in error{}; `speedmatrix run --resume <run folder> --retry-failed` measures them again",
                       t.failed, t.planned, t.first_error.empty() ? "" : " (first: " + t.first_error + ")");
  return {};
}

}  // namespace sm
