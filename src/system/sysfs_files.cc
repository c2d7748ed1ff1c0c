#include "system/sysfs_files.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <fstream>
#include <sstream>
#include <system_error>

namespace sm::sysfs {

namespace fs = std::filesystem;

std::string_view read_head(const fs::path& file, std::span<char> buf) {
  const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return {};
  const ssize_t n = ::read(fd, buf.data(), buf.size());
  ::close(fd);
  return n > 0 ? std::string_view(buf.data(), static_cast<size_t>(n)) : std::string_view{};
}

std::string_view trim(std::string_view text) {
  constexpr std::string_view kBlanks = " \t\r\n";
  const size_t begin = text.find_first_not_of(kBlanks);
  if (begin == std::string_view::npos) return {};
  return text.substr(begin, text.find_last_not_of(kBlanks) - begin + 1);
}

std::string read_text(const fs::path& file) {
  std::ifstream in(file);
  if (!in) return {};
  std::stringstream ss;
  ss << in.rdbuf();
  return std::string(trim(ss.str()));
}

std::string first_line(const fs::path& file) {
  std::ifstream in(file);
  std::string line;
  std::getline(in, line);
  while (!line.empty() && (line.back() == '\n' || line.back() == '\r' || line.back() == ' ')) line.pop_back();
  return line;
}

std::optional<int64_t> read_int(const fs::path& file) {
  char buf[64];
  const std::string_view text = trim(read_head(file, buf));
  if (text.empty()) return std::nullopt;
  int64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

std::string_view key_value(std::string_view lines, std::string_view key) {
  std::string_view value;
  for_each_line(lines, [&](std::string_view line) {
    if (value.empty() && line.size() > key.size() && line.starts_with(key) && line[key.size()] == '=')
      value = trim(line.substr(key.size() + 1));
  });
  return value;
}

std::optional<long> number_in(std::string_view name, std::string_view prefix, std::string_view suffix) {
  if (!name.starts_with(prefix) || !name.ends_with(suffix) || name.size() == prefix.size() + suffix.size())
    return std::nullopt;
  std::string_view digits = name.substr(prefix.size(), name.size() - prefix.size() - suffix.size());
  if (digits[0] < '0' || digits[0] > '9') return std::nullopt;
  long n = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
  if (ec != std::errc() || end != digits.data() + digits.size()) return std::nullopt;
  return n;
}

std::vector<std::pair<long, fs::path>> numbered_entries(const fs::path& dir, std::string_view prefix,
                                                        std::string_view suffix) {
  std::vector<std::pair<long, fs::path>> out;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (auto n = number_in(it->path().filename().string(), prefix, suffix)) out.emplace_back(*n, it->path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace sm::sysfs
