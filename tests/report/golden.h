#pragma once
// Golden files: a printer's output compared with tests/golden/<name>. With
// SPEEDMATRIX_UPDATE_GOLDEN=1 in the environment the file is rewritten instead (then review the
// diff and commit it). Header-only: tests/CMakeLists.txt compiles only *_test.cc files here.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "result/result.h"
#include "result/result_json.h"
#include "support/temp_dir.h"

namespace sm::test {

/// The source tree's path of a file under tests/ (e.g. "fixtures/seed-rtx3090-qwen3.5-4b.json").
inline std::string tests_path(const std::string& relative) {
  return std::string(SPEEDMATRIX_SOURCE_DIR) + "/tests/" + relative;
}

namespace detail {
inline RunResult load(const std::string& name) {
  auto r = read_result_file(tests_path("fixtures/" + name));
  if (!r) {
    ADD_FAILURE() << r.error().message;
    return {};
  }
  return *r;
}
}  // namespace detail

/// The seed page's numbers as a RunResult.
inline RunResult seed_fixture() { return detail::load("seed-rtx3090-qwen3.5-4b.json"); }

/// A made-up second run of the seed setup with every status and warning.
inline RunResult variant_fixture() { return detail::load("variant-rtx3090-qwen3.5-4b.json"); }

/// A run folder with telemetry (made-up figures around the seed's numbers, 10 s cells, every
/// throttle case the report names) and its telemetry.jsonl beside it.
inline std::string telemetry_run_dir() { return tests_path("fixtures/telemetry-run"); }
inline RunResult telemetry_fixture() { return detail::load("telemetry-run/result.json"); }

/// Checks `actual` against tests/golden/<name>; a failure names the first differing line.
inline void expect_golden(const std::string& name, const std::string& actual) {
  std::string path = tests_path("golden/" + name);
  const char* update = std::getenv("SPEEDMATRIX_UPDATE_GOLDEN");
  if (update && std::string(update) == "1") {
    std::ofstream(path, std::ios::binary) << actual;
    return;
  }
  std::string expected = read_file(path);
  if (expected == actual) return;
  std::istringstream e(expected), a(actual);
  std::string el, al;
  int line = 0;
  while (true) {
    ++line;
    bool more_e = static_cast<bool>(std::getline(e, el));
    bool more_a = static_cast<bool>(std::getline(a, al));
    if (!more_e && !more_a) break;
    if (!more_e || !more_a || el != al) {
      ADD_FAILURE() << "golden file tests/golden/" << name << " differs at line " << line << "\n  expected: "
                    << (more_e ? el : "<end of file>") << "\n  actual:   " << (more_a ? al : "<end of output>")
                    << "\nRegenerate with SPEEDMATRIX_UPDATE_GOLDEN=1 if the change is intended.";
      return;
    }
  }
  ADD_FAILURE() << "golden file tests/golden/" << name << " differs (line endings?)";
}

}  // namespace sm::test
