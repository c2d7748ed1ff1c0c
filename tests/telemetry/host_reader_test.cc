// Host telemetry from fixture /proc and /sys trees (tests/fixtures/host: an Intel two-socket box,
// an AMD Zen 3 box, a VM with /proc/stat only) and small trees written by the tests.
#include "telemetry/host_reader.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "support/temp_dir.h"

namespace sm {
namespace {

namespace fs = std::filesystem;

fs::path host_fixture(const std::string& name) {
  return fs::path(SPEEDMATRIX_SOURCE_DIR) / "tests/fixtures/host" / name;
}

void write(const fs::path& file, const std::string& text) {
  fs::create_directories(file.parent_path());
  std::ofstream(file) << text;
}

// A fixture tree copied where the test may change it (the next /proc/stat, a sensor going away).
struct CopiedTree {
  test::TempDir dir;
  explicit CopiedTree(const std::string& name) {
    fs::copy(host_fixture(name), dir.path(), fs::copy_options::recursive);
  }
  fs::path root() const { return dir.path(); }
};

TEST(ProcStat, ParsesTheAggregateLine) {
  auto t = parse_cpu_ticks("cpu  100 5 50 1000 20 3 7 15 40 2\ncpu0 50 2 25 500 10 1 3 7 20 1\n");
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(t->busy, 100u + 5 + 50 + 3 + 7 + 15);  // guest (40) and guest_nice (2) are inside user and nice
  EXPECT_EQ(t->total, t->busy + 1000 + 20);
  // Old kernels write fewer fields; four is the least.
  auto old = parse_cpu_ticks("cpu  10 0 5 85\n");
  ASSERT_TRUE(old.has_value());
  EXPECT_EQ(old->busy, 15u);
  EXPECT_EQ(old->total, 100u);
  EXPECT_FALSE(parse_cpu_ticks("cpu  10 0 5\n").has_value());
  EXPECT_FALSE(parse_cpu_ticks("cpu0 1 2 3 4\nintr 5\n").has_value()) << "per-CPU lines are not the sum";
  EXPECT_FALSE(parse_cpu_ticks("cpu  10 x 5 85\n").has_value());
  EXPECT_FALSE(parse_cpu_ticks("").has_value());
  EXPECT_TRUE(parse_cpu_ticks("intr 1\ncpu  10 0 5 85\n").has_value());
}

TEST(ProcStat, BusyShareBetweenTwoReadings) {
  EXPECT_DOUBLE_EQ(*cpu_busy_pct({100, 400}, {175, 500}), 75.0);
  EXPECT_DOUBLE_EQ(*cpu_busy_pct({100, 400}, {100, 500}), 0.0);
  EXPECT_FALSE(cpu_busy_pct({100, 400}, {100, 400}).has_value()) << "no tick passed";
  EXPECT_FALSE(cpu_busy_pct({100, 400}, {90, 380}).has_value()) << "counters went backwards";
}

TEST(HostReader, IntelTwoSocketBox) {
  CopiedTree tree("intel-2socket");
  HostReader reader(tree.root());
  HostReading first = reader.read();
  EXPECT_FALSE(first.cpu_util_pct.has_value()) << "the first reading has no interval";
  ASSERT_TRUE(first.cpu_freq_mhz.has_value());
  EXPECT_DOUBLE_EQ(*first.cpu_freq_mhz, (3400000.0 + 2900123 + 1200000 + 3100456) / 4 / 1000);
  ASSERT_TRUE(first.cpu_temp_c.has_value());
  EXPECT_DOUBLE_EQ(*first.cpu_temp_c, 63.0) << "the hotter package; not a core, the ACPI zone or the NVMe drive";
  EXPECT_EQ(reader.describe(),
            "CPU use from /proc/stat; frequency from cpufreq on 4 CPUs; "
            "temperature from coretemp Package id 0, Package id 1");

  // 1000 ticks later: 600 busy (user 450, system 120, softirq 30), 400 idle (idle 380, iowait 20).
  write(tree.root() / "proc/stat",
        "cpu  1874972 2210 402238 96512720 18442 0 9143 0 0 0\ncpu0 470120 601 101122 24120077 4611 0 4410 0 0 0\n");
  write(tree.root() / "sys/devices/system/cpu/cpu2/cpufreq/scaling_cur_freq", "3800000\n");
  HostReading second = reader.read();
  ASSERT_TRUE(second.cpu_util_pct.has_value());
  EXPECT_DOUBLE_EQ(*second.cpu_util_pct, 60.0);
  EXPECT_DOUBLE_EQ(*second.cpu_freq_mhz, (3400000.0 + 2900123 + 3800000 + 3100456) / 4 / 1000) << "read afresh";
}

TEST(HostReader, AmdZen3Box) {
  HostReader reader(host_fixture("amd-zen3"));
  HostReading r = reader.read();
  EXPECT_FALSE(r.cpu_util_pct.has_value());
  EXPECT_DOUBLE_EQ(*r.cpu_freq_mhz, (4650000.0 + 3801000 + 2200000 + 4102000) / 4 / 1000);
  EXPECT_DOUBLE_EQ(*r.cpu_temp_c, 74.75) << "Tctl; not the CCDs, the GPU or the drive";
  EXPECT_EQ(reader.describe(), "CPU use from /proc/stat; frequency from cpufreq on 4 CPUs; temperature from k10temp Tctl");
}

TEST(HostReader, VirtualMachineWithProcStatOnly) {
  CopiedTree tree("vm");
  HostReader reader(tree.root());
  HostReading first = reader.read();
  EXPECT_FALSE(first.cpu_util_pct.has_value());
  EXPECT_FALSE(first.cpu_freq_mhz.has_value());
  EXPECT_FALSE(first.cpu_temp_c.has_value());
  EXPECT_EQ(reader.describe(), "CPU use from /proc/stat; no cpufreq; no CPU temperature sensor");

  // 500 ticks: user +150, system +30, steal +10 (busy: the VM wanted the CPU), idle +300, iowait +10.
  write(tree.root() / "proc/stat", "cpu  1054360 2423 244944 90830 2107 0 3678 1822 0 0\n");
  HostReading second = reader.read();
  ASSERT_TRUE(second.cpu_util_pct.has_value());
  EXPECT_DOUBLE_EQ(*second.cpu_util_pct, 38.0);
  EXPECT_FALSE(second.cpu_freq_mhz.has_value());

  // Each reading is since the previous one, not since the first.
  write(tree.root() / "proc/stat", "cpu  1054360 2423 244944 91830 2107 0 3678 1822 0 0\n");
  EXPECT_DOUBLE_EQ(*reader.read().cpu_util_pct, 0.0);
}

TEST(ProcStat, AProcesssCpuTicksAreItsUserAndSystemTime) {
  // A command name with spaces and parentheses, as the kernel writes it.
  const std::string stat =
      "4242 (llama-server (w)) S 1 4242 4242 0 -1 4194560 8123 0 12 0 1500 250 3 1 20 0 9 0 1234 567 89\n";
  EXPECT_EQ(parse_process_cpu_ticks(stat), 1750u);
  EXPECT_FALSE(parse_process_cpu_ticks("4242 (x) S 1 2 3").has_value()) << "too few fields";
  EXPECT_FALSE(parse_process_cpu_ticks("no name here").has_value());
  EXPECT_FALSE(parse_process_cpu_ticks("1 (x) S 1 1 1 0 -1 0 0 0 0 0 ab 1 0").has_value());
}

// Other load is the host's busy share less the measurement's own processes' (speedmatrix, the
// server and its children), between the same two reads.
TEST(HostReader, OtherLoadIsWhatTheOwnProcessesDidNotUse) {
  CopiedTree tree("vm");
  write(tree.root() / "proc/10/stat", "10 (speedmatrix) S 1 10 10 0 -1 0 0 0 0 0 100 20 0 0 20 0 3 0\n");
  write(tree.root() / "proc/20/stat", "20 (llama-server) S 1 20 20 0 -1 0 0 0 0 0 1000 50 0 0 20 0 9 0\n");
  HostReader reader(tree.root(), {10, 20, 30});  // 30 never runs: it counts for nothing
  EXPECT_FALSE(reader.read().other_cpu_util_pct.has_value());
  // 500 ticks, 190 busy (as in VirtualMachineWithProcStatOnly); the two processes used 30 + 100.
  write(tree.root() / "proc/stat", "cpu  1054360 2423 244944 90830 2107 0 3678 1822 0 0\n");
  write(tree.root() / "proc/10/stat", "10 (speedmatrix) S 1 10 10 0 -1 0 0 0 0 0 120 30 0 0 20 0 3 0\n");
  write(tree.root() / "proc/20/stat", "20 (llama-server) S 1 20 20 0 -1 0 0 0 0 0 1090 60 0 0 20 0 9 0\n");
  HostReading r = reader.read();
  EXPECT_DOUBLE_EQ(*r.cpu_util_pct, 38.0);
  EXPECT_DOUBLE_EQ(*r.other_cpu_util_pct, 100.0 * (190 - 130) / 500);
  // Without own processes there is no such figure.
  EXPECT_FALSE(HostReader(tree.root()).read().other_cpu_util_pct.has_value());
}

TEST(HostReader, NothingExposedIsNothingRead) {
  test::TempDir empty;
  HostReader reader(empty.path() / "no-such-root");
  HostReading r = reader.read();
  r = reader.read();
  EXPECT_FALSE(r.cpu_util_pct.has_value());
  EXPECT_FALSE(r.cpu_freq_mhz.has_value());
  EXPECT_FALSE(r.cpu_temp_c.has_value());
  EXPECT_EQ(reader.describe(), "no /proc/stat; no cpufreq; no CPU temperature sensor");
}

TEST(HostReader, ASensorThatStopsAnsweringIsSkipped) {
  CopiedTree tree("intel-2socket");
  HostReader reader(tree.root());
  fs::remove(tree.root() / "sys/class/hwmon/hwmon3/temp1_input");
  write(tree.root() / "sys/devices/system/cpu/cpu0/cpufreq/scaling_cur_freq", "<unknown>\n");
  HostReading r = reader.read();
  EXPECT_DOUBLE_EQ(*r.cpu_temp_c, 58.0) << "socket 0's package";
  EXPECT_DOUBLE_EQ(*r.cpu_freq_mhz, (2900123.0 + 1200000 + 3100456) / 3 / 1000) << "the three CPUs that answered";
}

TEST(HostReader, ThisMachineReadsInRange) {
  HostReader reader;  // the real /proc and /sys: whatever this machine exposes, in range
  reader.read();
  HostReading r = reader.read();  // right after: maybe no tick passed, then no utilisation
  EXPECT_TRUE(!r.cpu_util_pct || (*r.cpu_util_pct >= 0 && *r.cpu_util_pct <= 100));
  EXPECT_TRUE(!r.cpu_freq_mhz || *r.cpu_freq_mhz > 0);
  EXPECT_TRUE(!r.cpu_temp_c || (*r.cpu_temp_c > -50 && *r.cpu_temp_c < 150));
  EXPECT_TRUE(reader.describe().starts_with("CPU use from /proc/stat")) << reader.describe();
}

// Sensor choice on the other layouts, from small trees.
class CpuTempSensors : public ::testing::Test {
 protected:
  test::TempDir dir;
  fs::path hwmon(int n) const { return dir.path() / "sys/class/hwmon" / ("hwmon" + std::to_string(n)); }
  void sensor(int n, int index, const std::string& label, int milli_c) {
    write(hwmon(n) / ("temp" + std::to_string(index) + "_input"), std::to_string(milli_c) + "\n");
    if (!label.empty()) write(hwmon(n) / ("temp" + std::to_string(index) + "_label"), label + "\n");
  }
  std::optional<double> temp() { return HostReader(dir.path()).read().cpu_temp_c; }
};

TEST_F(CpuTempSensors, Zen1PrefersTdieOverTheOffsetTctl) {
  write(hwmon(0) / "name", "k10temp\n");
  sensor(0, 1, "Tdie", 52000);
  sensor(0, 2, "Tctl", 79000);  // Tdie + 27 on some Threadripper parts
  EXPECT_DOUBLE_EQ(*temp(), 52.0);
  auto sensors = find_cpu_temp_sensors(dir.path() / "sys");
  ASSERT_EQ(sensors.size(), 1u);
  EXPECT_EQ(sensors[0].label, "Tdie");
}

TEST_F(CpuTempSensors, ZenpowerAndOlderAmdFamilies) {
  write(hwmon(0) / "name", "zenpower\n");
  sensor(0, 1, "Tdie", 61500);
  sensor(0, 2, "Tctl", 61500);
  sensor(0, 3, "Tccd1", 66000);
  write(hwmon(1) / "name", "k10temp\n");  // a family 15h socket: one unlabelled sensor
  sensor(1, 1, "", 48125);
  EXPECT_DOUBLE_EQ(*temp(), 61.5);
  EXPECT_EQ(find_cpu_temp_sensors(dir.path() / "sys").size(), 2u);
}

TEST_F(CpuTempSensors, CoretempWithoutAPackageSensorUsesItsCores) {
  write(hwmon(0) / "name", "coretemp\n");
  sensor(0, 2, "Core 0", 44000);
  sensor(0, 3, "Core 1", 47000);
  EXPECT_DOUBLE_EQ(*temp(), 47.0);
}

TEST_F(CpuTempSensors, ArmCpuThermalZone) {
  write(hwmon(0) / "name", "cpu_thermal\n");
  sensor(0, 1, "", 53692);
  write(hwmon(1) / "name", "rp1_adc\n");  // a board ADC: not the CPU
  sensor(1, 1, "", 90000);
  EXPECT_DOUBLE_EQ(*temp(), 53.692);
  EXPECT_EQ(HostReader(dir.path()).describe(), "no /proc/stat; no cpufreq; temperature from cpu_thermal");
}

TEST_F(CpuTempSensors, HwmonNumbersSortNumerically) {
  for (int n : {10, 2}) {
    write(hwmon(n) / "name", "coretemp\n");
    sensor(n, 1, "Package id " + std::to_string(n), 40000 + n);
  }
  auto sensors = find_cpu_temp_sensors(dir.path() / "sys");
  ASSERT_EQ(sensors.size(), 2u);
  EXPECT_EQ(sensors[0].label, "Package id 2");
  EXPECT_EQ(sensors[1].label, "Package id 10");
}

// RAPL: the packages' counters summed, their wraps followed; the parts of a package not counted twice.
TEST(RaplReader, PackagesSummedAndWrapsFollowed) {
  test::TempDir dir;
  const fs::path zones = dir.path() / "sys/class/powercap";
  write(zones / "intel-rapl:0/energy_uj", "1000000\n");
  write(zones / "intel-rapl:0/max_energy_range_uj", "262143328850\n");
  write(zones / "intel-rapl:0:0/energy_uj", "500000\n");  // core: part of package 0
  write(zones / "intel-rapl:1/energy_uj", "262143000000\n");
  write(zones / "intel-rapl:1/max_energy_range_uj", "262143328850\n");
  write(zones / "intel-rapl-mmio:0/energy_uj", "7\n");
  RaplReader rapl(dir.path() / "sys");
  EXPECT_EQ(rapl.packages(), 2u);
  EXPECT_DOUBLE_EQ(*rapl.read(), 0.0) << "the first reading is the origin";
  write(zones / "intel-rapl:0/energy_uj", "31000000\n");  // +30 J
  write(zones / "intel-rapl:0:0/energy_uj", "9900000\n");
  write(zones / "intel-rapl:1/energy_uj", "671150\n");    // wrapped: +328,850 + 671,150 uJ = +1 J
  EXPECT_NEAR(*rapl.read(), 31.0, 1e-9);
  fs::remove(zones / "intel-rapl:1/energy_uj");
  EXPECT_FALSE(rapl.read().has_value()) << "a package no longer readable: no total";
}

TEST(RaplReader, NoneReadableInAVm) {
  HostReader reader(host_fixture("vm"));
  EXPECT_FALSE(reader.read().package_energy_j.has_value());
  test::TempDir dir;
  write(dir.path() / "sys/class/powercap/intel-rapl:0/max_energy_range_uj", "262143328850\n");  // energy_uj: root only
  RaplReader rapl(dir.path() / "sys");
  EXPECT_EQ(rapl.packages(), 0u);
  EXPECT_FALSE(rapl.read().has_value());
}

TEST(HostReader, ReadsRaplWhereExposed) {
  CopiedTree tree("vm");
  write(tree.root() / "sys/class/powercap/intel-rapl:0/energy_uj", "5000000\n");
  HostReader reader(tree.root());
  EXPECT_DOUBLE_EQ(*reader.read().package_energy_j, 0.0);
  write(tree.root() / "sys/class/powercap/intel-rapl:0/energy_uj", "7500000\n");
  EXPECT_DOUBLE_EQ(*reader.read().package_energy_j, 2.5);
  EXPECT_EQ(reader.describe(), "CPU use from /proc/stat; no cpufreq; no CPU temperature sensor; "
                               "package energy from RAPL on 1 package");
}

}  // namespace
}  // namespace sm
