#include "bench/progress.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

namespace sm {

ProgressLine::ProgressLine(std::FILE* out, bool enabled, bool color, const Clock& clock)
    : out_(out), enabled_(enabled), color_(color), clock_(clock) {}

ProgressLine::~ProgressLine() { clear(); }

void ProgressLine::set_plan(int64_t total_units, int64_t decode_cells, double decode_duration_s) {
  total_ = total_units;
  decode_left_ = decode_cells;
  decode_duration_s_ = decode_duration_s;
}

void ProgressLine::begin(const std::string& label, bool is_decode) {
  label_ = label;
  current_is_decode_ = is_decode;
  unit_start_ns_ = clock_.now_ns();
  draw();
}

void ProgressLine::end() {
  const double spent_s = static_cast<double>(clock_.now_ns() - unit_start_ns_) / 1e9;
  if (current_is_decode_) {
    overhead_s_sum_ += std::max(0.0, spent_s - decode_duration_s_);
    ++overhead_samples_;
    --decode_left_;
  }
  ++done_;
}

void ProgressLine::tick() {
  if (!enabled_) return;
  if (clock_.now_ns() - last_draw_ns_ >= 250 * kNsPerMs) draw();
}

std::string ProgressLine::format_eta(double s) {
  if (!std::isfinite(s) || s < 0) return "?";
  int64_t total = static_cast<int64_t>(std::llround(s));
  if (total >= 3600) return fmt::format("{}h{:02}m", total / 3600, (total % 3600) / 60);
  if (total >= 60) return fmt::format("{}m{:02}s", total / 60, total % 60);
  return fmt::format("{}s", total);
}

void ProgressLine::draw() {
  if (!enabled_) return;
  last_draw_ns_ = clock_.now_ns();
  const double overhead_s = overhead_samples_ > 0 ? overhead_s_sum_ / static_cast<double>(overhead_samples_) : 2.0;
  double eta_s = static_cast<double>(decode_left_) * (decode_duration_s_ + overhead_s);
  if (current_is_decode_) {
    const double elapsed_s = static_cast<double>(clock_.now_ns() - unit_start_ns_) / 1e9;
    eta_s -= std::min(elapsed_s, decode_duration_s_ + overhead_s);
  }
  std::string text = fmt::format("[{}/{}] {}  ETA {}", done_ + 1 > total_ ? total_ : done_ + 1, total_, label_,
                                 format_eta(eta_s));
  if (detail_) text += detail_();
  if (color_) text = "\x1b[36m" + text + "\x1b[0m";
  std::fprintf(out_, "\r\x1b[2K%s", text.c_str());
  std::fflush(out_);
  drawn_ = true;
}

void ProgressLine::clear() {
  if (enabled_ && drawn_) {
    std::fprintf(out_, "\r\x1b[2K");
    std::fflush(out_);
    drawn_ = false;
  }
}

}  // namespace sm
