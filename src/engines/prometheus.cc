#include "engines/prometheus.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>

namespace sm {

namespace {

// Parses `{a="x",b="y"}` starting at s[0] == '{'; returns the index after '}' or npos.
size_t parse_labels(std::string_view s, std::map<std::string, std::string>& out) {
  size_t i = 1;
  while (i < s.size()) {
    while (i < s.size() && (s[i] == ' ' || s[i] == ',')) ++i;
    if (i < s.size() && s[i] == '}') return i + 1;
    size_t eq = s.find('=', i);
    if (eq == std::string_view::npos || eq + 1 >= s.size() || s[eq + 1] != '"') return std::string_view::npos;
    std::string name(s.substr(i, eq - i));
    std::string value;
    size_t j = eq + 2;
    for (; j < s.size() && s[j] != '"'; ++j) {
      if (s[j] == '\\' && j + 1 < s.size()) {
        ++j;
        value.push_back(s[j] == 'n' ? '\n' : s[j]);
      } else {
        value.push_back(s[j]);
      }
    }
    if (j >= s.size()) return std::string_view::npos;
    out[name] = value;
    i = j + 1;
  }
  return std::string_view::npos;
}

}  // namespace

std::vector<PromSample> parse_prometheus(std::string_view text) {
  std::vector<PromSample> out;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t eol = text.find('\n', pos);
    std::string_view line = text.substr(pos, eol == std::string_view::npos ? text.npos : eol - pos);
    pos = eol == std::string_view::npos ? text.size() : eol + 1;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty() || line[0] == '#') continue;
    PromSample sample;
    size_t name_end = line.find_first_of("{ ");
    if (name_end == std::string_view::npos) continue;
    sample.name = std::string(line.substr(0, name_end));
    std::string_view rest = line.substr(name_end);
    if (rest[0] == '{') {
      size_t after = parse_labels(rest, sample.labels);
      if (after == std::string_view::npos) continue;
      rest = rest.substr(after);
    }
    while (!rest.empty() && rest[0] == ' ') rest.remove_prefix(1);
    size_t value_end = rest.find(' ');
    std::string value_text(rest.substr(0, value_end));
    char* end = nullptr;
    sample.value = std::strtod(value_text.c_str(), &end);
    if (end == value_text.c_str()) continue;
    out.push_back(std::move(sample));
  }
  return out;
}

std::optional<PromSample> find_sample(const std::vector<PromSample>& samples, std::string_view name) {
  for (const auto& s : samples)
    if (s.name == name) return s;
  return std::nullopt;
}

std::optional<double> across_engines(const std::vector<PromSample>& samples,
                                     std::initializer_list<std::string_view> names, AcrossEngines how) {
  for (std::string_view name : names) {  // aliases: the first name present wins, never both
    std::map<std::map<std::string, std::string>, double> per_engine;
    for (const auto& s : samples) {
      if (s.name != name || !std::isfinite(s.value)) continue;
      auto labels = s.labels;
      for (const char* rank : {"tp_rank", "pp_rank", "moe_ep_rank"}) labels.erase(rank);
      auto [it, inserted] = per_engine.emplace(std::move(labels), s.value);
      if (!inserted) it->second = std::max(it->second, s.value);
    }
    if (per_engine.empty()) continue;
    double sum = 0;
    double max = per_engine.begin()->second;
    for (const auto& [labels, v] : per_engine) {
      sum += v;
      max = std::max(max, v);
    }
    switch (how) {
      case AcrossEngines::Sum: return sum;
      case AcrossEngines::Max: return max;
      case AcrossEngines::Mean: return sum / static_cast<double>(per_engine.size());
    }
  }
  return std::nullopt;
}

}  // namespace sm
