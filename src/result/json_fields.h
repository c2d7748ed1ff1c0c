#pragma once
// Reading and writing the record's optional JSON fields: null for an absent value, an absent or
// null key for an empty optional. Shared by result_json.cc and sweep_json.cc.
#include <optional>

#include <nlohmann/json.hpp>

#include "result/result.h"

namespace sm::json_fields {

template <class T>
nlohmann::json opt(const std::optional<T>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

template <class T>
void read_opt(const nlohmann::json& j, const char* key, std::optional<T>& out) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) {
    out.reset();
    return;
  }
  out = it->get<T>();
}

template <class T>
void read(const nlohmann::json& j, const char* key, T& out) {
  auto it = j.find(key);
  if (it != j.end() && !it->is_null()) out = it->get<T>();
}

/// Percentiles as {"p50", "p90", "p99"}; null when absent.
inline nlohmann::json percentiles_to_json(const std::optional<Percentiles>& p) {
  if (!p) return nullptr;
  return {{"p50", p->p50}, {"p90", p->p90}, {"p99", p->p99}};
}

inline void read_percentiles(const nlohmann::json& j, const char* key, std::optional<Percentiles>& out) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_object()) {
    out.reset();
    return;
  }
  Percentiles p;
  read(*it, "p50", p.p50);
  read(*it, "p90", p.p90);
  read(*it, "p99", p.p99);
  out = p;
}

}  // namespace sm::json_fields
