#pragma once
// The vocabulary of the GGUF file format (version 3): value types, tensor types and one
// metadata value. Layout reference: ggml's docs/gguf.md.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "core/error.h"

namespace sm::gguf {

/// "GGUF" read as a little-endian uint32.
constexpr uint32_t kMagic = 0x46554747;
/// The format version written (and the only one read).
constexpr uint32_t kVersion = 3;
/// Alignment of the tensor data section and of every tensor in it, in bytes.
constexpr uint32_t kDefaultAlignment = 32;

/// Type tag of a metadata value; the numbers are the on-disk codes.
enum class ValueType : uint32_t {
  U8 = 0,
  I8 = 1,
  U16 = 2,
  I16 = 3,
  U32 = 4,
  I32 = 5,
  F32 = 6,
  Bool = 7,
  String = 8,
  Array = 9,
  U64 = 10,
  I64 = 11,
  F64 = 12,
};

std::string_view to_string(ValueType type);

/// Element type of a tensor (ggml_type); only the ones speedmatrix writes are named.
enum class TensorType : uint32_t {
  F32 = 0,
  F16 = 1,
  Q8_0 = 8,
};

std::string_view to_string(TensorType type);
/// "f32", "f16", "q8_0" (case-insensitive) -> type; anything else is InvalidArgument.
Result<TensorType> parse_tensor_type(std::string_view name);

/// Values stored together in one block of a tensor row (1 for f32/f16, 32 for q8_0).
uint64_t block_values(TensorType type);
/// Bytes of one block (4, 2, or 34 for q8_0: an f16 scale and 32 int8).
uint64_t block_size_bytes(TensorType type);
/// Bytes of a tensor of `values` elements; `values` must be a multiple of block_values.
uint64_t tensor_size_bytes(TensorType type, uint64_t values);
/// `offset` rounded up to a multiple of `alignment`.
uint64_t align_up(uint64_t offset, uint64_t alignment);

/// One scalar metadata value; the alternative matches the ValueType it was written with.
using Scalar = std::variant<uint8_t, int8_t, uint16_t, int16_t, uint32_t, int32_t, float, bool, std::string,
                            uint64_t, int64_t, double>;

/// A metadata value: a scalar, or an array of scalars of one type (arrays of arrays are not
/// written by speedmatrix and are rejected when read).
struct Value {
  /// Type tag on disk; Array means `elements` holds the value.
  ValueType type = ValueType::U32;
  /// The value when `type` is not Array.
  Scalar scalar;
  /// Element type when `type` is Array.
  ValueType element_type = ValueType::U32;
  /// The elements when `type` is Array, all of `element_type`.
  std::vector<Scalar> elements;

  static Value u32(uint32_t v);
  static Value u64(uint64_t v);
  static Value i32(int32_t v);
  static Value f32(float v);
  static Value boolean(bool v);
  static Value string(std::string v);
  static Value string_array(const std::vector<std::string>& v);
  static Value i32_array(const std::vector<int32_t>& v);
};

/// One key/value pair of the metadata section, in file order.
struct KeyValue {
  /// Dotted key, e.g. "llama.block_count".
  std::string key;
  /// Its value.
  Value value;
};

/// What the file says about one tensor.
struct TensorInfo {
  /// Tensor name, e.g. "blk.0.attn_q.weight".
  std::string name;
  /// Extent of each dimension, innermost (contiguous) first, as ggml's ne[].
  std::vector<uint64_t> dims;
  /// Element type.
  TensorType type = TensorType::F32;
  /// Start of its data relative to the start of the data section, in bytes (aligned).
  uint64_t offset_bytes = 0;

  /// Product of dims.
  uint64_t values() const;
  /// Bytes of its data (without padding).
  uint64_t size_bytes() const;
};

}  // namespace sm::gguf
