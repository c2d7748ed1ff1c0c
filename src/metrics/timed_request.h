#pragma once
// One open-loop request of a sweep: its raw record and when the schedule said it should start.
#include <cstdint>

#include "metrics/request_record.h"

namespace sm {

/// Every latency is measured from `intended_ns`, so a client or server that falls behind cannot
/// hide the wait (no coordinated omission).
struct TimedRequest {
  RequestRecord record;
  int64_t intended_ns = 0;  ///< scheduled start on the loop's clock
};

}  // namespace sm
