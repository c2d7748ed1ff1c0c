#include "telemetry/telemetry_series.h"

#include <gtest/gtest.h>

#include <fstream>

#include "support/temp_dir.h"

namespace sm {
namespace {

TEST(TelemetrySeries, EveryKindOfLineRoundTrips) {
  GpuReading g;
  g.index = 1;
  g.power_w = 301.5;
  g.energy_j = 12345.25;
  g.sm_clock_mhz = 1905;
  g.clocks_event_reasons = clocks_event::kSwPowerCap;
  g.pstate = 2;
  HostSample host{20, {}};
  host.host.cpu_util_pct = 37.5;
  ServerSample server{30, {}};
  server.server.running = 4;
  server.server.kv_usage = 0.25;
  WindowMark w{100, 200, "decode", 16384, 4, 777};
  WindowMark p{300, 350, "prefill", 8192, 1, 8192};

  TelemetrySeries s;
  for (const std::string& line : {start_line(5, 1700000000000, 0.5), to_jsonl(GpuSample{10, {g}}), to_jsonl(host),
                                  to_jsonl(server), to_jsonl(w), to_jsonl(p), std::string(R"({"kind":"later"})")})
    ASSERT_TRUE(parse_jsonl_line(line, s).has_value()) << line;
  EXPECT_EQ(s.start_t_ns, 5);
  EXPECT_EQ(s.start_unix_ms, 1700000000000);
  ASSERT_EQ(s.gpu.size(), 1u);
  EXPECT_EQ(s.gpu[0].t_ns, 10);
  EXPECT_EQ(s.gpu[0].gpus[0].index, 1);
  EXPECT_DOUBLE_EQ(*s.gpu[0].gpus[0].power_w, 301.5);
  EXPECT_DOUBLE_EQ(*s.gpu[0].gpus[0].energy_j, 12345.25);
  EXPECT_EQ(*s.gpu[0].gpus[0].clocks_event_reasons, clocks_event::kSwPowerCap);
  EXPECT_FALSE(s.gpu[0].gpus[0].temp_c.has_value());  // absent stays absent
  ASSERT_EQ(s.host.size(), 1u);
  EXPECT_DOUBLE_EQ(*s.host[0].host.cpu_util_pct, 37.5);
  ASSERT_EQ(s.server.size(), 1u);
  EXPECT_EQ(*s.server[0].server.running, 4);
  EXPECT_FALSE(s.server[0].server.waiting.has_value());
  ASSERT_EQ(s.windows.size(), 2u);
  EXPECT_EQ(s.windows[0].end_ns, 200);
  EXPECT_EQ(*s.windows[0].tokens, 777);
  EXPECT_EQ(s.windows[1].phase, "prefill");
  EXPECT_EQ(*s.windows[1].tokens, 8192);
}

TEST(TelemetrySeries, ATornLastLineIsIgnoredButATornMiddleIsAnError) {
  test::TempDir dir;
  const std::string path = dir.file("telemetry.jsonl");
  {
    std::ofstream f(path);
    f << start_line(0, 1, 0.5) << "\n" << to_jsonl(HostSample{1, {}}) << "\n" << R"({"kind":"gpu","t_)";
  }
  auto ok = read_telemetry_file(path);
  ASSERT_TRUE(ok.has_value()) << ok.error().message;
  EXPECT_EQ(ok->host.size(), 1u);
  {
    std::ofstream f(path, std::ios::app);
    f << "\n" << to_jsonl(HostSample{2, {}}) << "\n";
  }
  auto bad = read_telemetry_file(path);
  ASSERT_FALSE(bad.has_value());
  EXPECT_NE(bad.error().message.find("line 3"), std::string::npos) << bad.error().message;
}

}  // namespace
}  // namespace sm
