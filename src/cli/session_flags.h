#pragma once
// The sessions workload's flags (docs/METRICS.md, "Sessions"; docs/sessions.md): --sessions SxT,
// --session-lengths first=...,user=...,answer=..., --trace FILE, --trace-speed X. A trace is read
// and checked when the flags are read, before anything is contacted.
#include <CLI/CLI.hpp>

#include <optional>
#include <string>
#include <vector>

#include "bench/run_config.h"
#include "core/error.h"

namespace sm::cli {

struct SessionFlags {
  std::string sessions;   ///< --sessions 4x6
  std::string lengths;    ///< --session-lengths first=1K,user=256,answer=128
  std::string trace;      ///< --trace FILE
  double trace_speed = 1; ///< --trace-speed
};

void add_session_flags(CLI::App* cmd, SessionFlags& flags);

/// The workload the flags ask for (nullopt: none); an error naming the flag. `given`: the flags on
/// the command line.
Result<std::optional<SessionsSpec>> session_spec_from_flags(const SessionFlags& flags,
                                                            const std::vector<std::string>& given);

}  // namespace sm::cli
