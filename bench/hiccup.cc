// Machine stall meter: how often this machine stops running a thread that never sleeps.
//
// Each thread reads the monotonic clock in a tight loop for SECONDS and records every gap
// between two reads longer than 50 µs: the thread was not running (an interrupt, the guest's
// scheduler, or on a virtual machine the host taking the vCPU away).
//
// ">200us %" is the share of time a stall had already lasted 200 µs: a chunk that arrives then
// is stamped more than 200 µs late, whatever the client does. When it is above 1%, the
// self-test's lag p99 at a steady chunk rate cannot be 200 µs or less (docs/performance.md).
//
// Usage: build/bench/hiccup [SECONDS=3] [THREADS=1,2]   e.g. build/bench/hiccup 3 1,2
// THREADS=2 on a 2-vCPU machine keeps both busy, as the self-test's client and streamer do.
#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "core/clock.h"

namespace {

constexpr std::array<int64_t, 7> kEdgesUs = {50, 100, 200, 500, 1000, 2000, 5000};

struct Stalls {
  std::array<int64_t, kEdgesUs.size()> at_least{};  ///< gaps >= each edge
  int64_t longest_ns = 0;
  int64_t lost_ns = 0;  ///< sum of gaps >= 50 µs
  int64_t beyond_200us_ns = 0;  ///< sum over gaps of (gap - 200 µs) where positive
};

Stalls spin(int64_t run_ns) {
  const sm::Clock& clock = sm::SteadyClock::instance();
  Stalls s;
  int64_t prev_ns = clock.now_ns();
  const int64_t end_ns = prev_ns + run_ns;
  while (prev_ns < end_ns) {
    const int64_t t_ns = clock.now_ns();
    const int64_t gap_ns = t_ns - prev_ns;
    prev_ns = t_ns;
    if (gap_ns < kEdgesUs[0] * sm::kNsPerUs) continue;
    for (size_t i = 0; i < kEdgesUs.size(); ++i)
      if (gap_ns >= kEdgesUs[i] * sm::kNsPerUs) ++s.at_least[i];
    s.longest_ns = std::max(s.longest_ns, gap_ns);
    s.lost_ns += gap_ns;
    s.beyond_200us_ns += std::max<int64_t>(0, gap_ns - 200 * sm::kNsPerUs);
  }
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  const double seconds = argc > 1 ? std::atof(argv[1]) : 3;
  std::vector<int> thread_counts;
  std::stringstream list(argc > 2 ? argv[2] : "1,2");
  for (std::string item; std::getline(list, item, ',');) thread_counts.push_back(std::atoi(item.c_str()));
  if (seconds <= 0 || thread_counts.empty() ||
      std::any_of(thread_counts.begin(), thread_counts.end(), [](int n) { return n <= 0; })) {
    std::fprintf(stderr, "usage: hiccup [SECONDS>0] [THREADS=1,2]\n");
    return 2;
  }
  std::printf("%7s %6s", "threads", "thread");
  for (int64_t edge : kEdgesUs) std::printf(" %7s", (">=" + std::to_string(edge) + "us").c_str());
  std::printf(" %10s %7s %9s\n", "longest us", "lost %", ">200us %");
  const auto run_ns = static_cast<int64_t>(seconds * 1e9);
  for (int n : thread_counts) {
    std::vector<Stalls> results(static_cast<size_t>(n));
    std::vector<std::thread> threads;
    for (int i = 0; i < n; ++i) threads.emplace_back([&, i] { results[static_cast<size_t>(i)] = spin(run_ns); });
    for (auto& t : threads) t.join();
    for (int i = 0; i < n; ++i) {
      const Stalls& s = results[static_cast<size_t>(i)];
      std::printf("%7d %6d", n, i);
      for (int64_t c : s.at_least) std::printf(" %7lld", static_cast<long long>(c));
      std::printf(" %10.0f %7.2f %9.2f\n", static_cast<double>(s.longest_ns) / 1e3,
                  100.0 * static_cast<double>(s.lost_ns) / static_cast<double>(run_ns),
                  100.0 * static_cast<double>(s.beyond_200us_ns) / static_cast<double>(run_ns));
    }
  }
  return 0;
}
