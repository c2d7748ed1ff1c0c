#pragma once
// What a running simulated server has done: the scheduler's counters plus the real-time loop's.
#include <cstdint>

#include "sim/batch_scheduler.h"

namespace sm::sim {

struct SimStats {
  SchedulerStats scheduler;         ///< engine counters and gauges
  int64_t late_steps = 0;           ///< steps whose tokens went out > 1 ms after their due time
  double lag_s = 0;                 ///< sum of those steps' lateness, seconds
  int64_t clock_resyncs = 0;        ///< times the step clock fell > max_lag_s behind and restarted
                                    ///< from now (the lost time is not made up)
  double step_cpu_s = 0;            ///< CPU time of the I/O thread composing and completing steps,
                                    ///< chunk formatting and socket writes included
  int64_t connections_accepted = 0; ///< TCP connections accepted since start
  int32_t connections_open = 0;     ///< TCP connections open now
  int64_t http_requests = 0;        ///< HTTP requests read (every route)
};

}  // namespace sm::sim
