// Finding a local server's processes: its tree from the parent ids, its listener from the socket
// tables, on fixture /proc trees and on this machine.
#include "system/local_processes.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "support/scripted_server.h"
#include "support/temp_dir.h"

namespace sm {
namespace {

namespace fs = std::filesystem;

void write(const fs::path& file, const std::string& text) {
  fs::create_directories(file.parent_path());
  std::ofstream(file) << text;
}

void process(const fs::path& root, int pid, int ppid, const std::string& name) {
  write(root / "proc" / std::to_string(pid) / "stat",
        std::to_string(pid) + " (" + name + ") S " + std::to_string(ppid) + " 1 1 0 -1 0 0 0 0 0 5 5 0 0 20 0 1 0\n");
}

TEST(LocalProcesses, AServersTreeHoldsEveryDescendant) {
  test::TempDir dir;
  const fs::path root = dir.path();
  process(root, 1, 0, "init");
  process(root, 100, 1, "sh");
  process(root, 101, 100, "vllm serve");  // a name with a space
  process(root, 102, 101, "VLLM::EngineCore");
  process(root, 103, 102, "worker (x)");
  process(root, 200, 1, "unrelated");
  EXPECT_EQ(process_tree(100, root), (std::vector<int>{100, 101, 102, 103}));
  EXPECT_EQ(process_tree(102, root), (std::vector<int>{102, 103}));
  EXPECT_TRUE(process_tree(999, root).empty()) << "not running";
}

TEST(LocalProcesses, TheListenerIsFoundThroughTheSocketTables) {
  test::TempDir dir;
  const fs::path root = dir.path();
  const std::string header = "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n";
  // Port 8080 (0x1F90) listening (0A) on 127.0.0.1 with inode 5555; an established connection on
  // the same port (01) with inode 6666 does not count; 8000 (0x1F40) on IPv6 with inode 7777.
  write(root / "proc/net/tcp", header +
        "   0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 5555 1 0 100 0 0 10 0\n"
        "   1: 0100007F:1F90 0100007F:A000 01 00000000:00000000 00:00000000 00000000     0        0 6666 1 0 20 4 30 10 -1\n");
  write(root / "proc/net/tcp6", header +
        "   0: 00000000000000000000000000000000:1F40 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 7777 1 0 100 0 0 10 0\n");
  process(root, 300, 1, "llama-server");
  process(root, 400, 1, "client");
  process(root, 500, 1, "sglang");
  fs::create_directories(root / "proc/300/fd");
  fs::create_symlink("socket:[5555]", root / "proc/300/fd/3");
  fs::create_symlink("/dev/null", root / "proc/300/fd/0");
  fs::create_directories(root / "proc/400/fd");
  fs::create_symlink("socket:[6666]", root / "proc/400/fd/3");
  fs::create_directories(root / "proc/500/fd");
  fs::create_symlink("socket:[7777]", root / "proc/500/fd/7");
  EXPECT_EQ(processes_listening_on(8080, root), (std::vector<int>{300}));
  EXPECT_EQ(processes_listening_on(8000, root), (std::vector<int>{500}));
  EXPECT_TRUE(processes_listening_on(9000, root).empty());
}

TEST(LocalProcesses, ThisMachinesScriptedServerIsThisProcess) {
  test::ScriptedServer server;
  const auto pids = processes_listening_on(server.port());
  ASSERT_EQ(pids.size(), 1u);
  EXPECT_EQ(pids[0], getpid());
  const auto tree = process_tree(getpid());
  EXPECT_NE(std::find(tree.begin(), tree.end(), getpid()), tree.end());
}

}  // namespace
}  // namespace sm
