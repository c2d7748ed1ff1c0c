#pragma once
// Reads the header, metadata and tensor infos of a GGUF v3 file, and single tensors' data.
// Only the part before the data section is parsed, so multi-GB models are cheap to inspect.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"
#include "gguf/gguf_types.h"

namespace sm::gguf {

/// Everything a GGUF file says before its tensor data.
struct GgufFile {
  /// Format version from the header (always kVersion: other versions are rejected).
  uint32_t version = 0;
  /// Metadata pairs in file order.
  std::vector<KeyValue> metadata;
  /// Tensor infos in file order.
  std::vector<TensorInfo> tensors;
  /// general.alignment, or 32 when the key is absent.
  uint32_t alignment_bytes = kDefaultAlignment;
  /// File offset where the data section starts (end of the tensor infos, aligned).
  uint64_t data_offset_bytes = 0;
  /// Size of the whole file.
  uint64_t file_size_bytes = 0;

  /// The value of `key`, or nullptr.
  const Value* find(std::string_view key) const;
  /// The tensor called `name`, or nullptr.
  const TensorInfo* find_tensor(std::string_view name) const;
  /// Scalar integer value of `key` converted to uint64 (any unsigned or signed >= 0 integer type).
  std::optional<uint64_t> get_uint(std::string_view key) const;
  /// Scalar string value of `key`.
  std::optional<std::string> get_string(std::string_view key) const;
};

/// Parses the file's header, metadata and tensor infos. Errors (InvalidArgument) name what is
/// wrong: bad magic, unsupported version, truncation, unknown types, overlapping or misaligned
/// tensors, tensors past the end of the file.
Result<GgufFile> read_gguf(const std::string& path);

/// Reads the raw bytes of one tensor of a file parsed by read_gguf.
Result<std::vector<std::byte>> read_tensor_data(const std::string& path, const GgufFile& file,
                                                const TensorInfo& tensor);

}  // namespace sm::gguf
