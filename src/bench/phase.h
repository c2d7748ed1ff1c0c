#pragma once
// A phase of a run: one stage the runner (bench/runner.cc) drives, in order, over the same
// PhaseContext — the matrix's passes (prefill rows and decode cells), the retrieval check, the SLO
// search. A new workload or check is a new phase, in a file of its own, added to the runner's
// list; not more branches in the runner.
#include <cstdint>
#include <string_view>

#include "bench/phase_context.h"

namespace sm {

/// What a phase will measure this session, for the progress line's count and ETA.
struct PhaseUnits {
  int64_t total = 0;   ///< rows, cells and probes
  int64_t decode = 0;  ///< of which decode windows (cells and SLO probes)
};

class Phase {
 public:
  virtual ~Phase() = default;
  /// "matrix", "retrieval check", ...
  virtual std::string_view name() const = 0;
  /// What it owes the run now (before any phase runs).
  virtual PhaseUnits units_owed(const PhaseContext&) const { return {}; }
  /// Measures what the run still owes it, saving the result as it goes. Returns true when
  /// interrupted (the later phases then do not run).
  virtual bool run(PhaseContext& ctx) = 0;
  /// Called after run() — and in its place once an earlier phase was interrupted — before the
  /// next phase: bookkeeping that must hold whatever happened (a resumed run's cells get back a
  /// warning).
  virtual void settle(PhaseContext&) {}
};

}  // namespace sm
