#include "report/terminal.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fmt/format.h>

namespace sm::report {

namespace {
constexpr int kDefaultWidth = 100;
constexpr int kNarrowest = 40;
}  // namespace

Result<ColorMode> parse_color_mode(std::string_view text) {
  if (text == "auto") return ColorMode::Auto;
  if (text == "always") return ColorMode::Always;
  if (text == "never") return ColorMode::Never;
  return fail(ErrorCode::InvalidArgument, fmt::format("--color must be auto, always or never, not '{}'", text));
}

bool stdout_wants_color(ColorMode mode) {
  if (mode != ColorMode::Auto) return mode == ColorMode::Always;
  const char* no_color = std::getenv("NO_COLOR");
  if (no_color && *no_color) return false;
  return ::isatty(STDOUT_FILENO) == 1;
}

int stdout_width_columns() {
  winsize ws{};
  if (::isatty(STDOUT_FILENO) == 1 && ::ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
    return std::clamp(static_cast<int>(ws.ws_col), kNarrowest, kDefaultWidth);
  return kDefaultWidth;
}

}  // namespace sm::report
