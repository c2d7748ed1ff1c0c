#include "telemetry/window_summary.h"

#include <gtest/gtest.h>

namespace sm {
namespace {

constexpr int64_t kS = 1'000'000'000;
constexpr int64_t kHalf = kS / 2;

// Two GPUs sampled every 0.5 s from t = 0 to 20 s; power of each as a function of time (W),
// energy counter its exact integral (J) unless `counter` is false.
TelemetrySeries two_gpus(double (*power_w)(double t_s), bool counter = true, uint64_t bits = 0,
                         double clock_mhz = 1800, double util_pct = 95) {
  TelemetrySeries s;
  s.interval_s = 0.5;
  double energy_j = 1000;  // a counter that started before the run
  double prev_t = 0;
  for (int64_t t = 0; t <= 20 * kS; t += kHalf) {
    const double t_s = static_cast<double>(t) / kS;
    if (t > 0) energy_j += 0.5 * (power_w(prev_t) + power_w(t_s)) * (t_s - prev_t);  // exact for linear power
    prev_t = t_s;
    GpuSample sample{t, {}};
    for (int i = 0; i < 2; ++i) {
      GpuReading g;
      g.index = i;
      g.power_w = power_w(t_s);
      if (counter) g.energy_j = energy_j;
      g.sm_clock_mhz = clock_mhz;
      g.temp_c = 60 + t_s + i;
      g.util_pct = util_pct;
      g.clocks_event_reasons = bits;
      sample.gpus.push_back(g);
    }
    s.gpu.push_back(sample);
  }
  return s;
}

double constant_300(double) { return 300; }
double ramp_200_to_400(double t_s) { return 200 + 10 * t_s; }

TEST(WindowSummary, ConstantPowerGivesPowerEnergyAndTokensPerJoule) {
  TelemetrySeries s = two_gpus(constant_300);
  CellTelemetry t = summarize_window(s, 2 * kS, 12 * kS, 30'000, {});
  ASSERT_TRUE(t.gpu_power_w);
  EXPECT_NEAR(*t.gpu_power_w, 600, 1e-6);      // summed over the two GPUs
  EXPECT_NEAR(*t.gpu_energy_j, 6000, 1e-6);    // 600 W x 10 s
  EXPECT_NEAR(*t.tokens_per_joule, 5.0, 1e-9); // 30,000 tokens / 6,000 J
  EXPECT_NEAR(*t.gpu_sm_clock_mhz, 1800, 1e-9);
  EXPECT_NEAR(*t.gpu_temp_max_c, 60 + 12 + 1, 1e-9);  // the hotter GPU at the window's last sample
  EXPECT_EQ(t.throttle, "ok");
}

// Utilisation is the mean of the samples inside the window, and only where there are two: a
// shorter window's neighbours describe what ran before or after it.
TEST(WindowSummary, UtilisationComesFromTheSamplesInsideTheWindow) {
  TelemetrySeries s = two_gpus(constant_300, true, 0, 345, 0);
  for (auto& sample : s.gpu)
    if (sample.t_ns >= 10 * kS)
      for (auto& g : sample.gpus) g.util_pct = g.index == 0 ? 80 : 60;  // busy from 10 s: 70% on average
  CellTelemetry idle = summarize_window(s, 2 * kS, 6 * kS, 1000, {});
  ASSERT_TRUE(idle.gpu_util_pct);
  EXPECT_NEAR(*idle.gpu_util_pct, 0, 1e-9);
  CellTelemetry busy = summarize_window(s, 12 * kS, 15 * kS, 1000, {});
  ASSERT_TRUE(busy.gpu_util_pct);
  EXPECT_NEAR(*busy.gpu_util_pct, 70, 1e-9);
  // 9.6 s to 10.4 s holds one sample (10.0 s): no figure, though the neighbours read 0 and 70%.
  EXPECT_FALSE(summarize_window(s, 9 * kS + 6 * kS / 10, 10 * kS + 4 * kS / 10, 1000, {}).gpu_util_pct);
  // Between samples altogether: none either.
  EXPECT_FALSE(summarize_window(s, 3 * kS + kS / 10, 3 * kS + 3 * kS / 10, 1000, {}).gpu_util_pct);
}

TEST(WindowSummary, EnergyFromTheCounterAndFromPowerAgreeOnARamp) {
  // A window whose edges fall between samples: the counter is interpolated, the power integrated.
  const int64_t b = 3 * kS + kHalf / 3, e = 9 * kS + kHalf / 7;
  const double b_s = static_cast<double>(b) / kS, e_s = static_cast<double>(e) / kS;
  const double exact_j = 2 * ((200 * (e_s - b_s)) + 5 * (e_s * e_s - b_s * b_s));
  CellTelemetry with_counter = summarize_window(two_gpus(ramp_200_to_400, true), b, e, 1000, {});
  CellTelemetry from_power = summarize_window(two_gpus(ramp_200_to_400, false), b, e, 1000, {});
  EXPECT_NEAR(*with_counter.gpu_energy_j, exact_j, exact_j * 1e-3);
  EXPECT_NEAR(*from_power.gpu_energy_j, exact_j, exact_j * 1e-9);
  EXPECT_NEAR(*from_power.gpu_power_w, exact_j / (e_s - b_s), 1e-6);
}

TEST(WindowSummary, AWindowBetweenTwoSamplesStillGetsAnEstimate) {
  CellTelemetry t = summarize_window(two_gpus(constant_300), 5 * kS + 100'000'000, 5 * kS + 300'000'000, 60, {});
  ASSERT_TRUE(t.gpu_energy_j);
  EXPECT_NEAR(*t.gpu_energy_j, 600 * 0.2, 1e-6);
  EXPECT_NEAR(*t.tokens_per_joule, 60 / 120.0, 1e-9);
  EXPECT_FALSE(t.throttle.empty());
}

TEST(WindowSummary, NoSamplesNearTheWindowNoFigures) {
  CellTelemetry t = summarize_window(two_gpus(constant_300), 100 * kS, 110 * kS, 100, {});
  EXPECT_FALSE(t.gpu_power_w);
  EXPECT_FALSE(t.gpu_energy_j);
  EXPECT_TRUE(t.throttle.empty());
}

TEST(WindowSummary, GpuFiguresLeftOutWhenTheGpusAreNotTheServers) {
  CellTelemetry t = summarize_window(two_gpus(constant_300), 2 * kS, 12 * kS, 100, {.gpu = false});
  EXPECT_FALSE(t.gpu_power_w);
  EXPECT_FALSE(t.tokens_per_joule);
  EXPECT_TRUE(t.throttle.empty());
}

struct VerdictCase {
  uint64_t bits;
  double clock_mhz;
  double util_pct;
  const char* verdict;
};

class Verdicts : public ::testing::TestWithParam<VerdictCase> {};

TEST_P(Verdicts, FromTheReasonBitsAndClocks) {
  const VerdictCase& c = GetParam();
  TelemetrySeries s = two_gpus(constant_300, true, c.bits, c.clock_mhz, c.util_pct);
  std::vector<GpuStaticInfo> gpus(2);
  for (int i = 0; i < 2; ++i) {
    gpus[i].index = i;
    gpus[i].sm_clock_max_mhz = 2100;
  }
  CellTelemetry t = summarize_window(s, 2 * kS, 12 * kS, 100, {.gpu = true, .gpus = gpus});
  EXPECT_EQ(t.throttle, c.verdict);
}

INSTANTIATE_TEST_SUITE_P(
    Telemetry, Verdicts,
    ::testing::Values(VerdictCase{0, 1900, 95, "ok"},
                      VerdictCase{clocks_event::kSwPowerCap, 1700, 95, "power_capped"},
                      VerdictCase{clocks_event::kSwThermalSlowdown | clocks_event::kSwPowerCap, 1500, 95, "thermal"},
                      VerdictCase{clocks_event::kHwThermalSlowdown, 1500, 95, "thermal"},
                      VerdictCase{clocks_event::kHwSlowdown, 900, 95, "hw_slowdown"},
                      VerdictCase{clocks_event::kHwPowerBrakeSlowdown, 600, 95, "hw_slowdown"},
                      VerdictCase{0, 1500, 95, "clocks_below_max"},  // 1,500 < 80% of 2,100, no reason given
                      VerdictCase{0, 1500, 10, "ok"},                // idle GPUs clock down: not a slowdown
                      VerdictCase{clocks_event::kGpuIdle, 300, 0, "ok"}));

TEST(WindowSummary, AReasonInFewSamplesDoesNotMakeTheVerdict) {
  TelemetrySeries s = two_gpus(constant_300);
  // Power cap in 4 of the 42 readings of [2 s, 12 s] (two samples x two GPUs): under 25%.
  for (auto& sample : s.gpu)
    if (sample.t_ns == 4 * kS || sample.t_ns == 8 * kS)
      for (auto& g : sample.gpus) g.clocks_event_reasons = clocks_event::kSwPowerCap;
  EXPECT_EQ(summarize_window(s, 2 * kS, 12 * kS, 100, {}).throttle, "ok");
  for (auto& sample : s.gpu)
    if (sample.t_ns >= 6 * kS)
      for (auto& g : sample.gpus) g.clocks_event_reasons = clocks_event::kSwPowerCap;
  EXPECT_EQ(summarize_window(s, 2 * kS, 12 * kS, 100, {}).throttle, "power_capped");
}

TEST(WindowSummary, HostAndServerFigures) {
  TelemetrySeries s;
  s.interval_s = 0.5;
  for (int64_t t = 0; t <= 10 * kS; t += kS) {
    HostSample h{t, {}};
    h.host.cpu_util_pct = t < 5 * kS ? 20 : 60;
    s.host.push_back(h);
    ServerSample v{t, {}};
    v.server.running = 4;
    v.server.waiting = t == 6 * kS ? 3 : 0;
    v.server.kv_usage = 0.1 * static_cast<double>(t / kS) / 2;
    v.server.preemptions_total = t < 5 * kS ? 10 : 17;
    s.server.push_back(v);
  }
  CellTelemetry t = summarize_window(s, 3 * kS, 9 * kS, 100, {});
  // 20% until 4 s, a ramp to 60% at 5 s, then 60%: mean over [3, 9] = (20 + 40 + 4 x 60) / 6.
  EXPECT_NEAR(*t.host_cpu_util_pct, (20.0 + 40.0 + 240.0) / 6.0, 1e-9);
  EXPECT_EQ(*t.server_waiting_max, 3);
  EXPECT_NEAR(*t.server_kv_usage_max, 0.45, 1e-9);
  EXPECT_EQ(*t.server_preemptions, 7);
  EXPECT_FALSE(t.gpu_power_w);  // no GPU series
  EXPECT_FALSE(t.spec_draft_tokens);  // a server that does not speculate
  EXPECT_FALSE(t.spec_accept_length);
}

// Speculative decoding over a window: the counters' differences (vLLM: drafts, draft tokens,
// accepted tokens; 3 draft tokens a step, 2 accepted), and SGLang's accept-length gauge.
TEST(WindowSummary, SpeculativeDecodingFromTheServersCounters) {
  TelemetrySeries s;
  s.interval_s = 0.5;
  for (int64_t t = 0; t <= 10 * kS; t += kS) {
    ServerSample v{t, {}};
    v.server.running = 4;
    const double seconds = static_cast<double>(t / kS);
    v.server.spec_drafts_total = 100 * seconds;
    v.server.spec_draft_tokens_total = 300 * seconds;
    v.server.spec_accepted_tokens_total = 200 * seconds;
    s.server.push_back(v);
  }
  CellTelemetry t = summarize_window(s, 2 * kS, 6 * kS, 100, {});
  EXPECT_EQ(*t.spec_draft_tokens, 1200);
  EXPECT_EQ(*t.spec_accepted_tokens, 800);
  EXPECT_EQ(*t.spec_drafts, 400);
  EXPECT_DOUBLE_EQ(*t.spec_accept_length, 3.0);  // 1 + 800 / 400
  TelemetrySeries g;
  g.interval_s = 0.5;
  for (int64_t t = 0; t <= 10 * kS; t += kS) {
    ServerSample v{t, {}};
    v.server.running = 4;
    v.server.spec_accept_length = 2.5;
    g.server.push_back(v);
  }
  CellTelemetry sg = summarize_window(g, 2 * kS, 6 * kS, 100, {});
  EXPECT_FALSE(sg.spec_draft_tokens);
  EXPECT_DOUBLE_EQ(*sg.spec_accept_length, 2.5);
}

}  // namespace
}  // namespace sm

namespace sm {
namespace {

// Eight GPUs, the server on one (issue 31): GPU 3 runs at 400 W and 95%, the other seven idle at
// 60 W and 0%; GPU 3 alone is thermally throttled in every sample.
TelemetrySeries eight_gpus_one_busy() {
  TelemetrySeries s;
  s.interval_s = 0.5;
  for (int64_t t = 0; t <= 20 * kS; t += kHalf) {
    const double t_s = static_cast<double>(t) / kS;
    GpuSample sample{t, {}};
    for (int i = 0; i < 8; ++i) {
      GpuReading g;
      g.index = i;
      const bool busy = i == 3;
      g.power_w = busy ? 400 : 60;
      g.energy_j = 1000 + (busy ? 400 : 60) * t_s;
      g.util_pct = busy ? 95 : 0;
      g.sm_clock_mhz = busy ? 1500 : 345;
      g.temp_c = busy ? 88 : 35;
      g.clocks_event_reasons = busy ? clocks_event::kSwThermalSlowdown : clocks_event::kGpuIdle;
      sample.gpus.push_back(g);
    }
    s.gpu.push_back(sample);
  }
  return s;
}

TEST(WindowSummary, OnlyTheServersGpusCountInPowerEnergyAndTokensPerJoule) {
  const TelemetrySeries s = eight_gpus_one_busy();
  const int server[] = {3};
  CellTelemetry mine = summarize_window(s, 2 * kS, 12 * kS, 40'000, {.gpu = true, .server_gpus = server});
  ASSERT_TRUE(mine.gpu_power_w);
  EXPECT_NEAR(*mine.gpu_power_w, 400, 1e-6);
  EXPECT_NEAR(*mine.gpu_energy_j, 4000, 1e-6);      // 400 W x 10 s, not (400 + 7 x 60) x 10
  EXPECT_NEAR(*mine.tokens_per_joule, 10.0, 1e-9);  // 40,000 / 4,000 J
  EXPECT_NEAR(*mine.gpu_util_pct, 95, 1e-9);
  EXPECT_NEAR(*mine.gpu_temp_max_c, 88, 1e-9);
  EXPECT_TRUE(mine.per_gpu.empty());  // one GPU: its figures are the cell's
  // Every GPU counted (nothing said which): eight GPUs' draw, and the mean utilisation of 12%.
  CellTelemetry all = summarize_window(s, 2 * kS, 12 * kS, 40'000, {});
  EXPECT_NEAR(*all.gpu_power_w, 820, 1e-6);
  EXPECT_EQ(all.per_gpu.size(), 8u);
}

// One hot GPU of eight: 1 reading in 8 carries the thermal bit, under the 25% share overall, but
// every reading of that GPU does. The verdict is the worst GPU's.
TEST(WindowSummary, OneHotGpuOfEightMakesTheVerdict) {
  const TelemetrySeries s = eight_gpus_one_busy();
  CellTelemetry all = summarize_window(s, 2 * kS, 12 * kS, 100, {});
  EXPECT_EQ(all.throttle, "thermal");
  ASSERT_EQ(all.per_gpu.size(), 8u);
  EXPECT_EQ(all.per_gpu[3].index, 3);
  EXPECT_EQ(all.per_gpu[3].throttle, "thermal");
  EXPECT_EQ(all.per_gpu[0].throttle, "ok");
  EXPECT_NEAR(*all.per_gpu[3].power_w, 400, 1e-6);
  EXPECT_NEAR(*all.per_gpu[0].power_w, 60, 1e-6);
  EXPECT_NEAR(*all.per_gpu[0].util_pct, 0, 1e-9);
}

// Two of the GPUs counted: per-GPU figures for each, the cell's figures their sum / mean.
TEST(WindowSummary, PerGpuFiguresWhereTheServerUsesSeveral) {
  const TelemetrySeries s = eight_gpus_one_busy();
  const int server[] = {2, 3};
  CellTelemetry t = summarize_window(s, 2 * kS, 12 * kS, 100, {.gpu = true, .server_gpus = server});
  ASSERT_EQ(t.per_gpu.size(), 2u);
  EXPECT_EQ(t.per_gpu[0].index, 2);
  EXPECT_EQ(t.per_gpu[1].index, 3);
  EXPECT_NEAR(*t.gpu_power_w, 460, 1e-6);
  EXPECT_NEAR(*t.per_gpu[0].energy_j + *t.per_gpu[1].energy_j, *t.gpu_energy_j, 1e-6);
  EXPECT_NEAR(*t.gpu_util_pct, 47.5, 1e-9);
}

// A CPU-served run on a GPU machine: the server's GPU idles (utilisation under 5%) through the
// window, so its draw is not the server's cost: no power, energy or tokens per joule.
TEST(WindowSummary, AnIdleGpuGivesNoEfficiencyFigures) {
  const TelemetrySeries s = eight_gpus_one_busy();
  const int idle_gpu[] = {0};
  CellTelemetry t = summarize_window(s, 2 * kS, 12 * kS, 40'000, {.gpu = true, .server_gpus = idle_gpu});
  ASSERT_TRUE(t.gpu_util_pct);
  EXPECT_LT(*t.gpu_util_pct, kIdleUtilPct);
  EXPECT_FALSE(t.gpu_power_w);
  EXPECT_FALSE(t.gpu_energy_j);
  EXPECT_FALSE(t.tokens_per_joule);
  EXPECT_TRUE(t.gpu_sm_clock_mhz);  // how it ran is still said
  // A window too short for a utilisation figure keeps its power (nothing says it idled).
  CellTelemetry brief = summarize_window(s, 2 * kS + kS / 10, 2 * kS + 3 * kS / 10, 100,
                                         {.gpu = true, .server_gpus = idle_gpu});
  EXPECT_FALSE(brief.gpu_util_pct);
  EXPECT_TRUE(brief.gpu_power_w);
}

// The host's RAPL counter: a window's energy is its increase, interpolated at the edges.
TEST(WindowSummary, HostEnergyFromThePackageCounter) {
  TelemetrySeries s;
  for (int64_t t = 0; t <= 20 * kS; t += kS) {
    HostSample h{t, {}};
    h.host.cpu_util_pct = 50;
    h.host.package_energy_j = 120.0 * static_cast<double>(t) / kS;  // 120 W
    s.host.push_back(h);
  }
  CellTelemetry t = summarize_window(s, 2 * kS + kHalf, 12 * kS, 1000, {});
  ASSERT_TRUE(t.host_energy_j.has_value());
  EXPECT_NEAR(*t.host_energy_j, 120 * 9.5, 1e-9);
  // A window past the last reading gets none (no extrapolation).
  EXPECT_FALSE(summarize_window(s, 19 * kS, 21 * kS, 1000, {}).host_energy_j.has_value());
  // No counter: no energy.
  for (auto& h : s.host) h.host.package_energy_j.reset();
  EXPECT_FALSE(summarize_window(s, 2 * kS, 12 * kS, 1000, {}).host_energy_j.has_value());
}

// The idle draw: GPU samples outside every window with the GPUs below 5 % utilisation; host
// intervals outside every window with the CPUs below 10 %.
TEST(WindowSummary, IdlePowerOutsideTheWindows) {
  TelemetrySeries s = two_gpus(constant_300);
  for (auto& sample : s.gpu)
    if (sample.t_ns < 5 * kS)
      for (auto& g : sample.gpus) {
        g.power_w = 40 + static_cast<double>(sample.t_ns) / kS;  // 40..44.5 W each
        g.util_pct = 0;
      }
  // A window 10..15 s; the 95 %-busy samples outside it (5..10 s, 15..20 s) do not count.
  s.windows.push_back({10 * kS, 15 * kS, "decode", 0, 4, 1000});
  double energy = 0;
  for (int64_t t = 0; t <= 20 * kS; t += kS) {
    HostSample h{t, {}};
    const bool quiet = t <= 4 * kS;
    h.host.cpu_util_pct = quiet ? 3 : 60;
    if (t > 0) energy += quiet ? 30 : 150;  // 30 W quiet, 150 W busy
    h.host.package_energy_j = energy;
    s.host.push_back(h);
  }
  const IdlePower idle = idle_power(s, {});
  EXPECT_EQ(idle.gpu_samples, 10);  // t = 0, 0.5, ..., 4.5 s
  ASSERT_TRUE(idle.gpu_w.has_value());
  EXPECT_NEAR(*idle.gpu_w, 2 * (40 + 2.25), 1e-9);  // median of 80..89 W summed over both GPUs
  EXPECT_EQ(idle.host_samples, 4);
  ASSERT_TRUE(idle.host_w.has_value());
  EXPECT_NEAR(*idle.host_w, 30, 1e-9);
  const int gpu0[] = {0};
  EXPECT_NEAR(*idle_power(s, gpu0).gpu_w, 40 + 2.25, 1e-9) << "only the server's GPUs";
}

}  // namespace
}  // namespace sm
