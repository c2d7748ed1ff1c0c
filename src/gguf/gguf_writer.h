#pragma once
// Writes a GGUF v3 file: header, metadata, tensor infos, then the aligned tensor data, which is
// produced tensor by tensor so a large model never has to be held in memory.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "core/error.h"
#include "gguf/gguf_types.h"

namespace sm::gguf {

/// Fills `out` (exactly info.size_bytes() long) with the data of tensor `index`.
using TensorFiller = std::function<void(size_t index, const TensorInfo& info, std::span<std::byte> out)>;

/// Collects metadata and tensor declarations, then writes the file in one pass.
///
///   GgufWriter w;
///   w.add("general.architecture", Value::string("llama"));
///   w.add_tensor("output_norm.weight", {64}, TensorType::F32);
///   auto ok = w.write("model.gguf", [](size_t, const TensorInfo&, std::span<std::byte> out) { ... });
///
/// Not thread-safe.
class GgufWriter {
 public:
  /// `alignment_bytes` must be a power of two; it is not written as metadata by itself
  /// (add "general.alignment" when it is not the default 32).
  explicit GgufWriter(uint32_t alignment_bytes = kDefaultAlignment);

  /// Appends one metadata pair; keys must be unique (checked).
  void add(std::string key, Value value);
  /// Declares the next tensor; its offset is the previous tensor's end, aligned.
  /// dims are innermost first; dims[0] must be a multiple of the type's block size (checked).
  const TensorInfo& add_tensor(std::string name, std::vector<uint64_t> dims, TensorType type);

  const std::vector<KeyValue>& metadata() const { return metadata_; }
  const std::vector<TensorInfo>& tensors() const { return tensors_; }
  /// Bytes of the data section (tensors plus padding between them).
  uint64_t data_size_bytes() const { return data_size_bytes_; }

  /// Writes everything to `path` through a temporary file renamed into place, so a failed or
  /// interrupted write never leaves a truncated model behind.
  Result<void> write(const std::string& path, const TensorFiller& fill) const;

  /// Serializes the header, metadata and tensor infos (everything before the data section,
  /// without the padding that follows).
  std::vector<std::byte> header_bytes() const;

 private:
  uint32_t alignment_bytes_;
  std::vector<KeyValue> metadata_;
  std::vector<TensorInfo> tensors_;
  uint64_t data_size_bytes_ = 0;
};

}  // namespace sm::gguf
