#pragma once
// Small readers for kernel attribute files (sysfs, procfs) under an injectable root: "/" in a
// run, a fixture tree in tests. Every reader says "absent" (empty, std::nullopt) for a file that
// does not exist, cannot be read or does not hold what it should; none of them throws.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace sm::sysfs {

/// The start of a small file into `buf` (at most buf.size() bytes); empty when it cannot be read.
/// No allocation, for readers that run on every telemetry sample.
std::string_view read_head(const std::filesystem::path& file, std::span<char> buf);

/// A whole small file's text with blanks and line ends trimmed at both ends ("" when unreadable).
std::string read_text(const std::filesystem::path& file);

/// The first line of a file, trailing blanks and line ends removed ("" when unreadable).
std::string first_line(const std::filesystem::path& file);

/// A file holding one decimal integer (optionally followed by blanks or a line end), e.g.
/// "350000000\n"; std::nullopt when unreadable or not a number. No allocation.
std::optional<int64_t> read_int(const std::filesystem::path& file);

/// `text` without blanks, tabs and line ends at either end.
std::string_view trim(std::string_view text);

/// Calls f(line) for each line of `text`, without its '\n' (a last line without one too).
template <class F>
void for_each_line(std::string_view text, F&& f) {
  size_t pos = 0;
  while (pos < text.size()) {
    const size_t eol = text.find('\n', pos);
    f(text.substr(pos, eol == std::string_view::npos ? text.npos : eol - pos));
    if (eol == std::string_view::npos) break;
    pos = eol + 1;
  }
}

/// The value of `key` in KEY=VALUE lines (a device's `uevent`); "" when absent.
std::string_view key_value(std::string_view lines, std::string_view key);

/// N when `name` is prefix + N + suffix with N all digits: ("card12", "card") -> 12; std::nullopt
/// otherwise ("card0-DP-1").
std::optional<long> number_in(std::string_view name, std::string_view prefix, std::string_view suffix = "");

/// The entries of `dir` named prefix + N + suffix, sorted by N (cpu2 before cpu10); empty when
/// the directory cannot be listed.
std::vector<std::pair<long, std::filesystem::path>> numbered_entries(const std::filesystem::path& dir,
                                                                      std::string_view prefix,
                                                                      std::string_view suffix = "");

}  // namespace sm::sysfs
