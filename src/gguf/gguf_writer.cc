#include "gguf/gguf_writer.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <type_traits>

namespace sm::gguf {

namespace {

// Appends little-endian scalars and GGUF strings to a byte buffer.
class ByteSink {
 public:
  explicit ByteSink(std::vector<std::byte>& out) : out_(out) {}

  template <class T>
  void scalar(T v) {
    static_assert(std::is_trivially_copyable_v<T>);
    const auto* p = reinterpret_cast<const std::byte*>(&v);
    out_.insert(out_.end(), p, p + sizeof v);  // the hosts speedmatrix runs on are little-endian
  }
  void string(const std::string& s) {
    scalar<uint64_t>(s.size());
    const auto* p = reinterpret_cast<const std::byte*>(s.data());
    out_.insert(out_.end(), p, p + s.size());
  }
  void value_of(ValueType type, const Scalar& v) {
    switch (type) {
      case ValueType::U8: scalar(std::get<uint8_t>(v)); return;
      case ValueType::I8: scalar(std::get<int8_t>(v)); return;
      case ValueType::U16: scalar(std::get<uint16_t>(v)); return;
      case ValueType::I16: scalar(std::get<int16_t>(v)); return;
      case ValueType::U32: scalar(std::get<uint32_t>(v)); return;
      case ValueType::I32: scalar(std::get<int32_t>(v)); return;
      case ValueType::F32: scalar(std::get<float>(v)); return;
      case ValueType::Bool: scalar<uint8_t>(std::get<bool>(v) ? 1 : 0); return;
      case ValueType::String: string(std::get<std::string>(v)); return;
      case ValueType::U64: scalar(std::get<uint64_t>(v)); return;
      case ValueType::I64: scalar(std::get<int64_t>(v)); return;
      case ValueType::F64: scalar(std::get<double>(v)); return;
      case ValueType::Array: break;
    }
    SM_CHECK(false, "nested GGUF arrays are not supported");
  }

 private:
  std::vector<std::byte>& out_;
};

// Checks that a Value's alternatives match its type tags (a mismatch is a bug in the caller).
bool holds(ValueType type, const Scalar& v) {
  switch (type) {
    case ValueType::U8: return std::holds_alternative<uint8_t>(v);
    case ValueType::I8: return std::holds_alternative<int8_t>(v);
    case ValueType::U16: return std::holds_alternative<uint16_t>(v);
    case ValueType::I16: return std::holds_alternative<int16_t>(v);
    case ValueType::U32: return std::holds_alternative<uint32_t>(v);
    case ValueType::I32: return std::holds_alternative<int32_t>(v);
    case ValueType::F32: return std::holds_alternative<float>(v);
    case ValueType::Bool: return std::holds_alternative<bool>(v);
    case ValueType::String: return std::holds_alternative<std::string>(v);
    case ValueType::U64: return std::holds_alternative<uint64_t>(v);
    case ValueType::I64: return std::holds_alternative<int64_t>(v);
    case ValueType::F64: return std::holds_alternative<double>(v);
    case ValueType::Array: return false;
  }
  return false;
}

Result<void> write_all(std::FILE* f, const std::byte* data, size_t size, const std::string& path) {
  if (size == 0) return {};
  if (std::fwrite(data, 1, size, f) != size) {
    return fail(ErrorCode::Io, "cannot write " + path + ": " + std::strerror(errno));
  }
  return {};
}

}  // namespace

GgufWriter::GgufWriter(uint32_t alignment_bytes) : alignment_bytes_(alignment_bytes) {
  SM_CHECK(alignment_bytes > 0 && (alignment_bytes & (alignment_bytes - 1)) == 0,
           "GGUF alignment must be a power of two");
}

void GgufWriter::add(std::string key, Value value) {
  for (const auto& kv : metadata_) SM_CHECK(kv.key != key, "duplicate GGUF metadata key");
  if (value.type == ValueType::Array) {
    SM_CHECK(value.element_type != ValueType::Array, "nested GGUF arrays are not supported");
    for (const auto& e : value.elements) SM_CHECK(holds(value.element_type, e), "GGUF array element of the wrong type");
  } else {
    SM_CHECK(holds(value.type, value.scalar), "GGUF value of the wrong type");
  }
  metadata_.push_back(KeyValue{std::move(key), std::move(value)});
}

const TensorInfo& GgufWriter::add_tensor(std::string name, std::vector<uint64_t> dims, TensorType type) {
  SM_CHECK(!dims.empty() && dims.size() <= 4, "a tensor has 1 to 4 dimensions");
  SM_CHECK(dims[0] % block_values(type) == 0, "tensor rows must be a whole number of blocks");
  for (const auto& t : tensors_) SM_CHECK(t.name != name, "duplicate GGUF tensor name");
  TensorInfo info{std::move(name), std::move(dims), type, align_up(data_size_bytes_, alignment_bytes_)};
  data_size_bytes_ = info.offset_bytes + info.size_bytes();
  tensors_.push_back(std::move(info));
  return tensors_.back();
}

std::vector<std::byte> GgufWriter::header_bytes() const {
  std::vector<std::byte> out;
  ByteSink sink(out);
  sink.scalar<uint32_t>(kMagic);
  sink.scalar<uint32_t>(kVersion);
  sink.scalar<uint64_t>(tensors_.size());
  sink.scalar<uint64_t>(metadata_.size());
  for (const auto& kv : metadata_) {
    sink.string(kv.key);
    sink.scalar<uint32_t>(static_cast<uint32_t>(kv.value.type));
    if (kv.value.type == ValueType::Array) {
      sink.scalar<uint32_t>(static_cast<uint32_t>(kv.value.element_type));
      sink.scalar<uint64_t>(kv.value.elements.size());
      for (const auto& e : kv.value.elements) sink.value_of(kv.value.element_type, e);
    } else {
      sink.value_of(kv.value.type, kv.value.scalar);
    }
  }
  for (const auto& t : tensors_) {
    sink.string(t.name);
    sink.scalar<uint32_t>(static_cast<uint32_t>(t.dims.size()));
    for (uint64_t d : t.dims) sink.scalar<uint64_t>(d);
    sink.scalar<uint32_t>(static_cast<uint32_t>(t.type));
    sink.scalar<uint64_t>(t.offset_bytes);
  }
  return out;
}

Result<void> GgufWriter::write(const std::string& path, const TensorFiller& fill) const {
  const std::string tmp_path = path + ".tmp";
  std::FILE* f = std::fopen(tmp_path.c_str(), "wb");
  if (!f) return fail(ErrorCode::Io, "cannot create " + tmp_path + ": " + std::strerror(errno));
  auto result = [&]() -> Result<void> {
    std::vector<std::byte> buf = header_bytes();
    buf.resize(align_up(buf.size(), alignment_bytes_), std::byte{0});
    if (auto ok = write_all(f, buf.data(), buf.size(), tmp_path); !ok) return ok;
    uint64_t written = 0;  // bytes of the data section so far
    for (size_t i = 0; i < tensors_.size(); ++i) {
      const TensorInfo& t = tensors_[i];
      buf.assign(t.offset_bytes - written, std::byte{0});
      if (auto ok = write_all(f, buf.data(), buf.size(), tmp_path); !ok) return ok;
      buf.assign(t.size_bytes(), std::byte{0});
      fill(i, t, buf);
      if (auto ok = write_all(f, buf.data(), buf.size(), tmp_path); !ok) return ok;
      written = t.offset_bytes + t.size_bytes();
    }
    // Pad the file to the alignment too, as ggml's own writer does.
    buf.assign(align_up(written, alignment_bytes_) - written, std::byte{0});
    return write_all(f, buf.data(), buf.size(), tmp_path);
  }();
  if (std::fclose(f) != 0 && result) {
    result = fail(ErrorCode::Io, "cannot write " + tmp_path + ": " + std::strerror(errno));
  }
  std::error_code ec;
  if (!result) {
    std::filesystem::remove(tmp_path, ec);
    return result;
  }
  std::filesystem::rename(tmp_path, path, ec);
  if (ec) {
    std::filesystem::remove(tmp_path, ec);
    return fail(ErrorCode::Io, "cannot rename " + tmp_path + " to " + path + ": " + ec.message());
  }
  return {};
}

}  // namespace sm::gguf
