// Which GPUs are the server's (issue 31, point 1): a declaration, the driver's process list, the
// server's CUDA_VISIBLE_DEVICES, else all of them; and the environment read from /proc.
#include "telemetry/server_gpus.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "support/temp_dir.h"

namespace sm {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::vector<GpuStaticInfo> machine(int n, const std::string& name = "NVIDIA H100 80GB HBM3") {
  std::vector<GpuStaticInfo> gpus(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    gpus[static_cast<size_t>(i)].index = i;
    gpus[static_cast<size_t>(i)].name = name;
    gpus[static_cast<size_t>(i)].uuid = "GPU-" + std::to_string(i) + "a1b2c3d-0000-1111-2222-33334444555" + std::to_string(i);
  }
  return gpus;
}

TEST(ServerGpus, DeclaredByIndexOrUuid) {
  ServerGpuEvidence e;
  e.declared = {"3", "GPU-5a1b"};  // a UUID's unique start, as CUDA accepts it
  auto chosen = choose_server_gpus(e, machine(8));
  ASSERT_TRUE(chosen) << chosen.error().message;
  EXPECT_THAT(chosen->indices, ElementsAre(3, 5));
  EXPECT_EQ(chosen->source, "declared");
  EXPECT_THAT(chosen->detail, HasSubstr("--server-gpus 3,GPU-5a1b"));
}

TEST(ServerGpus, ADeclarationNamingNoGpuHereIsRefused) {
  ServerGpuEvidence e;
  e.declared = {"0", "8"};
  auto chosen = choose_server_gpus(e, machine(8));
  ASSERT_FALSE(chosen);
  EXPECT_EQ(chosen.error().code, ErrorCode::InvalidArgument);
  EXPECT_THAT(chosen.error().message, HasSubstr("\"8\""));
  EXPECT_THAT(chosen.error().message, HasSubstr("7 (GPU-7a1b2c3d"));  // lists the GPUs there are
  e.declared = {"GPU-"};  // ambiguous: the start of every UUID
  EXPECT_FALSE(choose_server_gpus(e, machine(8)));
}

TEST(ServerGpus, TheProcessListFindsTheServersGpus) {
  ServerGpuEvidence e;
  e.server_pids = {4242, 4250};
  e.processes = std::vector<GpuProcesses>{{0, {999}}, {1, {}}, {2, {4250}}, {3, {4242, 1234}}};
  e.visible_devices = std::pair<std::string, std::string>{"CUDA_VISIBLE_DEVICES", "0"};  // the list wins
  auto chosen = choose_server_gpus(e, machine(4));
  ASSERT_TRUE(chosen);
  EXPECT_THAT(chosen->indices, ElementsAre(2, 3));
  EXPECT_EQ(chosen->source, "process_list");
  EXPECT_THAT(chosen->detail, HasSubstr("4250,4242"));
}

TEST(ServerGpus, VisibleDevicesWhenTheListHasNoneOfTheServersProcesses) {
  ServerGpuEvidence e;
  e.server_pids = {4242};
  e.processes = std::vector<GpuProcesses>{{0, {77}}, {1, {}}};  // a container: other PIDs
  e.visible_devices = std::pair<std::string, std::string>{"CUDA_VISIBLE_DEVICES", "1, GPU-0a1b"};
  auto chosen = choose_server_gpus(e, machine(2));
  ASSERT_TRUE(chosen);
  EXPECT_THAT(chosen->indices, ElementsAre(1, 0));
  EXPECT_EQ(chosen->source, "visible_devices");
  EXPECT_TRUE(chosen->notes.empty());
}

TEST(ServerGpus, TheListEndsAtTheFirstItemNamingNoDevice) {
  ServerGpuEvidence e;
  e.visible_devices = std::pair<std::string, std::string>{"HIP_VISIBLE_DEVICES", "2,9,0"};
  auto chosen = choose_server_gpus(e, machine(4));
  ASSERT_TRUE(chosen);
  EXPECT_THAT(chosen->indices, ElementsAre(2));  // as the runtime reads it: 9 ends the list
}

TEST(ServerGpus, AnEmptyVisibleDevicesLeavesTheServerNoGpu) {
  ServerGpuEvidence e;
  e.visible_devices = std::pair<std::string, std::string>{"CUDA_VISIBLE_DEVICES", ""};
  auto chosen = choose_server_gpus(e, machine(8));
  ASSERT_TRUE(chosen);
  EXPECT_TRUE(chosen->indices.empty());
  EXPECT_THAT(chosen->detail, HasSubstr("leaves it no GPU"));
}

TEST(ServerGpus, AMigInstanceCannotBeMappedAndSaysSo) {
  ServerGpuEvidence e;
  e.visible_devices = std::pair<std::string, std::string>{"CUDA_VISIBLE_DEVICES", "MIG-1234"};
  auto chosen = choose_server_gpus(e, machine(2));
  ASSERT_TRUE(chosen);
  EXPECT_EQ(chosen->source, "all");
  EXPECT_THAT(chosen->indices, ElementsAre(0, 1));
  ASSERT_GE(chosen->notes.size(), 1u);
  EXPECT_THAT(chosen->notes[0], HasSubstr("MIG instance"));
}

TEST(ServerGpus, CudasOrderOnAMixedMachineIsFlagged) {
  auto gpus = machine(2);
  gpus[1].name = "NVIDIA GeForce RTX 4090";
  ServerGpuEvidence e;
  e.visible_devices = std::pair<std::string, std::string>{"CUDA_VISIBLE_DEVICES", "1"};
  auto chosen = choose_server_gpus(e, gpus);
  ASSERT_TRUE(chosen);
  ASSERT_EQ(chosen->notes.size(), 1u);
  EXPECT_THAT(chosen->notes[0], HasSubstr("CUDA_DEVICE_ORDER=PCI_BUS_ID"));
  e.cuda_device_order = "PCI_BUS_ID";
  EXPECT_TRUE(choose_server_gpus(e, gpus)->notes.empty());
}

TEST(ServerGpus, AllOfThemWhenNothingSaysWhichWithANoteOnAMultiGpuMachine) {
  ServerGpuEvidence e;
  auto many = choose_server_gpus(e, machine(8));
  ASSERT_TRUE(many);
  EXPECT_EQ(many->source, "all");
  EXPECT_EQ(many->indices.size(), 8u);
  ASSERT_EQ(many->notes.size(), 1u);
  EXPECT_THAT(many->notes[0], HasSubstr("--server-gpus"));
  auto one = choose_server_gpus(e, machine(1));
  ASSERT_TRUE(one);
  EXPECT_TRUE(one->notes.empty());
  EXPECT_THAT(one->indices, ElementsAre(0));
}

TEST(ServerGpus, SplitsAList) {
  EXPECT_THAT(split_gpu_list(" 0, 3 ,,GPU-ab "), ElementsAre("0", "3", "GPU-ab"));
  EXPECT_TRUE(split_gpu_list("").empty());
}

void write_environ(const std::filesystem::path& root, int pid, const std::string& nul_separated) {
  std::filesystem::create_directories(root / "proc" / std::to_string(pid));
  std::ofstream(root / "proc" / std::to_string(pid) / "environ", std::ios::binary) << nul_separated;
}

TEST(ServerGpus, ReadsTheServersEnvironmentAChildOverItsShell) {
  test::TempDir dir;
  using namespace std::string_literals;
  write_environ(dir.path(), 100, "PATH=/bin\0CUDA_VISIBLE_DEVICES=0,1\0"s);
  write_environ(dir.path(), 101, "HIP_VISIBLE_DEVICES=5\0CUDA_VISIBLE_DEVICES=1\0CUDA_DEVICE_ORDER=PCI_BUS_ID\0"s);
  ServerGpuEvidence e;
  const int pids[] = {100, 101, 102};  // 102 has gone
  read_server_gpu_environment(pids, e, dir.path().string());
  ASSERT_TRUE(e.visible_devices);
  EXPECT_EQ(e.visible_devices->first, "CUDA_VISIBLE_DEVICES");  // CUDA's over HIP's
  EXPECT_EQ(e.visible_devices->second, "1");                    // the child's
  EXPECT_EQ(e.cuda_device_order, "PCI_BUS_ID");
  ServerGpuEvidence none;
  const int other[] = {100};
  write_environ(dir.path(), 100, "PATH=/bin\0"s);
  read_server_gpu_environment(other, none, dir.path().string());
  EXPECT_FALSE(none.visible_devices);
}

}  // namespace
}  // namespace sm
