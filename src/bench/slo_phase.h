#pragma once
// `run --slo`'s search as a phase of a run (the search itself: bench/slo_search.h), after the
// retrieval check: each probe is a decode cell measured as the matrix measures one
// (bench/decode_cell.h: idle barrier, warm prompt, window), judged against the SLO and kept out of
// the matrix; each context's answer saved as it ends.
#include "bench/phase.h"

namespace sm {

class SloPhase : public Phase {
 public:
  std::string_view name() const override { return "SLO search"; }
  /// At most its probe limit per context owing a search (fewer when the matrix brackets it).
  PhaseUnits units_owed(const PhaseContext& ctx) const override;
  bool run(PhaseContext& ctx) override;
};

}  // namespace sm
