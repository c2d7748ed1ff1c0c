// How the report (and the site's GPU column) names hardware.
#include <gtest/gtest.h>

#include "report/golden.h"
#include "report/report_model.h"

namespace sm {
namespace {

std::string name_of(std::vector<GpuInfo> gpus) {
  RunResult r = test::seed_fixture();
  r.hardware.gpus = std::move(gpus);
  return report::build_report_model(r).hardware_name;
}

TEST(HardwareName, DetectedGpuGetsItsMemoryAppended) {
  EXPECT_EQ(name_of({{"NVIDIA GeForce RTX 3090", int64_t{24} << 30}}), "RTX 3090 24GB");
  EXPECT_EQ(name_of({{"NVIDIA H100 80GB HBM3", int64_t{80} << 30}, {"NVIDIA H100 80GB HBM3", int64_t{80} << 30}}),
            "2× H100 80GB HBM3");
}

TEST(HardwareName, CatalogNamesWriteMemoryTheSameWay) {
  // calc and sim runs carry the catalog's names ("80 GB"); measured runs say "24GB".
  EXPECT_EQ(name_of({{"NVIDIA H100 SXM 80 GB", std::nullopt}}), "H100 SXM 80GB");
  EXPECT_EQ(name_of({{"Apple M3 Ultra (512 GB)", std::nullopt}}), "Apple M3 Ultra (512GB)");
  EXPECT_EQ(name_of({{"NVIDIA DGX Spark (GB10)", std::nullopt}}), "DGX Spark (GB10)");
  EXPECT_EQ(name_of({{"Vendor X 16 GBit", std::nullopt}}), "Vendor X 16 GBit");
}

}  // namespace
}  // namespace sm
