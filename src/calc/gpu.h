#pragma once
// One GPU of the calculator's catalog (data/gpus.json): memory, bandwidth and tensor throughput.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace sm::calc {

/// Bytes in a GiB: catalog memory figures are in GiB.
inline constexpr double kBytesPerGiB = 1024.0 * 1024.0 * 1024.0;

/// Fraction of the memory as sold that the runtime reports as total when a GPU entry gives no
/// usable figure: 23.69 GiB of a 24 GiB GeForce card (PyTorch "total capacity").
inline constexpr double kDefaultUsableMemoryFraction = 23.69 / 24.0;

/// Datasheet figures of one GPU. Throughputs are dense (not 2:4 sparse).
/// A name a driver or tool reports for a GPU ("NVIDIA H100 80GB HBM3" from nvidia-smi and NVML),
/// with where it was seen: the table that turns reported names into catalog ids (docs/site.md,
/// "One name per GPU and model").
struct ReportedGpuName {
  std::string name;      ///< exactly as reported
  std::string reporter;  ///< what reports it: "nvidia-smi", "NVML", "rocm-smi", "torch"
  std::string source;    ///< where it was seen reported (a public issue or log)
};

struct GpuSpec {
  std::string id;                       ///< catalog key, e.g. "rtx3090"
  std::string name;                     ///< display name, e.g. "NVIDIA GeForce RTX 3090"
  std::vector<std::string> aliases;     ///< other names accepted on the command line
  std::vector<ReportedGpuName> reported_names;  ///< names drivers report for it, each with its source
  std::string type = "Discrete GPU";    ///< RunResult hardware type: "Discrete GPU", "Apple silicon", ...
  int64_t memory_bytes = 0;             ///< device memory as sold (24 GiB card: 24 × 2^30)
  int64_t usable_memory_bytes = 0;      ///< total the runtime reports (≤ memory_bytes); engines take their fraction of this
  double bandwidth_bytes_per_s = 0;     ///< datasheet memory bandwidth
  double tensor_16bit_flops = 0;        ///< headline dense FP16/BF16 tensor FLOP/s (GeForce: FP16-accumulate figure)
  std::optional<double> tensor_16bit_fp32acc_flops;  ///< same with FP32 accumulate, when it differs (informational)
  std::optional<double> tensor_8bit_flops;           ///< dense FP8/INT8 tensor FLOP/s; absent: no 8-bit tensor math known
  /// 8-bit formats the tensor cores multiply at tensor_8bit_flops: "int8", "fp8" (Ampere: int8
  /// only; Ada, Hopper, Blackwell, CDNA3: both). Empty with an 8-bit figure: any (user entries).
  std::vector<std::string> tensor_8bit_formats;
  std::optional<double> tensor_4bit_flops;           ///< dense FP4 tensor FLOP/s (Blackwell); absent: none
  std::vector<std::string> tensor_4bit_formats;      ///< "nvfp4", "mxfp4": FP4 formats multiplied at that rate
  /// Software stack engines need on it: "cuda", "rocm", "metal" (Apple), "sycl" (Intel). Default:
  /// metal for Apple silicon, rocm for AMD, else cuda.
  std::string backend;
  /// Dies the GPU is built from that every kernel spans (Apple's Ultra chips: two Max dies joined
  /// by UltraFusion); 1 for a monolithic GPU.
  int dies = 1;
  /// The GPU's class for the calculator's error bands: "geforce", "workstation", "datacenter",
  /// "apple" (the entry's "class"; a user file's entry without one gets gpu_class_from_specs);
  /// empty: gpu_class decides by name.
  std::string class_name;
  std::string source;                   ///< where the figures come from
};

/// The classes a GPU can be of (GpuSpec::class_name).
inline bool is_gpu_class(const std::string& c) {
  return c == "geforce" || c == "workstation" || c == "datacenter" || c == "apple";
}

/// The class a GPU's name or type says: "apple" (Apple silicon), "geforce" (GeForce cards),
/// "workstation" (RTX PRO / RTX A-series / Ada Generation / DGX Spark GB10); "" when it says none.
inline std::string gpu_class_by_name(const GpuSpec& g) {
  if (g.type == "Apple silicon") return "apple";
  if (g.name.find("GeForce") != std::string::npos) return "geforce";
  if (g.name.find("RTX PRO") != std::string::npos || g.name.find("RTX A") != std::string::npos ||
      g.name.find("GB10") != std::string::npos || g.name.find("Ada Generation") != std::string::npos)
    return "workstation";
  return "";
}

/// HBM-class memory bandwidth (bytes/s): GDDR cards stay below it, HBM parts above.
inline constexpr double kHbmBandwidthBytesPerS = 1.5e12;

/// The class of a GPU known only by its figures (a user's file or --gpu-bandwidth): its name's or
/// type's class when they say one; else "datacenter" at HBM-class bandwidth, "workstation" above
/// 32 GiB of GDDR, "geforce" below.
inline std::string gpu_class_from_specs(const GpuSpec& g) {
  if (std::string by_name = gpu_class_by_name(g); !by_name.empty()) return by_name;
  if (g.bandwidth_bytes_per_s >= kHbmBandwidthBytesPerS) return "datacenter";
  if (static_cast<double>(g.memory_bytes) > 32 * kBytesPerGiB) return "workstation";
  return "geforce";
}

/// The corpus's GPU class of a catalog GPU: its class_name when it has one, else its name's
/// (gpu_class_by_name), else "datacenter" (the built-in catalog's other GPUs are).
inline std::string gpu_class(const GpuSpec& g) {
  if (!g.class_name.empty()) return g.class_name;
  const std::string by_name = gpu_class_by_name(g);
  return by_name.empty() ? "datacenter" : by_name;
}

}  // namespace sm::calc
