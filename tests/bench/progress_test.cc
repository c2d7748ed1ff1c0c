// The progress line: nothing before the plan is known, an ETA from the plan at once, and one
// line per finished unit when the output is not a terminal.
#include "bench/progress.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>

namespace sm {
namespace {

// A FILE* whose contents the test reads back.
class MemoryFile {
 public:
  MemoryFile() : file_(open_memstream(&data_, &size_)) {}
  ~MemoryFile() {
    std::fclose(file_);
    std::free(data_);
  }
  std::FILE* get() { return file_; }
  std::string text() {
    std::fflush(file_);
    return std::string(data_, size_);
  }

 private:
  char* data_ = nullptr;
  size_t size_ = 0;
  std::FILE* file_;
};

TEST(Progress, DrawsNothingBeforeThePlanThenAnEtaFromIt) {
  ManualClock clock;
  MemoryFile out;
  ProgressLine line(out.get(), true, false, clock);
  line.begin("calibration", false);
  line.tick();
  EXPECT_EQ(out.text(), "") << "no [0/0] ETA 0s flash before the plan";

  // 1 prefill row + 2 decode cells of 10 s: 2 × (10 + 2) + 1 = 25 s before anything finished.
  line.set_plan(3, 2, 10.0);
  line.begin("prefill 8K", false);
  EXPECT_NE(out.text().find("[1/3] prefill 8K  ETA 25s"), std::string::npos) << out.text();
  clock.advance_ns(1 * kNsPerS);
  line.end();
  line.begin("decode 0 x 1", true);
  EXPECT_NE(out.text().find("[2/3] decode 0 x 1  ETA 24s"), std::string::npos) << out.text();
  clock.advance_ns(4 * kNsPerS);
  line.tick();
  EXPECT_NE(out.text().find("[2/3] decode 0 x 1  ETA 20s"), std::string::npos) << out.text();
}

TEST(Progress, OneLinePerFinishedUnitWhenNotATerminal) {
  ManualClock clock;
  MemoryFile tty, log;
  ProgressLine line(tty.get(), false, false, clock, log.get());
  line.set_plan(2, 2, 5.0);
  line.begin("decode 0 x 1", true);
  clock.advance_ns(8 * kNsPerS);  // a 5 s window + 3 s of warm-up and idle wait
  line.end();
  line.finished("decode 0 x 1: 100.0 tok/s");
  line.begin("decode 0 x 2", true);
  line.tick();
  EXPECT_EQ(tty.text(), "");
  // The remaining cell's ETA uses the overhead the first really had: 5 + 3 s.
  EXPECT_EQ(log.text(), "speedmatrix: [1/2] decode 0 x 1: 100.0 tok/s (ETA 8s)\n");
}

}  // namespace
}  // namespace sm
