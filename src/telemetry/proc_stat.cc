#include "telemetry/proc_stat.h"

#include <algorithm>
#include <charconv>

namespace sm {

std::optional<CpuTicks> parse_cpu_ticks(std::string_view text) {
  // The aggregate line comes first on every kernel; look for it at any line start anyway.
  size_t pos = 0;
  while (pos < text.size() && !text.substr(pos).starts_with("cpu ")) {
    size_t eol = text.find('\n', pos);
    if (eol == std::string_view::npos) return std::nullopt;
    pos = eol + 1;
  }
  if (pos >= text.size()) return std::nullopt;
  std::string_view line = text.substr(pos + 4);
  line = line.substr(0, line.find('\n'));

  // user nice system idle iowait irq softirq steal [guest guest_nice]: older kernels stop early.
  uint64_t field[8] = {};
  int n = 0;
  const char* p = line.data();
  const char* end = line.data() + line.size();
  while (n < 8) {
    while (p < end && *p == ' ') ++p;
    if (p == end) break;
    auto [next, ec] = std::from_chars(p, end, field[n]);
    if (ec != std::errc() || (next != end && *next != ' ')) return std::nullopt;
    p = next;
    ++n;
  }
  if (n < 4) return std::nullopt;
  const uint64_t idle = field[3] + field[4];
  CpuTicks t;
  t.busy = field[0] + field[1] + field[2] + field[5] + field[6] + field[7];
  t.total = t.busy + idle;
  return t;
}

std::optional<uint64_t> parse_process_cpu_ticks(std::string_view text) {
  const size_t close = text.rfind(')');
  if (close == std::string_view::npos) return std::nullopt;
  const char* p = text.data() + close + 1;
  const char* end = text.data() + text.size();
  // Fields 3.. after the name: state ppid pgrp session tty_nr tpgid flags minflt cminflt majflt
  // cmajflt utime stime: utime is the 12th token, stime the 13th.
  uint64_t utime = 0, stime = 0;
  for (int token = 1; token <= 13; ++token) {
    while (p < end && *p == ' ') ++p;
    if (p == end) return std::nullopt;
    const char* start = p;
    while (p < end && *p != ' ' && *p != '\n') ++p;
    if (token == 12 || token == 13) {
      uint64_t v = 0;
      auto [next, ec] = std::from_chars(start, p, v);
      if (ec != std::errc() || next != p) return std::nullopt;
      (token == 12 ? utime : stime) = v;
    }
  }
  return utime + stime;
}

std::optional<double> cpu_busy_pct(const CpuTicks& before, const CpuTicks& after) {
  if (after.total <= before.total || after.busy < before.busy) return std::nullopt;
  const double total = static_cast<double>(after.total - before.total);
  const double busy = static_cast<double>(after.busy - before.busy);
  return std::clamp(100.0 * busy / total, 0.0, 100.0);
}

}  // namespace sm
