#include <array>
#include <utility>

#include "result/result.h"

namespace sm {

namespace {

constexpr std::array<std::pair<RetrievalVerdict, std::string_view>, 6> kNames = {{
    {RetrievalVerdict::Exact, "exact"},
    {RetrievalVerdict::NearMiss, "near_miss"},
    {RetrievalVerdict::Wrong, "wrong"},
    {RetrievalVerdict::Truncated, "truncated"},
    {RetrievalVerdict::NotApplicable, "not_applicable"},
    {RetrievalVerdict::Error, "error"},
}};

}  // namespace

std::string_view to_string(RetrievalVerdict verdict) {
  for (const auto& [value, name] : kNames)
    if (value == verdict) return name;
  return "error";
}

std::optional<RetrievalVerdict> parse_retrieval_verdict(std::string_view text) {
  for (const auto& [value, name] : kNames)
    if (name == text) return value;
  return std::nullopt;
}

bool retrieval_failed(RetrievalVerdict verdict) {
  return verdict == RetrievalVerdict::NearMiss || verdict == RetrievalVerdict::Wrong ||
         verdict == RetrievalVerdict::Truncated;
}

}  // namespace sm
