#pragma once
// The run page's "Power, clocks and efficiency" section, rendered by the site above the run's
// report: the run's best tokens per joule and its cell, a line naming every throttled cell, and
// per cell the GPU power, energy, SM clock, hottest temperature and verdict. Says plainly when
// the readings are the client's machine (not the server's efficiency, not ranked) or when there
// is no GPU telemetry at all. Every value from the result is escaped.
#include <string>

#include "result/result.h"

namespace sm::site {

/// The section's HTML (trusted markup, values escaped).
std::string run_telemetry_panel(const RunResult& result);

}  // namespace sm::site
