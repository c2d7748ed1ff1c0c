#pragma once
// `speedmatrix sweep`: a request-rate sweep against a server (or the embedded simulated engine),
// written to a run folder like `run` (result.json with a `sweep` section, rewritten after every
// rate; report.html, report.md, measurements.csv at the end).
#include <cstdint>
#include <optional>
#include <string>

#include "bench/run_config.h"
#include "bench/sweep.h"
#include "metrics/rate_metrics.h"
#include "workload/arrivals.h"

namespace sm {

struct SweepConfig {
  TargetConfig target;
  bool embedded_sim = false;            ///< no --url: the built-in simulated engine, in-process
  ArrivalProcess arrivals = ArrivalProcess::Poisson;
  LengthDistribution input_len{1024, 0};
  LengthDistribution output_len{128, 0};
  RatePlan plan;                        ///< --rates (empty rates = auto) and the auto search's bounds
  std::string rates_text = "auto";      ///< --rates as given
  double duration_s = 30;               ///< arrival window per rate ...
  std::optional<int64_t> requests_per_rate;  ///< ... or this many arrivals per rate (window = N ÷ rate)
  SloTargets slo;  ///< --slo-ttft, --slo-tpot; percentile: the share of requests a rate needs within them
  double drain_timeout_s = 120;         ///< after a rate's last arrival, longest wait for its answers
  double temperature = 0;
  uint64_t seed = 0;                    ///< arrivals, lengths and prompt text (0: from the run id)
  PromptSource prompts;                 ///< --prompts, --dataset: what the prompt text is cut from
  std::string out_dir;                  ///< run folder; empty = runs/<timestamp>-<model>
  bool quiet = false;                   ///< no line per rate on stderr
  bool json_output = false;             ///< print result.json instead of the table
  bool redact_host = false;
};

/// Runs the sweep; returns the process exit code (0 ok, 1 failure, 130 interrupted: finished rates kept).
int run_sweep_command(const SweepConfig& config);

}  // namespace sm
