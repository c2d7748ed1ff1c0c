#pragma once
// The retrieval check as a phase of a run (the check itself: bench/retrieval_check.h), after the
// matrix's passes: one unstreamed request per context owing a check, outside every window, each
// verdict saved as it comes. Settling it puts the failed contexts' warning back on their cells
// (a resumed run's cells measured again), interrupted or not.
#include "bench/phase.h"

namespace sm {

class RetrievalPhase : public Phase {
 public:
  std::string_view name() const override { return "retrieval check"; }
  bool run(PhaseContext& ctx) override;
  void settle(PhaseContext& ctx) override;
};

}  // namespace sm
