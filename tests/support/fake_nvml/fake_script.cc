#include "fake_script.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string_view>

namespace fake_nvml {

using nlohmann::json;

double Ramp::at(double t_s) const {
  if (over_s <= 0) return to;
  return from + (to - from) * std::min(1.0, t_s / over_s);
}

double Ramp::integral(double t_s) const {
  if (over_s <= 0) return to * t_s;
  if (t_s <= over_s) return from * t_s + (to - from) * t_s * t_s / (2 * over_s);
  return from * over_s + (to - from) * over_s / 2 + to * (t_s - over_s);
}

uint64_t FakeGpu::clocks_event_reasons_at(double t_s) const {
  uint64_t bits = 0;
  for (const auto& [from_s, b] : *clocks_event_reasons) {
    if (from_s > t_s) break;
    bits = b;
  }
  return bits;
}

std::optional<double> FakeGpu::energy_j_at(double t_s) const {
  if (!power_w) return std::nullopt;
  return energy_start_j + power_w->integral(t_s);
}

namespace {

constexpr int kNotSupported = 3;  // NVML_ERROR_NOT_SUPPORTED

std::string base_name(std::string_view function) {
  if (function.ends_with("_v2")) function.remove_suffix(3);
  return std::string(function);
}

[[noreturn]] void bad(const std::string& where, const std::string& why) {
  throw std::runtime_error(where + ": " + why);
}

double number(const json& j, const std::string& where) {
  if (!j.is_number()) bad(where, "expected a number");
  return j.get<double>();
}

int integer(const json& j, const std::string& where) {
  if (!j.is_number_integer()) bad(where, "expected an integer");
  return j.get<int>();
}

uint64_t unsigned_integer(const json& j, const std::string& where) {
  if (!j.is_number_unsigned() && !(j.is_number_integer() && j.get<int64_t>() >= 0)) {
    bad(where, "expected a non-negative integer");
  }
  return j.get<uint64_t>();
}

Ramp ramp(const json& j, const std::string& where) {
  if (j.is_number()) return Ramp{j.get<double>(), j.get<double>(), 0};
  if (!j.is_object()) bad(where, "expected a number or {\"from\", \"to\", \"over_s\"}");
  Ramp r;
  for (const auto& [key, v] : j.items()) {
    if (key == "from") {
      r.from = number(v, where + ".from");
    } else if (key == "to") {
      r.to = number(v, where + ".to");
    } else if (key == "over_s") {
      r.over_s = number(v, where + ".over_s");
    } else {
      bad(where, "unknown key \"" + key + "\"");
    }
  }
  if (!j.contains("from") || !j.contains("to") || !j.contains("over_s")) {
    bad(where, "a ramp needs from, to and over_s");
  }
  return r;
}

void errors_into(const json& j, const std::string& where, std::map<std::string, int>& out) {
  if (!j.is_object()) bad(where, "expected {\"function\": code, ...}");
  for (const auto& [fn, code] : j.items()) out[base_name(fn)] = integer(code, where + "." + fn);
}

void not_supported_into(const json& j, const std::string& where, std::map<std::string, int>& out) {
  if (!j.is_array()) bad(where, "expected [\"function\", ...]");
  for (const json& fn : j) {
    if (!fn.is_string()) bad(where, "expected function names");
    out[base_name(fn.get<std::string>())] = kNotSupported;
  }
}

std::vector<std::pair<double, uint64_t>> schedule(const json& j, const std::string& where) {
  std::vector<std::pair<double, uint64_t>> out;
  if (j.is_number()) {
    out.emplace_back(0.0, unsigned_integer(j, where));
    return out;
  }
  if (!j.is_array()) bad(where, "expected bits or [{\"from_s\", \"bits\"}, ...]");
  for (size_t i = 0; i < j.size(); ++i) {
    const std::string at = where + "[" + std::to_string(i) + "]";
    const json& e = j[i];
    if (!e.is_object() || !e.contains("from_s") || !e.contains("bits") || e.size() != 2) {
      bad(at, "expected {\"from_s\": seconds, \"bits\": n}");
    }
    out.emplace_back(number(e["from_s"], at + ".from_s"),
                     unsigned_integer(e["bits"], at + ".bits"));
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  return out;
}

std::vector<int> pid_list(const json& v, const std::string& at) {
  if (!v.is_array()) bad(at, "expected an array of PIDs");
  std::vector<int> pids;
  for (size_t i = 0; i < v.size(); ++i) pids.push_back(integer(v[i], at + "[" + std::to_string(i) + "]"));
  return pids;
}

using GpuKey = void (*)(FakeGpu&, const json&, const std::string&);

// clang-format off
#define FAKE_KEY(field, parse) \
  {#field, [](FakeGpu& g, const json& v, const std::string& at) { g.field = parse(v, at); }}
// clang-format on

/// Every key a GPU's object may have.
const std::map<std::string, GpuKey, std::less<>>& gpu_keys() {
  static const std::map<std::string, GpuKey, std::less<>> keys = {
      {"name",
       [](FakeGpu& g, const json& v, const std::string& at) {
         if (!v.is_string()) bad(at, "expected a string");
         g.name = v.get<std::string>();
       }},
      {"uuid",
       [](FakeGpu& g, const json& v, const std::string& at) {
         if (!v.is_string()) bad(at, "expected a string");
         g.uuid = v.get<std::string>();
       }},
      FAKE_KEY(processes, pid_list),
      FAKE_KEY(graphics_processes, pid_list),
      FAKE_KEY(mem_total_bytes, unsigned_integer),
      FAKE_KEY(mem_used_bytes, unsigned_integer),
      FAKE_KEY(sm_clock_mhz, ramp),
      FAKE_KEY(mem_clock_mhz, ramp),
      FAKE_KEY(temp_c, ramp),
      FAKE_KEY(util_pct, ramp),
      FAKE_KEY(mem_util_pct, ramp),
      FAKE_KEY(power_w, ramp),
      FAKE_KEY(sm_clock_max_mhz, number),
      FAKE_KEY(mem_clock_max_mhz, number),
      FAKE_KEY(power_limit_w, number),
      FAKE_KEY(pstate, integer),
      FAKE_KEY(pcie_gen, integer),
      FAKE_KEY(pcie_width, integer),
      FAKE_KEY(pcie_gen_max, integer),
      FAKE_KEY(pcie_width_max, integer),
      FAKE_KEY(energy_start_j, number),
      FAKE_KEY(clocks_event_reasons, schedule),
      {"errors",
       [](FakeGpu& g, const json& v, const std::string& at) { errors_into(v, at, g.errors); }},
      {"not_supported", [](FakeGpu& g, const json& v,
                           const std::string& at) { not_supported_into(v, at, g.errors); }},
  };
  return keys;
}

#undef FAKE_KEY

FakeGpu gpu(const json& j, const std::string& where) {
  if (!j.is_object()) bad(where, "expected an object");
  FakeGpu g;
  for (const auto& [key, v] : j.items()) {
    auto it = gpu_keys().find(key);
    if (it == gpu_keys().end()) bad(where, "unknown key \"" + key + "\"");
    it->second(g, v, where + "." + key);
  }
  return g;
}

}  // namespace

std::optional<Script> parse_script(const std::string& text, std::string& error) {
  try {
    const json j = json::parse(text);
    if (!j.is_object()) bad("script", "expected an object");
    Script s;
    for (const auto& [key, v] : j.items()) {
      if (key == "init_error") {
        s.init_error = integer(v, key);
      } else if (key == "now_s") {
        s.now_s = number(v, key);
      } else if (key == "errors") {
        errors_into(v, key, s.errors);
      } else if (key == "not_supported") {
        not_supported_into(v, key, s.errors);
      } else if (key == "gpus") {
        if (!v.is_array()) bad(key, "expected an array");
        for (size_t i = 0; i < v.size(); ++i) {
          s.gpus.push_back(gpu(v[i], "gpus[" + std::to_string(i) + "]"));
        }
      } else {
        bad("script", "unknown key \"" + key + "\"");
      }
    }
    error.clear();
    return s;
  } catch (const std::exception& e) {
    error = e.what();
    return std::nullopt;
  }
}

int scripted_error(const Script& script, const FakeGpu* gpu, const char* function) {
  const std::string name = base_name(function);
  if (gpu != nullptr) {
    if (auto it = gpu->errors.find(name); it != gpu->errors.end()) return it->second;
  }
  if (auto it = script.errors.find(name); it != script.errors.end()) return it->second;
  return 0;
}

}  // namespace fake_nvml
