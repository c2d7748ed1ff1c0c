#include "bench/idle_barrier.h"

#include <algorithm>
#include <fmt/format.h>

namespace sm {

std::string format_wait_s(int64_t ns) { return fmt::format("{:g} s", static_cast<double>(ns) / 1e9); }

IdleWait wait_until_idle(const LoadReadFn& read, const Clock& clock, const SleepFn& sleep,
                         const IdleBarrierOptions& options, const std::function<bool()>& interrupted) {
  IdleWait out;
  const int64_t start_ns = clock.now_ns();
  int failed_in_a_row = 0;
  std::string last_error;
  int64_t interval_ns = std::min(options.first_poll_interval_ns, options.poll_interval_ns);
  while (true) {
    if (interrupted && interrupted()) {
      out.interrupted = true;
      break;
    }
    auto load = read();
    ++out.polls;
    if (load) {
      failed_in_a_row = 0;
      out.last = *load;
      if (load->idle()) {
        out.idle = true;
        break;
      }
    } else {
      last_error = load.error().message;
      if (++failed_in_a_row >= options.max_failed_reads) {
        out.reason = fmt::format("cannot tell whether the server is idle: {} reads of its load failed; last: {}",
                                 failed_in_a_row, last_error);
        break;
      }
    }
    const int64_t elapsed_ns = clock.now_ns() - start_ns;
    if (elapsed_ns >= options.timeout_ns) {
      if (out.last) {
        out.reason = out.last->waiting
                         ? fmt::format("server still busy: {} running, {} waiting after {}", out.last->running,
                                       *out.last->waiting, format_wait_s(options.timeout_ns))
                         : fmt::format("server still busy: {} running after {}", out.last->running,
                                       format_wait_s(options.timeout_ns));
        if (failed_in_a_row > 0) out.reason += " (the last read failed: " + last_error + ")";
      } else {
        out.reason = fmt::format("cannot tell whether the server is idle after {}: {}",
                                 format_wait_s(options.timeout_ns), last_error);
      }
      break;
    }
    // A failed read waits the full interval: a server slow to answer is not asked faster.
    const int64_t wait_ns = failed_in_a_row > 0 ? options.poll_interval_ns : interval_ns;
    sleep(std::min(wait_ns, options.timeout_ns - elapsed_ns));
    interval_ns = std::min(interval_ns * 2, options.poll_interval_ns);
  }
  out.waited_ns = clock.now_ns() - start_ns;
  return out;
}

}  // namespace sm
