#include "bench/repeat_passes.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

namespace sm {

double lower_median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  return values[(values.size() - 1) / 2];
}

namespace {
double figure(const PrefillRow& r) { return r.prompt_tok_s.value_or(0); }
double figure(const DecodeCell& c) { return c.total_tok_s.value_or(0); }
std::vector<double>& passes_of(PrefillRow& r) { return r.repeat_prompt_tok_s; }
std::vector<double>& passes_of(DecodeCell& c) { return c.repeat_tok_s; }

template <typename Record>
void fold_pass(int64_t passes, Record& kept, Record fresh, std::vector<Record>& session) {
  const bool first = kept.status != CellStatus::Valid;
  if (first) {
    if (fresh.status == CellStatus::Valid) {
      if (passes > 1) passes_of(fresh) = {figure(fresh)};
      session.push_back(fresh);
    }
    kept = std::move(fresh);
    return;
  }
  std::vector<double> figures = passes_of(kept);
  if (figures.empty()) figures.push_back(figure(kept));
  if (fresh.status == CellStatus::Interrupted || fresh.status == CellStatus::Pending) return;
  if (fresh.status != CellStatus::Valid) {
    kept.status = fresh.status;
    kept.error = fmt::format("pass {} of {}: {}", figures.size() + 1, passes, fresh.error);
    passes_of(kept) = figures;
    return;
  }
  figures.push_back(figure(fresh));
  session.push_back(std::move(fresh));
  const double median = lower_median(figures);
  const Record* best = &kept;
  for (const Record& r : session)
    if (std::abs(figure(r) - median) < std::abs(figure(*best) - median)) best = &r;
  if (best != &kept) kept = *best;
  passes_of(kept) = std::move(figures);
  kept.status = CellStatus::Valid;
}
}  // namespace

void RepeatPasses::fold(PrefillRow& kept, PrefillRow fresh) {
  fold_pass(passes_, kept, std::move(fresh), rows_[kept.context]);
}

void RepeatPasses::fold(DecodeCell& kept, DecodeCell fresh) {
  fold_pass(passes_, kept, std::move(fresh), cells_[{kept.context, kept.concurrency}]);
}

}  // namespace sm
