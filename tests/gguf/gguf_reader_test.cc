#include "gguf/gguf_reader.h"

#include <gtest/gtest.h>

#include <cstring>
#include <fstream>

#include "gguf/gguf_writer.h"
#include "support/temp_dir.h"

namespace sm::gguf {
namespace {

void zeros(size_t, const TensorInfo&, std::span<std::byte> out) { std::memset(out.data(), 0, out.size()); }

void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

// A valid file with two tensors, as bytes, for the tests to corrupt.
std::string valid_file(const test::TempDir& dir) {
  GgufWriter w;
  w.add("general.alignment", Value::u32(32));
  w.add_tensor("a", {8}, TensorType::F32);
  w.add_tensor("b", {8}, TensorType::F32);
  const std::string path = dir.file("valid.gguf");
  EXPECT_TRUE(w.write(path, zeros).has_value());
  return test::read_file(path);
}

// Offset of the u64 offset field of the last tensor info: the header ends with it.
size_t last_offset_field(const std::string& bytes, const std::string& header_end_marker) {
  return bytes.find(header_end_marker) + header_end_marker.size() + 4 + 8 + 4;
}

std::string error_of(const std::string& path) {
  auto f = read_gguf(path);
  EXPECT_FALSE(f.has_value());
  return f ? std::string() : f.error().message;
}

TEST(GgufReader, ValidFile) {
  test::TempDir dir;
  const std::string bytes = valid_file(dir);
  auto f = read_gguf(dir.file("valid.gguf"));
  ASSERT_TRUE(f.has_value()) << f.error().message;
  EXPECT_EQ(f->tensors.size(), 2u);
  EXPECT_EQ(f->tensors[1].offset_bytes, 32u);
  EXPECT_EQ(f->file_size_bytes, bytes.size());
}

TEST(GgufReader, Errors) {
  test::TempDir dir;
  const std::string good = valid_file(dir);
  const std::string path = dir.file("bad.gguf");

  EXPECT_EQ(read_gguf(dir.file("missing.gguf")).error().code, ErrorCode::Io);

  std::string bad = good;
  bad[0] = 'X';
  write_bytes(path, bad);
  EXPECT_NE(error_of(path).find("bad magic"), std::string::npos);

  bad = good;
  bad[4] = 2;  // version 2
  write_bytes(path, bad);
  EXPECT_NE(error_of(path).find("version 2"), std::string::npos);

  write_bytes(path, good.substr(0, 30));
  EXPECT_NE(error_of(path).find("truncated"), std::string::npos);

  // Tensor b moved to offset 16: not aligned to 32.
  bad = good;
  const size_t field = last_offset_field(bad, std::string("\x01\x00\x00\x00\x00\x00\x00\x00" "b", 9));
  const uint64_t misaligned = 16;
  std::memcpy(bad.data() + field, &misaligned, 8);
  write_bytes(path, bad);
  EXPECT_NE(error_of(path).find("not aligned"), std::string::npos);

  // Tensor b moved past the end of the file.
  const uint64_t far = 1024;
  std::memcpy(bad.data() + field, &far, 8);
  write_bytes(path, bad);
  EXPECT_NE(error_of(path).find("past the end"), std::string::npos);

  // Tensor b on top of tensor a.
  const uint64_t overlap = 0;
  std::memcpy(bad.data() + field, &overlap, 8);
  write_bytes(path, bad);
  EXPECT_NE(error_of(path).find("overlaps"), std::string::npos);

  // Unknown tensor type (q4_0 = 2 is not read).
  bad = good;
  const uint32_t q4_0 = 2;
  std::memcpy(bad.data() + field - 4, &q4_0, 4);
  write_bytes(path, bad);
  EXPECT_NE(error_of(path).find("type 2"), std::string::npos);
}

}  // namespace
}  // namespace sm::gguf
