#pragma once
// This machine's AMD GPUs through the amdgpu driver's sysfs files (system/amdgpu_sysfs.h): the
// files rocm-smi reads, with no ROCm library loaded. The GPU source of a run where NVML cannot
// open (telemetry_sources_open.h).
//
// Where each field comes from (GpuReading, telemetry_types.h), under ROOT/sys/class/drm/cardN/
// device, read for every card on each read(); the kernel's words (Documentation/gpu/amdgpu,
// kernel-doc of amdgpu_pm.c and amdgpu_vram_mgr.c) after the file:
//   power_w         hwmon/hwmonM/power1_average "average power used by the SoC in microWatts"
//                   (power1_input, "instantaneous power", on kernels and parts without it), µW / 1e6.
//                   On an APU it includes the CPU cores.
//   energy_j        hwmon/hwmonM/energy1_input, µJ / 1e6, where the driver exposes one (the amdgpu
//                   versions checked expose none: the window's energy is then ∫ power dt)
//   sm_clock_mhz    pp_dpm_sclk: the gfx/compute clock's DPM levels, "N: 1234Mhz", the current
//                   level marked '*'
//   mem_clock_mhz   pp_dpm_mclk, likewise (dGPUs)
//   temp_c          hwmon temp1_input "the on die GPU temperature in millidegrees Celsius" (edge),
//                   else temp2_input (junction, the only die sensor some Instinct parts expose)
//   util_pct        gpu_busy_percent: "how busy the GPU is as a percentage"
//   mem_util_pct    mem_busy_percent: how busy the memory controller is, percent (dGPUs)
//   mem_used_bytes  mem_info_vram_used: "the currently used VRAM in bytes"
//   pcie_gen/width  pp_dpm_pcie's '*' level, else current_link_speed / current_link_width
//   power_limit_w   hwmon power1_cap "selected power cap in microWatts", µW / 1e6
// pstate and clocks_event_reasons stay empty: amdgpu has no counterpart of NVML's P-states or
// throttle reasons in sysfs. Once, at open() (GpuStaticInfo): name (system/amdgpu_names.h),
// mem_total_bytes (mem_info_vram_total), sm/mem_clock_max_mhz (the highest pp_dpm_sclk/mclk
// level), pcie_gen/width_max (pp_dpm_pcie's highest level, else max_link_speed/width); uuid
// stays empty. `index` is the card's position in find_amdgpu_cards() (DRM card order), which
// need not be HIP's device order.
//
// Threads: open() on one thread; read() then from the sampler's, every 0.5 s or so: paths are
// built at open(), and read() opens each small file once into a stack buffer.
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "core/error.h"
#include "system/amdgpu_sysfs.h"
#include "telemetry/telemetry_sources.h"

namespace sm {

/// `Result<std::unique_ptr<AmdgpuGpus>> gpus = AmdgpuGpus::open("/");`
class AmdgpuGpus final : public GpuSource {
 public:
  /// The amdgpu cards under `root` ("/" in a run). Error (Unsupported) when there is none.
  static Result<std::unique_ptr<AmdgpuGpus>> open(const std::filesystem::path& root);

  std::vector<GpuStaticInfo> static_info() override { return static_info_; }
  void read(std::vector<GpuReading>& out) override;
  std::string source_name() const override { return "amdgpu-sysfs"; }

 private:
  struct CardFiles {  // built once at open(); empty paths where the card has no hwmon
    std::filesystem::path power_average, power_input, energy, cap, temp_edge, temp_junction;
    std::filesystem::path sclk, mclk, pcie, link_speed, link_width, busy, mem_busy, vram_used;
  };
  explicit AmdgpuGpus(std::vector<AmdgpuCard> cards);

  std::vector<AmdgpuCard> cards_;
  std::vector<CardFiles> files_;
  std::vector<GpuStaticInfo> static_info_;
};

}  // namespace sm
