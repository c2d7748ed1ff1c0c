#pragma once
// The live progress line: current row or cell, done/total, ETA. It only draws when its stream is
// a terminal, redraws at most a few times a second, and always leaves the line clean. When the
// output is not a terminal (a log, CI, nohup), it writes one line per finished row or cell to
// `lines_out` instead, so progress still shows.
#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>

#include "core/clock.h"

namespace sm {

class ProgressLine {
 public:
  /// Draws on `out` only when `enabled` (caller decides: a tty and not --quiet). `lines_out`
  /// (null: none) gets a line per finished unit (caller decides: not a tty and not --quiet).
  ProgressLine(std::FILE* out, bool enabled, bool color, const Clock& clock, std::FILE* lines_out = nullptr);
  ~ProgressLine();

  /// Sets the total number of rows and cells that will run, and the seconds each decode cell
  /// is measured for (for the ETA). Nothing is drawn before the plan is known.
  void set_plan(int64_t total_units, int64_t decode_cells, double decode_duration_s);
  /// A unit (prefill row or decode cell) starts; `label` like "decode 16K x 8".
  void begin(const std::string& label, bool is_decode);
  /// The current unit finished.
  void end();
  /// A finished unit's one-line summary ("decode 16K x 8: 1,081.0 tok/s"): a line on `lines_out`.
  void finished(const std::string& summary);
  /// Redraws if enough time passed (call often; cheap).
  void tick();
  /// Erases the line (before printing anything else).
  void clear();
  /// Text appended to the line at each draw (the GPUs' live power and clock).
  void set_detail(std::function<std::string()> detail) { detail_ = std::move(detail); }

  /// "1h02m", "4m05s", "12s".
  static std::string format_eta(double seconds);

 private:
  void draw();

  double eta_s() const;

  std::FILE* out_;
  std::FILE* lines_out_;
  bool enabled_;
  bool color_;
  const Clock& clock_;
  int64_t total_ = 0;
  int64_t done_ = 0;
  int64_t decode_left_ = 0;
  int64_t prefill_left_ = 0;
  bool planned_ = false;
  double decode_duration_s_ = 0;
  double overhead_s_sum_ = 0;   ///< time beyond the window spent in finished units
  int64_t overhead_samples_ = 0;
  std::string label_;
  bool current_is_decode_ = false;
  bool in_unit_ = false;  ///< between begin() and end()
  int64_t unit_start_ns_ = 0;
  int64_t last_draw_ns_ = 0;
  bool drawn_ = false;
  std::function<std::string()> detail_;
};

}  // namespace sm
