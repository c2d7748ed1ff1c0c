#pragma once
// CPU utilisation from /proc/stat: the aggregate `cpu` line's tick counters, and the busy share
// of all CPUs between two of them.
#include <cstdint>
#include <optional>
#include <string_view>

namespace sm {

/// The aggregate `cpu` line of /proc/stat, in clock ticks since boot.
struct CpuTicks {
  uint64_t busy = 0;   ///< user + nice + system + irq + softirq + steal
  uint64_t total = 0;  ///< busy + idle + iowait (guest and guest_nice are already in user and nice)
};

/// Reads the `cpu ` line (the sum over CPUs) of a /proc/stat text; nullopt without one, or when it
/// has fewer than the four fields every kernel writes (user nice system idle).
std::optional<CpuTicks> parse_cpu_ticks(std::string_view proc_stat);

/// CPU time of one process, user + system (all its threads), in clock ticks since it started: the
/// 14th and 15th fields of a /proc/<pid>/stat text, counted after the ")" that ends its command
/// name (which may hold spaces and parentheses). nullopt when the text is not one.
std::optional<uint64_t> parse_process_cpu_ticks(std::string_view pid_stat);

/// Busy share of all CPUs between two readings, 0-100; nullopt when no tick passed or the
/// counters went backwards (a reset, CPUs going offline).
std::optional<double> cpu_busy_pct(const CpuTicks& before, const CpuTicks& after);

}  // namespace sm
