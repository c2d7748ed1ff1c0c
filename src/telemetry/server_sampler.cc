#include "telemetry/server_sampler.h"

#include <algorithm>

namespace sm {

WindowLoad mean_in_window(std::span<const LoadSample> samples, int64_t begin_ns, int64_t end_ns) {
  WindowLoad out;
  double running = 0, waiting = 0;
  int64_t with_waiting = 0;
  for (const auto& s : samples) {
    if (s.sent_ns < begin_ns || s.received_ns > end_ns) continue;
    ++out.samples;
    running += static_cast<double>(s.load.running);
    if (s.load.waiting) {
      waiting += static_cast<double>(*s.load.waiting);
      ++with_waiting;
    }
  }
  if (out.samples > 0) out.running_mean = running / static_cast<double>(out.samples);
  if (with_waiting > 0) out.waiting_mean = waiting / static_cast<double>(with_waiting);
  return out;
}

int64_t sampling_interval_ns(double window_s) {
  const auto fifth = static_cast<int64_t>(window_s * 1e9 / 5);
  return std::clamp<int64_t>(fifth, 100 * kNsPerMs, kNsPerS);
}

void ServerSampler::start(int64_t interval_ns) {
  thread_.stop();
  {
    std::lock_guard lock(mu_);
    samples_.clear();
  }
  thread_.start(interval_ns, [this] { sample(); });
}

std::vector<LoadSample> ServerSampler::stop() {
  thread_.stop();
  std::lock_guard lock(mu_);
  return std::move(samples_);
}

void ServerSampler::sample() {
  const int64_t t0 = clock_.now_ns();
  auto load = read_();
  const int64_t t1 = clock_.now_ns();
  if (!load) return;  // a missed sample; the mean is over the ones that came back
  std::lock_guard lock(mu_);
  samples_.push_back({t0, t1, *load});
}

}  // namespace sm
