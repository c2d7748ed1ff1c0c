#include "gguf/gguf_writer.h"

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <string>

#include "gguf/gguf_reader.h"
#include "support/temp_dir.h"

namespace sm::gguf {
namespace {

// Reads the raw file independently of GgufReader, to pin the byte layout down.
class RawCursor {
 public:
  explicit RawCursor(const std::string& bytes) : bytes_(bytes) {}
  template <class T>
  T get() {
    T v{};
    EXPECT_LE(pos_ + sizeof v, bytes_.size());
    std::memcpy(&v, bytes_.data() + pos_, sizeof v);
    pos_ += sizeof v;
    return v;
  }
  std::string str() {
    const auto n = get<uint64_t>();
    std::string s = bytes_.substr(pos_, n);
    pos_ += n;
    return s;
  }
  size_t pos() const { return pos_; }

 private:
  const std::string& bytes_;
  size_t pos_ = 0;
};

void fill_pattern(size_t index, const TensorInfo&, std::span<std::byte> out) {
  for (size_t i = 0; i < out.size(); ++i) out[i] = static_cast<std::byte>((index * 31 + i) & 0xff);
}

TEST(GgufWriter, ByteLayout) {
  test::TempDir dir;
  GgufWriter w;
  w.add("general.architecture", Value::string("llama"));
  w.add("general.alignment", Value::u32(32));
  w.add("a.f32", Value::f32(1.5f));
  w.add("a.bool", Value::boolean(true));
  w.add("a.tokens", Value::string_array({"x", "yz"}));
  w.add("a.types", Value::i32_array({1, -3}));
  w.add("a.u64", Value::u64(1ull << 40));
  w.add_tensor("t0", {3}, TensorType::F32);             // 12 bytes at 0
  w.add_tensor("t1", {32, 2}, TensorType::Q8_0);        // 68 bytes at 32
  w.add_tensor("t2", {5, 2}, TensorType::F16);          // 20 bytes at 128
  EXPECT_EQ(w.tensors()[1].offset_bytes, 32u);
  EXPECT_EQ(w.tensors()[2].offset_bytes, 128u);
  EXPECT_EQ(w.data_size_bytes(), 148u);
  const std::string path = dir.file("m.gguf");
  ASSERT_TRUE(w.write(path, fill_pattern).has_value());
  EXPECT_FALSE(std::filesystem::exists(path + ".tmp"));

  const std::string bytes = test::read_file(path);
  RawCursor c(bytes);
  EXPECT_EQ(bytes.substr(0, 4), "GGUF");
  EXPECT_EQ(c.get<uint32_t>(), kMagic);
  EXPECT_EQ(c.get<uint32_t>(), 3u);
  EXPECT_EQ(c.get<uint64_t>(), 3u);  // tensors
  EXPECT_EQ(c.get<uint64_t>(), 7u);  // metadata pairs
  EXPECT_EQ(c.str(), "general.architecture");
  EXPECT_EQ(c.get<uint32_t>(), 8u);  // string
  EXPECT_EQ(c.str(), "llama");
  EXPECT_EQ(c.str(), "general.alignment");
  EXPECT_EQ(c.get<uint32_t>(), 4u);  // u32
  EXPECT_EQ(c.get<uint32_t>(), 32u);
  EXPECT_EQ(c.str(), "a.f32");
  EXPECT_EQ(c.get<uint32_t>(), 6u);
  EXPECT_EQ(c.get<float>(), 1.5f);
  EXPECT_EQ(c.str(), "a.bool");
  EXPECT_EQ(c.get<uint32_t>(), 7u);
  EXPECT_EQ(c.get<uint8_t>(), 1u);  // bools are one byte
  EXPECT_EQ(c.str(), "a.tokens");
  EXPECT_EQ(c.get<uint32_t>(), 9u);  // array
  EXPECT_EQ(c.get<uint32_t>(), 8u);  // of strings
  EXPECT_EQ(c.get<uint64_t>(), 2u);
  EXPECT_EQ(c.str(), "x");
  EXPECT_EQ(c.str(), "yz");
  EXPECT_EQ(c.str(), "a.types");
  EXPECT_EQ(c.get<uint32_t>(), 9u);
  EXPECT_EQ(c.get<uint32_t>(), 5u);  // of i32
  EXPECT_EQ(c.get<uint64_t>(), 2u);
  EXPECT_EQ(c.get<int32_t>(), 1);
  EXPECT_EQ(c.get<int32_t>(), -3);
  EXPECT_EQ(c.str(), "a.u64");
  EXPECT_EQ(c.get<uint32_t>(), 10u);
  EXPECT_EQ(c.get<uint64_t>(), 1ull << 40);
  // Tensor infos: name, n_dims, dims (innermost first), type, offset.
  EXPECT_EQ(c.str(), "t0");
  EXPECT_EQ(c.get<uint32_t>(), 1u);
  EXPECT_EQ(c.get<uint64_t>(), 3u);
  EXPECT_EQ(c.get<uint32_t>(), 0u);  // f32
  EXPECT_EQ(c.get<uint64_t>(), 0u);
  EXPECT_EQ(c.str(), "t1");
  EXPECT_EQ(c.get<uint32_t>(), 2u);
  EXPECT_EQ(c.get<uint64_t>(), 32u);
  EXPECT_EQ(c.get<uint64_t>(), 2u);
  EXPECT_EQ(c.get<uint32_t>(), 8u);  // q8_0
  EXPECT_EQ(c.get<uint64_t>(), 32u);
  EXPECT_EQ(c.str(), "t2");
  EXPECT_EQ(c.get<uint32_t>(), 2u);
  EXPECT_EQ(c.get<uint64_t>(), 5u);
  EXPECT_EQ(c.get<uint64_t>(), 2u);
  EXPECT_EQ(c.get<uint32_t>(), 1u);  // f16
  EXPECT_EQ(c.get<uint64_t>(), 128u);
  EXPECT_EQ(c.pos(), w.header_bytes().size());

  // The data section starts at the next multiple of 32; padding is zero.
  const size_t data = (c.pos() + 31) / 32 * 32;
  for (size_t i = c.pos(); i < data; ++i) EXPECT_EQ(bytes[i], '\0');
  EXPECT_EQ(static_cast<unsigned char>(bytes[data + 0]), 0u);   // t0, index 0: pattern starts at 0
  EXPECT_EQ(static_cast<unsigned char>(bytes[data + 11]), 11u);
  EXPECT_EQ(bytes[data + 12], '\0');                           // padding after t0
  EXPECT_EQ(static_cast<unsigned char>(bytes[data + 32]), 31u);  // t1, index 1
  EXPECT_EQ(static_cast<unsigned char>(bytes[data + 128]), 62u);  // t2, index 2
  EXPECT_EQ(bytes.size(), data + 160);  // the file ends aligned too
}

TEST(GgufWriter, RoundTripThroughReader) {
  test::TempDir dir;
  GgufWriter w;
  w.add("general.alignment", Value::u32(32));
  w.add("k.str", Value::string("hello"));
  w.add("k.i32", Value::i32(-7));
  w.add("k.empty", Value::string_array({}));
  w.add_tensor("a", {64}, TensorType::F32);
  w.add_tensor("b", {32, 3}, TensorType::Q8_0);
  const std::string path = dir.file("m.gguf");
  ASSERT_TRUE(w.write(path, fill_pattern).has_value());

  auto f = read_gguf(path);
  ASSERT_TRUE(f.has_value()) << f.error().message;
  EXPECT_EQ(f->version, 3u);
  EXPECT_EQ(f->alignment_bytes, 32u);
  EXPECT_EQ(f->data_offset_bytes % 32, 0u);
  ASSERT_EQ(f->metadata.size(), 4u);
  EXPECT_EQ(f->get_string("k.str"), "hello");
  EXPECT_EQ(std::get<int32_t>(f->find("k.i32")->scalar), -7);
  EXPECT_EQ(f->find("k.empty")->type, ValueType::Array);
  EXPECT_EQ(f->find("k.empty")->element_type, ValueType::String);
  EXPECT_TRUE(f->find("k.empty")->elements.empty());
  EXPECT_EQ(f->get_uint("general.alignment"), 32u);
  EXPECT_FALSE(f->get_uint("k.str").has_value());
  EXPECT_EQ(f->find("nope"), nullptr);
  ASSERT_EQ(f->tensors.size(), 2u);
  const TensorInfo* b = f->find_tensor("b");
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->dims, (std::vector<uint64_t>{32, 3}));
  EXPECT_EQ(b->type, TensorType::Q8_0);
  EXPECT_EQ(b->offset_bytes, 256u);
  auto data = read_tensor_data(path, *f, *b);
  ASSERT_TRUE(data.has_value());
  ASSERT_EQ(data->size(), 102u);
  EXPECT_EQ((*data)[0], std::byte{31});
  EXPECT_EQ((*data)[101], std::byte{(31 + 101) & 0xff});
}

TEST(GgufWriter, UnwritablePathIsAnIoError) {
  GgufWriter w;
  w.add_tensor("a", {4}, TensorType::F32);
  auto ok = w.write("/nonexistent-dir/m.gguf", fill_pattern);
  ASSERT_FALSE(ok.has_value());
  EXPECT_EQ(ok.error().code, ErrorCode::Io);
  EXPECT_NE(ok.error().message.find("/nonexistent-dir/m.gguf"), std::string::npos);
}

}  // namespace
}  // namespace sm::gguf
