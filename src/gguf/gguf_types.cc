#include "gguf/gguf_types.h"

#include <algorithm>
#include <cctype>

namespace sm::gguf {

std::string_view to_string(ValueType type) {
  switch (type) {
    case ValueType::U8: return "u8";
    case ValueType::I8: return "i8";
    case ValueType::U16: return "u16";
    case ValueType::I16: return "i16";
    case ValueType::U32: return "u32";
    case ValueType::I32: return "i32";
    case ValueType::F32: return "f32";
    case ValueType::Bool: return "bool";
    case ValueType::String: return "string";
    case ValueType::Array: return "array";
    case ValueType::U64: return "u64";
    case ValueType::I64: return "i64";
    case ValueType::F64: return "f64";
  }
  return "unknown";
}

std::string_view to_string(TensorType type) {
  switch (type) {
    case TensorType::F32: return "f32";
    case TensorType::F16: return "f16";
    case TensorType::Q8_0: return "q8_0";
  }
  return "unknown";
}

Result<TensorType> parse_tensor_type(std::string_view name) {
  std::string lower(name);
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  if (lower == "f32") return TensorType::F32;
  if (lower == "f16") return TensorType::F16;
  if (lower == "q8_0") return TensorType::Q8_0;
  return fail(ErrorCode::InvalidArgument, "unknown weight type '" + std::string(name) + "' (use f32, f16 or q8_0)");
}

uint64_t block_values(TensorType type) { return type == TensorType::Q8_0 ? 32 : 1; }

uint64_t block_size_bytes(TensorType type) {
  switch (type) {
    case TensorType::F32: return 4;
    case TensorType::F16: return 2;
    case TensorType::Q8_0: return 2 + 32;
  }
  return 0;
}

uint64_t tensor_size_bytes(TensorType type, uint64_t values) {
  SM_CHECK(values % block_values(type) == 0, "tensor size is not a whole number of blocks");
  return values / block_values(type) * block_size_bytes(type);
}

uint64_t align_up(uint64_t offset, uint64_t alignment) {
  return (offset + alignment - 1) / alignment * alignment;
}

Value Value::u32(uint32_t v) { return Value{ValueType::U32, v, ValueType::U32, {}}; }
Value Value::u64(uint64_t v) { return Value{ValueType::U64, v, ValueType::U32, {}}; }
Value Value::i32(int32_t v) { return Value{ValueType::I32, v, ValueType::U32, {}}; }
Value Value::f32(float v) { return Value{ValueType::F32, v, ValueType::U32, {}}; }
Value Value::boolean(bool v) { return Value{ValueType::Bool, v, ValueType::U32, {}}; }
Value Value::string(std::string v) { return Value{ValueType::String, std::move(v), ValueType::U32, {}}; }

Value Value::string_array(const std::vector<std::string>& v) {
  Value out{ValueType::Array, uint32_t{0}, ValueType::String, {}};
  out.elements.reserve(v.size());
  for (const auto& s : v) out.elements.emplace_back(s);
  return out;
}

Value Value::i32_array(const std::vector<int32_t>& v) {
  Value out{ValueType::Array, uint32_t{0}, ValueType::I32, {}};
  out.elements.reserve(v.size());
  for (int32_t x : v) out.elements.emplace_back(x);
  return out;
}

uint64_t TensorInfo::values() const {
  uint64_t n = 1;
  for (uint64_t d : dims) n *= d;
  return n;
}

uint64_t TensorInfo::size_bytes() const { return tensor_size_bytes(type, values()); }

}  // namespace sm::gguf
