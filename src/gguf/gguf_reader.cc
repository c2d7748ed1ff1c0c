#include "gguf/gguf_reader.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fmt/format.h>
#include <memory>

namespace sm::gguf {

namespace {

// Sanity limits on counts read from the file, so a corrupt header cannot ask for terabytes.
constexpr uint64_t kMaxStringBytes = uint64_t{1} << 30;
constexpr uint64_t kMaxArrayElements = uint64_t{1} << 28;
constexpr uint64_t kMaxTensors = uint64_t{1} << 20;
constexpr uint64_t kMaxKeyValues = uint64_t{1} << 20;

struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};
using FilePtr = std::unique_ptr<std::FILE, FileCloser>;

// Sequential little-endian reads from a file; every read reports truncation as an error.
class Reader {
 public:
  Reader(std::FILE* f, std::string path) : f_(f), path_(std::move(path)) {}

  uint64_t position() const { return position_; }

  Result<void> bytes(void* out, size_t size, std::string_view what) {
    if (size != 0 && std::fread(out, 1, size, f_) != size) {
      return fail(ErrorCode::InvalidArgument,
                  fmt::format("{}: truncated GGUF file: cannot read {} at byte {}", path_, what, position_));
    }
    position_ += size;
    return {};
  }
  template <class T>
  Result<T> scalar(std::string_view what) {
    T v{};
    if (auto ok = bytes(&v, sizeof v, what); !ok) return std::unexpected(ok.error());
    return v;
  }
  Result<std::string> string(std::string_view what) {
    auto n = scalar<uint64_t>(what);
    if (!n) return std::unexpected(n.error());
    if (*n > kMaxStringBytes) {
      return fail(ErrorCode::InvalidArgument, fmt::format("{}: {} is {} bytes long (corrupt file?)", path_, what, *n));
    }
    std::string s(*n, '\0');
    if (auto ok = bytes(s.data(), s.size(), what); !ok) return std::unexpected(ok.error());
    return s;
  }
  Result<Scalar> value_of(ValueType type, std::string_view what) {
    switch (type) {
      case ValueType::U8: return wrap(scalar<uint8_t>(what));
      case ValueType::I8: return wrap(scalar<int8_t>(what));
      case ValueType::U16: return wrap(scalar<uint16_t>(what));
      case ValueType::I16: return wrap(scalar<int16_t>(what));
      case ValueType::U32: return wrap(scalar<uint32_t>(what));
      case ValueType::I32: return wrap(scalar<int32_t>(what));
      case ValueType::F32: return wrap(scalar<float>(what));
      case ValueType::Bool: {
        auto b = scalar<uint8_t>(what);
        if (!b) return std::unexpected(b.error());
        if (*b > 1) return fail(ErrorCode::InvalidArgument, fmt::format("{}: {} is not a bool ({})", path_, what, *b));
        return Scalar{*b == 1};
      }
      case ValueType::String: return wrap(string(what));
      case ValueType::U64: return wrap(scalar<uint64_t>(what));
      case ValueType::I64: return wrap(scalar<int64_t>(what));
      case ValueType::F64: return wrap(scalar<double>(what));
      case ValueType::Array: break;
    }
    return fail(ErrorCode::InvalidArgument, fmt::format("{}: {} has an unsupported type", path_, what));
  }

 private:
  template <class T>
  static Result<Scalar> wrap(Result<T> r) {
    if (!r) return std::unexpected(r.error());
    return Scalar{std::move(*r)};
  }

  std::FILE* f_;
  std::string path_;
  uint64_t position_ = 0;
};

bool known_value_type(uint32_t t) { return t <= static_cast<uint32_t>(ValueType::F64); }
bool known_tensor_type(uint32_t t) {
  return t == static_cast<uint32_t>(TensorType::F32) || t == static_cast<uint32_t>(TensorType::F16) ||
         t == static_cast<uint32_t>(TensorType::Q8_0);
}

// Reads one key/value pair.
Result<KeyValue> read_kv(Reader& r, const std::string& path) {
  KeyValue kv;
  auto key = r.string("metadata key");
  if (!key) return std::unexpected(key.error());
  kv.key = std::move(*key);
  const std::string what = "value of " + kv.key;
  auto type = r.scalar<uint32_t>(what);
  if (!type) return std::unexpected(type.error());
  if (!known_value_type(*type)) {
    return fail(ErrorCode::InvalidArgument, fmt::format("{}: {} has unknown type {}", path, kv.key, *type));
  }
  kv.value.type = static_cast<ValueType>(*type);
  if (kv.value.type != ValueType::Array) {
    auto v = r.value_of(kv.value.type, what);
    if (!v) return std::unexpected(v.error());
    kv.value.scalar = std::move(*v);
    return kv;
  }
  auto element_type = r.scalar<uint32_t>(what);
  if (!element_type) return std::unexpected(element_type.error());
  if (!known_value_type(*element_type) || *element_type == static_cast<uint32_t>(ValueType::Array)) {
    return fail(ErrorCode::InvalidArgument,
                fmt::format("{}: array {} has unsupported element type {}", path, kv.key, *element_type));
  }
  kv.value.element_type = static_cast<ValueType>(*element_type);
  auto n = r.scalar<uint64_t>(what);
  if (!n) return std::unexpected(n.error());
  if (*n > kMaxArrayElements) {
    return fail(ErrorCode::InvalidArgument, fmt::format("{}: array {} has {} elements (corrupt file?)", path, kv.key, *n));
  }
  kv.value.elements.reserve(*n);
  for (uint64_t i = 0; i < *n; ++i) {
    auto v = r.value_of(kv.value.element_type, what);
    if (!v) return std::unexpected(v.error());
    kv.value.elements.push_back(std::move(*v));
  }
  return kv;
}

// Reads one tensor info.
Result<TensorInfo> read_tensor_info(Reader& r, const std::string& path) {
  TensorInfo t;
  auto name = r.string("tensor name");
  if (!name) return std::unexpected(name.error());
  t.name = std::move(*name);
  const std::string what = "info of tensor " + t.name;
  auto n_dims = r.scalar<uint32_t>(what);
  if (!n_dims) return std::unexpected(n_dims.error());
  if (*n_dims == 0 || *n_dims > 4) {
    return fail(ErrorCode::InvalidArgument, fmt::format("{}: tensor {} has {} dimensions", path, t.name, *n_dims));
  }
  for (uint32_t i = 0; i < *n_dims; ++i) {
    auto d = r.scalar<uint64_t>(what);
    if (!d) return std::unexpected(d.error());
    if (*d == 0 || *d > (uint64_t{1} << 40)) {
      return fail(ErrorCode::InvalidArgument, fmt::format("{}: tensor {} has dimension {}", path, t.name, *d));
    }
    t.dims.push_back(*d);
  }
  auto type = r.scalar<uint32_t>(what);
  if (!type) return std::unexpected(type.error());
  if (!known_tensor_type(*type)) {
    return fail(ErrorCode::InvalidArgument,
                fmt::format("{}: tensor {} has type {}, which speedmatrix does not read", path, t.name, *type));
  }
  t.type = static_cast<TensorType>(*type);
  if (t.dims[0] % block_values(t.type) != 0) {
    return fail(ErrorCode::InvalidArgument, fmt::format("{}: tensor {} rows are not whole {} blocks", path, t.name,
                                                        to_string(t.type)));
  }
  auto offset = r.scalar<uint64_t>(what);
  if (!offset) return std::unexpected(offset.error());
  t.offset_bytes = *offset;
  return t;
}

}  // namespace

const Value* GgufFile::find(std::string_view key) const {
  for (const auto& kv : metadata)
    if (kv.key == key) return &kv.value;
  return nullptr;
}

const TensorInfo* GgufFile::find_tensor(std::string_view name) const {
  for (const auto& t : tensors)
    if (t.name == name) return &t;
  return nullptr;
}

std::optional<uint64_t> GgufFile::get_uint(std::string_view key) const {
  const Value* v = find(key);
  if (!v || v->type == ValueType::Array) return std::nullopt;
  return std::visit(
      [](const auto& x) -> std::optional<uint64_t> {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
          if (x < 0) return std::nullopt;
          return static_cast<uint64_t>(x);
        } else {
          return std::nullopt;
        }
      },
      v->scalar);
}

std::optional<std::string> GgufFile::get_string(std::string_view key) const {
  const Value* v = find(key);
  if (!v || v->type != ValueType::String) return std::nullopt;
  return std::get<std::string>(v->scalar);
}

Result<GgufFile> read_gguf(const std::string& path) {
  FilePtr f(std::fopen(path.c_str(), "rb"));
  if (!f) return fail(ErrorCode::Io, "cannot open " + path + ": " + std::strerror(errno));
  GgufFile file;
  Reader r(f.get(), path);
  auto magic = r.scalar<uint32_t>("magic");
  if (!magic) return std::unexpected(magic.error());
  if (*magic != kMagic) return fail(ErrorCode::InvalidArgument, path + ": not a GGUF file (bad magic)");
  auto version = r.scalar<uint32_t>("version");
  if (!version) return std::unexpected(version.error());
  if (*version != kVersion) {
    return fail(ErrorCode::InvalidArgument, fmt::format("{}: GGUF version {} (only {} is read)", path, *version, kVersion));
  }
  file.version = *version;
  auto n_tensors = r.scalar<uint64_t>("tensor count");
  if (!n_tensors) return std::unexpected(n_tensors.error());
  auto n_kv = r.scalar<uint64_t>("metadata count");
  if (!n_kv) return std::unexpected(n_kv.error());
  if (*n_tensors > kMaxTensors || *n_kv > kMaxKeyValues) {
    return fail(ErrorCode::InvalidArgument,
                fmt::format("{}: {} tensors and {} metadata pairs (corrupt file?)", path, *n_tensors, *n_kv));
  }
  for (uint64_t i = 0; i < *n_kv; ++i) {
    auto kv = read_kv(r, path);
    if (!kv) return std::unexpected(kv.error());
    if (file.find(kv->key)) return fail(ErrorCode::InvalidArgument, path + ": duplicate metadata key " + kv->key);
    file.metadata.push_back(std::move(*kv));
  }
  for (uint64_t i = 0; i < *n_tensors; ++i) {
    auto t = read_tensor_info(r, path);
    if (!t) return std::unexpected(t.error());
    if (file.find_tensor(t->name)) return fail(ErrorCode::InvalidArgument, path + ": duplicate tensor " + t->name);
    file.tensors.push_back(std::move(*t));
  }
  if (const Value* a = file.find("general.alignment")) {
    if (a->type != ValueType::U32) return fail(ErrorCode::InvalidArgument, path + ": general.alignment is not a u32");
    const uint32_t alignment = std::get<uint32_t>(a->scalar);
    if (alignment == 0 || (alignment & (alignment - 1)) != 0) {
      return fail(ErrorCode::InvalidArgument, fmt::format("{}: general.alignment {} is not a power of two", path, alignment));
    }
    file.alignment_bytes = alignment;
  }
  file.data_offset_bytes = align_up(r.position(), file.alignment_bytes);
  if (std::fseek(f.get(), 0, SEEK_END) != 0) return fail(ErrorCode::Io, "cannot seek in " + path);
  file.file_size_bytes = static_cast<uint64_t>(std::ftell(f.get()));

  // Tensors must be aligned, inside the file, and must not overlap.
  std::vector<const TensorInfo*> by_offset;
  for (const auto& t : file.tensors) by_offset.push_back(&t);
  std::sort(by_offset.begin(), by_offset.end(),
            [](const TensorInfo* a, const TensorInfo* b) { return a->offset_bytes < b->offset_bytes; });
  uint64_t end = 0;
  for (const TensorInfo* t : by_offset) {
    if (t->offset_bytes % file.alignment_bytes != 0) {
      return fail(ErrorCode::InvalidArgument, fmt::format("{}: tensor {} at offset {} is not aligned to {}", path,
                                                          t->name, t->offset_bytes, file.alignment_bytes));
    }
    if (t->offset_bytes < end) {
      return fail(ErrorCode::InvalidArgument, fmt::format("{}: tensor {} overlaps the one before it", path, t->name));
    }
    end = t->offset_bytes + t->size_bytes();
    if (file.data_offset_bytes + end > file.file_size_bytes) {
      return fail(ErrorCode::InvalidArgument, fmt::format("{}: tensor {} ends past the end of the file", path, t->name));
    }
  }
  return file;
}

Result<std::vector<std::byte>> read_tensor_data(const std::string& path, const GgufFile& file,
                                                const TensorInfo& tensor) {
  FilePtr f(std::fopen(path.c_str(), "rb"));
  if (!f) return fail(ErrorCode::Io, "cannot open " + path + ": " + std::strerror(errno));
  const uint64_t start = file.data_offset_bytes + tensor.offset_bytes;
  if (std::fseek(f.get(), static_cast<long>(start), SEEK_SET) != 0) {
    return fail(ErrorCode::Io, fmt::format("cannot seek to byte {} of {}", start, path));
  }
  std::vector<std::byte> data(tensor.size_bytes());
  if (std::fread(data.data(), 1, data.size(), f.get()) != data.size()) {
    return fail(ErrorCode::InvalidArgument, fmt::format("{}: tensor {} is truncated", path, tensor.name));
  }
  return data;
}

}  // namespace sm::gguf
