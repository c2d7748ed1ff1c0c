#pragma once
// What the terminal the CLI prints to can show: colour (not for pipes, not under NO_COLOR) and
// its width.
#include <string_view>

#include "core/error.h"

namespace sm::report {

/// --color: auto (a terminal without NO_COLOR), always, never.
enum class ColorMode { Auto, Always, Never };

/// Parses "auto", "always", "never".
Result<ColorMode> parse_color_mode(std::string_view text);

/// Whether to print colour to stdout: Auto means stdout is a terminal and NO_COLOR is unset or empty.
bool stdout_wants_color(ColorMode mode);

/// Columns to lay text out in: the terminal's width capped at 100 when stdout is a terminal, else 100.
int stdout_width_columns();

}  // namespace sm::report
