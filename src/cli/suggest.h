#pragma once
// "Did you mean ...?": the closest known name to a mistyped command or flag.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sm::cli {

/// Edit distance between two strings: insertions, deletions, substitutions and swaps of two
/// neighbouring characters ("rnu" is one edit from "run").
size_t edit_distance(std::string_view a, std::string_view b);

/// The name in `known` closest to `given`: a name `given` is a prefix of, or one within an edit
/// distance of a third of its length (at least 1, at most 3). Nothing when none is that close.
std::optional<std::string> closest_name(std::string_view given, const std::vector<std::string>& known);

}  // namespace sm::cli
