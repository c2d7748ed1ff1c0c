#include "report/cell_noise.h"

#include <algorithm>
#include <cmath>

#include "report/cell_format.h"

namespace sm::report {

std::optional<double> CellNoise::relative() const {
  if (within && between) return std::max(*within, *between);
  return within ? within : between;
}

bool CellNoise::shown() const {
  auto r = relative();
  return r && *r > kShowNoiseAbove;
}

std::optional<double> half_range(const std::vector<double>& passes) {
  std::optional<double> lo, hi;
  int n = 0;
  for (double v : passes) {
    if (!std::isfinite(v)) continue;
    lo = lo ? std::min(*lo, v) : v;
    hi = hi ? std::max(*hi, v) : v;
    ++n;
  }
  if (n < 2) return std::nullopt;
  return (*hi - *lo) / 2;
}

namespace {

std::optional<double> relative_to(std::optional<double> half_width, std::optional<double> value) {
  if (!half_width || !value || !std::isfinite(*half_width) || !std::isfinite(*value) || !(*value > 0))
    return std::nullopt;
  return *half_width / *value;
}

}  // namespace

CellNoise decode_noise(const DecodeCell& cell) {
  return {relative_to(cell.total_tok_s_ci, cell.total_tok_s), relative_to(half_range(cell.repeat_tok_s), cell.total_tok_s)};
}

CellNoise prefill_noise(const PrefillRow& row) {
  return {std::nullopt, relative_to(half_range(row.repeat_prompt_tok_s), row.prompt_tok_s)};
}

std::string format_tok_s_noise_always(std::optional<double> value, const CellNoise& noise) {
  auto r = noise.relative();
  if (!value || !r) return format_tok_s(value);
  return format_tok_s_ci(value, *r * *value);
}

std::string format_tok_s_noise(std::optional<double> value, const CellNoise& noise) {
  return noise.shown() ? format_tok_s_noise_always(value, noise) : format_tok_s(value);
}

}  // namespace sm::report
