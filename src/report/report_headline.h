#pragma once
// The headline figures a reader wants first: best total decode rate, single-stream rate, prefill
// at the smallest context, KV capacity. The HTML report shows them in a strip above the fold.
#include <string>
#include <vector>

#include "result/result.h"

namespace sm::report {

struct HeadlineFigure {
  std::string label;   ///< "Best total decode"
  std::string value;   ///< "1,081.0 tok/s"
  std::string detail;  ///< "16K context × 64 requests"
};

/// The figures `result` has (a figure with nothing measured is left out).
std::vector<HeadlineFigure> headline_figures(const RunResult& result);

}  // namespace sm::report
