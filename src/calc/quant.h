#pragma once
// A weight quantisation of the calculator's catalog (data/quants.json): how many bits each
// class of tensor takes, and whether matmuls run on 8-bit tensor cores.
#include <map>
#include <string>
#include <vector>

namespace sm::calc {

/// Tensor classes a quantisation applies to; names as in data/quants.json.
inline constexpr const char* kTensorClasses[] = {
    "attention", "linear_attention", "linear_attention_small", "mlp", "experts",
    "shared_expert", "router", "embedding", "lm_head"};

/// Classes that stay 16-bit unless a quantisation says otherwise.
inline constexpr const char* kDefault16BitClasses[] = {"embedding", "lm_head", "router", "linear_attention_small"};

struct QuantSpec {
  std::string id;                        ///< catalog key, e.g. "awq-4bit"
  std::string name;                      ///< display name, e.g. "AWQ 4-bit" (RunResult engine.quantization)
  std::vector<std::string> aliases;      ///< other names accepted on the command line
  double weight_bits = 16;               ///< bits of one quantised weight element, scales excluded
  int64_t group_size = 0;                ///< weights sharing one scale (0: per-channel, scales negligible)
  double scale_bits = 0;                 ///< bits of each group's scale
  double zero_bits = 0;                  ///< bits of each group's zero point (0: symmetric)
  int activation_bits = 16;              ///< 8 or 4: activations quantised too (tensor_math says which format)
  /// Weight format engines must load: "16-bit", "fp8", "int8", "awq", "gptq", "compressed-tensors",
  /// "nvfp4", "mxfp4", "gguf", "exl2", "exl3". Engines list the formats they load (engines.json).
  std::string format;
  /// Tensor-core format the matmuls run in when the GPU has it: "int8", "fp8", "nvfp4", "mxfp4";
  /// empty: 16-bit. A GPU without it runs the weights dequantised to 16-bit (weight-only).
  std::string tensor_math;
  std::vector<std::string> keep_16bit;   ///< extra tensor classes left in 16-bit
  std::map<std::string, double> class_bits;  ///< explicit bits per weight of some classes (wins over the rest)
  std::string source;                    ///< where the layout comes from

  /// Whether the matmuls want FP4 tensor math (NVFP4, MXFP4).
  bool fp4_math() const { return tensor_math == "nvfp4" || tensor_math == "mxfp4"; }
  /// Bits per weight of quantised tensors, scales and zero points included: 4 + (16 + 4) / 128 = 4.156.
  double bits_per_weight() const;
  /// Bits per weight of one tensor class (class_bits, else 16 for kept classes, else bits_per_weight()).
  double bits_for(const std::string& tensor_class) const;
};

}  // namespace sm::calc
