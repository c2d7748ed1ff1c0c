#pragma once
// run --repeat N: each row and cell is measured once per pass over the matrix. Every pass's
// figure is kept (repeat_prompt_tok_s, repeat_tok_s), so the spread between passes — the noise a
// window's own interval cannot see — is in the record; the row's or cell's other figures are
// those of its median pass (docs/METRICS.md, "Repeated runs").
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "result/result.h"

namespace sm {

class RepeatPasses {
 public:
  explicit RepeatPasses(int64_t passes) : passes_(passes) {}

  /// Folds one pass's measurement `fresh` into `kept`, the result's record of that row or cell.
  /// The first pass becomes the record; a later valid pass adds its figure and the record takes
  /// the figures of the pass nearest the passes' median (the lower one of an even count), among
  /// the passes this session measured and the record itself (a resumed run's earlier passes are
  /// known by their figures only). A later pass in error makes the record an error (its passes
  /// stay listed); an interrupted one leaves the record as it was.
  void fold(PrefillRow& kept, PrefillRow fresh);
  void fold(DecodeCell& kept, DecodeCell fresh);

 private:
  int64_t passes_;
  std::map<int64_t, std::vector<PrefillRow>> rows_;                     ///< this session's valid passes
  std::map<std::pair<int64_t, int64_t>, std::vector<DecodeCell>> cells_;
};

/// The lower median of the figures (the middle one of an odd count); 0 when empty.
double lower_median(std::vector<double> values);

}  // namespace sm
