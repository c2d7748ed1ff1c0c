#pragma once
// A temporary folder removed at the end of the test.
#include <filesystem>
#include <string>

namespace sm::test {

class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }
  std::string file(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

/// Reads a whole file; empty when it cannot be read.
std::string read_file(const std::filesystem::path& path);

}  // namespace sm::test
