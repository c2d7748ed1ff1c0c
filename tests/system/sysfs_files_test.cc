// The small kernel-file readers under an injectable root (system/sysfs_files.h).
#include "system/sysfs_files.h"

#include <gtest/gtest.h>

#include <fstream>

#include "support/temp_dir.h"

namespace sm {
namespace {

namespace fs = std::filesystem;

TEST(SysfsFiles, ReadsIntegersAndRefusesWhatIsNotOne) {
  test::TempDir dir;
  std::ofstream(dir.path() / "power1_average") << "285000000\n";
  std::ofstream(dir.path() / "negative") << "-5\n";
  std::ofstream(dir.path() / "text") << "16.0 GT/s PCIe\n";
  std::ofstream(dir.path() / "empty") << "";
  EXPECT_EQ(sysfs::read_int(dir.path() / "power1_average"), 285000000);
  EXPECT_EQ(sysfs::read_int(dir.path() / "negative"), -5);
  EXPECT_FALSE(sysfs::read_int(dir.path() / "text"));
  EXPECT_FALSE(sysfs::read_int(dir.path() / "empty"));
  EXPECT_FALSE(sysfs::read_int(dir.path() / "absent"));
}

TEST(SysfsFiles, ReadsTextTrimmedAndUeventKeys) {
  test::TempDir dir;
  std::ofstream(dir.path() / "uevent") << "DRIVER=amdgpu\nPCI_ID=1002:74A1\nPCI_SLOT_NAME=0000:05:00.0\n";
  const std::string uevent = sysfs::read_text(dir.path() / "uevent");
  EXPECT_EQ(sysfs::key_value(uevent, "DRIVER"), "amdgpu");
  EXPECT_EQ(sysfs::key_value(uevent, "PCI_ID"), "1002:74A1");
  EXPECT_EQ(sysfs::key_value(uevent, "PCI"), "");  // a key is matched whole
  EXPECT_EQ(sysfs::key_value(uevent, "MODALIAS"), "");
  EXPECT_EQ(sysfs::trim("  16 \n"), "16");
  EXPECT_EQ(sysfs::read_text(dir.path() / "absent"), "");
}

TEST(SysfsFiles, ListsNumberedEntriesInNumberOrder) {
  test::TempDir dir;
  for (const char* name : {"card10", "card2", "card0-DP-1", "renderD128", "card"})
    fs::create_directories(dir.path() / name);
  const auto cards = sysfs::numbered_entries(dir.path(), "card");
  ASSERT_EQ(cards.size(), 2u);
  EXPECT_EQ(cards[0].first, 2);
  EXPECT_EQ(cards[1].first, 10);
  EXPECT_EQ(sysfs::number_in("temp2_input", "temp", "_input"), 2);
  EXPECT_FALSE(sysfs::number_in("temp_input", "temp", "_input"));
  EXPECT_TRUE(sysfs::numbered_entries(dir.path() / "absent", "card").empty());
}

}  // namespace
}  // namespace sm
