#include "support/run_binary.h"

#include <sys/wait.h>

#include <array>
#include <cstdio>

namespace sm::test {

namespace {

BinaryOutcome run_shell(const std::string& command) {
  BinaryOutcome o;
  std::FILE* p = popen(command.c_str(), "r");
  if (!p) return o;
  std::array<char, 4096> buf;
  size_t n = 0;
  while ((n = std::fread(buf.data(), 1, buf.size(), p)) > 0) o.output.append(buf.data(), n);
  const int status = pclose(p);
  o.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return o;
}

}  // namespace

BinaryOutcome run_binary(const std::string& args) {
  return run_shell(std::string(SPEEDMATRIX_BINARY) + " " + args + " 2>&1");
}

BinaryOutcome run_binary_in(const std::string& dir, const std::string& args) {
  return run_shell("cd '" + dir + "' && " + std::string(SPEEDMATRIX_BINARY) + " " + args + " 2>&1");
}

BinaryOutcome run_binary_stdout(const std::string& args) {
  return run_shell(std::string(SPEEDMATRIX_BINARY) + " " + args);
}

}  // namespace sm::test
