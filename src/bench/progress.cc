#include "bench/progress.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include "result/plan.h"

namespace sm {

ProgressLine::ProgressLine(std::FILE* out, bool enabled, bool color, const Clock& clock, std::FILE* lines_out)
    : out_(out), lines_out_(lines_out), enabled_(enabled), color_(color), clock_(clock) {}

ProgressLine::~ProgressLine() { clear(); }

void ProgressLine::set_plan(int64_t total_units, int64_t decode_cells, double decode_duration_s) {
  total_ = total_units;
  decode_left_ = decode_cells;
  prefill_left_ = total_units - decode_cells;
  decode_duration_s_ = decode_duration_s;
  planned_ = true;
}

void ProgressLine::begin(const std::string& label, bool is_decode) {
  label_ = label;
  current_is_decode_ = is_decode;
  in_unit_ = true;
  unit_start_ns_ = clock_.now_ns();
  draw();
}

void ProgressLine::end() {
  in_unit_ = false;
  const double spent_s = static_cast<double>(clock_.now_ns() - unit_start_ns_) / 1e9;
  if (current_is_decode_) {
    overhead_s_sum_ += std::max(0.0, spent_s - decode_duration_s_);
    ++overhead_samples_;
    --decode_left_;
  } else {
    --prefill_left_;
  }
  ++done_;
}

void ProgressLine::finished(const std::string& summary) {
  if (!lines_out_) return;
  std::fprintf(lines_out_, "speedmatrix: [%lld/%lld] %s (ETA %s)\n", static_cast<long long>(std::min(done_, total_)),
               static_cast<long long>(total_), summary.c_str(), format_eta(eta_s()).c_str());
  std::fflush(lines_out_);
}

// The plan's estimate at first (estimated_seconds: a window plus the overhead per decode cell,
// kPrefillRowEstimateS per prefill row), then the overhead the finished cells really had.
double ProgressLine::eta_s() const {
  const double overhead_s = overhead_samples_ > 0 ? overhead_s_sum_ / static_cast<double>(overhead_samples_)
                                                  : kDecodeCellOverheadEstimateS;
  double eta = static_cast<double>(decode_left_) * (decode_duration_s_ + overhead_s) +
               static_cast<double>(std::max<int64_t>(0, prefill_left_)) * kPrefillRowEstimateS;
  if (in_unit_ && current_is_decode_) {
    const double elapsed_s = static_cast<double>(clock_.now_ns() - unit_start_ns_) / 1e9;
    eta -= std::min(elapsed_s, decode_duration_s_ + overhead_s);
  }
  return std::max(0.0, eta);
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
  if (!enabled_ || !planned_ || total_ <= 0) return;  // no "[0/0] ETA 0s" before the plan is known
  last_draw_ns_ = clock_.now_ns();
  std::string text = fmt::format("[{}/{}] {}  ETA {}", done_ + 1 > total_ ? total_ : done_ + 1, total_, label_,
                                 format_eta(eta_s()));
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
