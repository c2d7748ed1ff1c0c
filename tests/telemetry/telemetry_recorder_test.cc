#include "telemetry/telemetry_recorder.h"

#include <gtest/gtest.h>

#include <sys/stat.h>

#include "support/temp_dir.h"

namespace sm {
namespace {

constexpr int64_t kS = 1'000'000'000;

// A GPU whose power is 100 W + 10 W per second of the manual clock, with its energy counter.
class ScriptedGpu final : public GpuSource {
 public:
  explicit ScriptedGpu(const ManualClock& clock) : clock_(clock) {}
  std::string source_name() const override { return "scripted"; }
  std::vector<GpuStaticInfo> static_info() override {
    GpuStaticInfo g;
    g.name = "Scripted GPU";
    g.sm_clock_max_mhz = 2000;
    return {g};
  }
  void read(std::vector<GpuReading>& out) override {
    const double t_s = static_cast<double>(clock_.now_ns()) / kS;
    out.assign(1, GpuReading{});
    out[0].power_w = 100 + 10 * t_s;
    out[0].energy_j = 100 * t_s + 5 * t_s * t_s;
    out[0].sm_clock_mhz = 1900;
    out[0].clocks_event_reasons = 0;
  }

 private:
  const ManualClock& clock_;
};

class FixedHost final : public HostSource {
 public:
  HostReading read() override { return HostReading{42.0, 3000.0, std::nullopt}; }
};

TelemetryRecorder scripted(ManualClock& clock, const std::string& path, int* server_reads) {
  TelemetrySources sources;
  sources.gpu = std::make_unique<ScriptedGpu>(clock);
  sources.host = std::make_unique<FixedHost>();
  sources.server = [server_reads]() -> Result<ServerReading> {
    ++*server_reads;
    ServerReading r;
    r.running = 4;
    r.waiting = 1;
    return r;
  };
  return TelemetryRecorder(std::move(sources), clock, {.interval_ns = kS / 2, .jsonl_path = path, .sampler_thread = false});
}

TEST(TelemetryRecorder, SamplesSummariesAndTheFileAgree) {
  test::TempDir dir;
  ManualClock clock(0);
  int server_reads = 0;
  const std::string path = dir.file("telemetry.jsonl");
  {
    TelemetryRecorder rec = scripted(clock, path, &server_reads);
    rec.start(1'700'000'000'000);
    for (int i = 0; i <= 20; ++i) {
      clock.set_ns(i * kS / 2);
      rec.sample_now();
    }
    rec.mark(WindowMark{2 * kS, 8 * kS, "decode", 0, 4, 6000});
    CellTelemetry t = rec.summarize(2 * kS, 8 * kS, 6000, true);
    // ∫ (100 + 10 t) dt over [2, 8] = 600 + 300 = 900 J; mean 150 W.
    EXPECT_NEAR(*t.gpu_energy_j, 900, 1e-9);
    EXPECT_NEAR(*t.gpu_power_w, 150, 1e-9);
    EXPECT_NEAR(*t.tokens_per_joule, 6000.0 / 900.0, 1e-12);
    EXPECT_EQ(t.throttle, "ok");
    EXPECT_NEAR(*t.host_cpu_util_pct, 42, 1e-9);
    EXPECT_EQ(*t.server_waiting_max, 1);
    LiveTelemetry live = rec.live();
    EXPECT_NEAR(*live.gpu_power_w, 200, 1e-9);  // the last sample, at 10 s
    EXPECT_NEAR(*live.gpu_sm_clock_mhz, 1900, 1e-9);
    EXPECT_EQ(rec.gpus().size(), 1u);
    rec.stop();
  }
  EXPECT_EQ(server_reads, 21);  // every sample_now reads the server too
  auto back = read_telemetry_file(path);
  ASSERT_TRUE(back.has_value()) << back.error().message;
  EXPECT_EQ(back->start_unix_ms, 1'700'000'000'000);
  EXPECT_EQ(back->gpu.size(), 21u);
  EXPECT_EQ(back->host.size(), 21u);
  EXPECT_EQ(back->server.size(), 21u);
  ASSERT_EQ(back->windows.size(), 1u);
  // The file alone gives the same summary as the live recorder.
  CellTelemetry again = summarize_window(*back, 2 * kS, 8 * kS, 6000, {});
  EXPECT_NEAR(*again.gpu_energy_j, 900, 1e-9);
}

TEST(TelemetryRecorder, AFileThatCannotBeWrittenIsNotedAndSamplesStayInMemory) {
  test::TempDir dir;
  ManualClock clock(0);
  std::vector<std::string> notes;
  TelemetrySources sources;
  sources.host = std::make_unique<FixedHost>();
  TelemetryRecorder rec(std::move(sources), clock,
                        {.interval_ns = kS / 2, .jsonl_path = dir.file("no/such/folder/telemetry.jsonl"),
                         .sampler_thread = false},
                        [&](const std::string& n) { notes.push_back(n); });
  rec.start(0);
  rec.sample_now();
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("cannot write"), std::string::npos) << notes[0];
  EXPECT_EQ(rec.series().host.size(), 1u);
  EXPECT_FALSE(rec.has_gpu());
}

// The sampler thread runs on its own: a started recorder gathers samples without being asked.
TEST(TelemetryRecorder, TheSamplerThreadSamplesUntilStopped) {
  TelemetrySources sources;
  sources.host = std::make_unique<FixedHost>();
  TelemetryRecorder rec(std::move(sources), SteadyClock::instance(), {.interval_ns = kS / 1000});
  rec.start(0);
  while (rec.series().host.size() < 5) {
  }
  rec.stop();
  const size_t n = rec.series().host.size();
  EXPECT_GE(n, 5u);
  EXPECT_EQ(rec.series().host.size(), n);  // stopped: no more
}

}  // namespace
}  // namespace sm
