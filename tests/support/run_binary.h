#pragma once
// Runs the speedmatrix binary under test (SPEEDMATRIX_BINARY) through the shell and collects what
// it printed, for tests of the command line as a user meets it.
#include <string>

namespace sm::test {

struct BinaryOutcome {
  int exit_code = -1;   ///< -1 when it did not exit normally (or could not start)
  std::string output;   ///< stdout, and stderr too unless `args` redirects it
};

/// `speedmatrix ARGS 2>&1` (ARGS is shell text: quote what needs it); waits for it to end.
BinaryOutcome run_binary(const std::string& args);
/// The same with stderr left out of the output (it goes to the test's own stderr).
BinaryOutcome run_binary_stdout(const std::string& args);

/// run_binary in the folder `dir` (what it writes under runs/ goes there).
BinaryOutcome run_binary_in(const std::string& dir, const std::string& args);

}  // namespace sm::test
