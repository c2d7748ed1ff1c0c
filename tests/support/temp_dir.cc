#include "support/temp_dir.h"

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <system_error>

namespace sm::test {

TempDir::TempDir() {
  std::string templ = (std::filesystem::temp_directory_path() / "speedmatrix-test-XXXXXX").string();
  if (char* p = mkdtemp(templ.data())) path_ = p;
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace sm::test
