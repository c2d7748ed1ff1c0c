#include "metrics/pareto.h"

#include <algorithm>
#include <map>
#include <set>

#include "metrics/output_check.h"

namespace sm {

void mark_pareto_frontier(std::vector<ParetoPoint>& points) {
  for (ParetoPoint& p : points) {
    p.frontier = std::none_of(points.begin(), points.end(), [&](const ParetoPoint& q) {
      return q.total_tok_s >= p.total_tok_s && q.per_request_tok_s >= p.per_request_tok_s &&
             (q.total_tok_s > p.total_tok_s || q.per_request_tok_s > p.per_request_tok_s);
    });
  }
}

std::vector<DecodeCell> counted_decode_cells(const RunResult& run) {
  std::set<int64_t> unread;  // a failed retrieval check: the server did not read that context back
  for (const RetrievalCheck& check : run.retrieval)
    if (retrieval_failed(check.verdict)) unread.insert(check.context);
  std::vector<DecodeCell> out;
  for (const DecodeCell& c : run.decode) {
    if (c.status != CellStatus::Valid || !c.total_tok_s || !c.per_request_tok_s || c.concurrency < 1) continue;
    if (!output_stands(run, c) || unread.contains(c.context)) continue;
    out.push_back(c);
  }
  return out;
}

std::vector<ParetoLine> pareto_lines(const RunResult& run) {
  std::map<int64_t, std::vector<ParetoPoint>> by_context;
  for (const DecodeCell& c : counted_decode_cells(run))
    by_context[c.context].push_back({c.context, c.concurrency, *c.total_tok_s, *c.per_request_tok_s, false});
  std::vector<ParetoLine> lines;
  for (auto& [context, points] : by_context) {
    std::sort(points.begin(), points.end(),
              [](const ParetoPoint& a, const ParetoPoint& b) { return a.concurrency < b.concurrency; });
    mark_pareto_frontier(points);
    lines.push_back({context, std::move(points)});
  }
  return lines;
}

std::optional<int64_t> server_gpu_count(const RunResult& run) {
  if (run.hardware.source == HardwareSource::Unknown || run.hardware.gpus.empty()) return std::nullopt;
  return static_cast<int64_t>(run.hardware.gpus.size());
}

}  // namespace sm
