#include "result/result.h"

namespace sm {

const SloPoint* slo_answer_point(const SloSearch& search) {
  const SloPoint* found = nullptr;
  for (const auto& p : search.points)
    if (p.concurrency == search.concurrency && p.judgement && p.judgement->meets) found = &p;
  return found;
}

}  // namespace sm
