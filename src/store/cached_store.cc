#include "store/cached_store.h"

#include <fmt/format.h>

#include "store/page_cursor.h"

namespace sm::store {

namespace {

// Everything a listing's answer depends on, as one key (fields apart by a unit separator).
std::string listing_cache_key(const RunFilter& f, RunOrder order, const PageRequest& page) {
  return fmt::format("{}\x1f{}\x1f{}\x1f{}\x1f{}\x1f{}{}{}{}\x1f{}\x1f{}\x1f{}\x1f{}", f.gpu, f.model, f.engine,
                     f.quantization, f.kind, int{f.known_hardware_only}, int{f.with_tokens_per_joule_only},
                     int{f.unflagged_only}, int{f.include_hidden}, static_cast<int>(order), page.limit,
                     page.cursor ? 0 : page.offset, page.cursor ? format_page_cursor(*page.cursor) : std::string());
}

}  // namespace

Result<int64_t> CachedStore::current_generation() {
  auto generation = inner_.generation();
  if (!generation) return generation;
  std::lock_guard lock(mutex_);
  if (*generation > entries_.generation) {  // never back: an older reading keeps nothing
    if (entries_.generation >= 0) ++counters_.invalidations;
    entries_ = Entries{};
    entries_.generation = *generation;
  }
  return generation;
}

template <class Map>
std::optional<typename Map::mapped_type> CachedStore::find(Map Entries::*map, const std::string& key, int64_t generation) {
  std::lock_guard lock(mutex_);
  if (entries_.generation == generation) {
    const Map& m = entries_.*map;
    if (auto it = m.find(key); it != m.end()) {
      ++counters_.hits;
      return it->second;
    }
  }
  ++counters_.misses;
  return std::nullopt;
}

template <class Map>
void CachedStore::keep(Map Entries::*map, const std::string& key, int64_t generation,
                       const typename Map::mapped_type& value) {
  std::lock_guard lock(mutex_);
  if (entries_.generation != generation) return;  // the store moved on while this was read
  Map& m = entries_.*map;
  if (static_cast<int64_t>(m.size()) >= options_.max_entries) m.clear();
  m.emplace(key, value);
}

Result<RunPage> CachedStore::list_runs(const RunFilter& filter, RunOrder order, const PageRequest& page) {
  if (options_.max_entries <= 0) return inner_.list_runs(filter, order, page);
  auto generation = current_generation();
  if (!generation) return std::unexpected(generation.error());
  const std::string key = listing_cache_key(filter, order, page);
  if (auto hit = find(&Entries::pages, key, *generation)) return std::move(*hit);
  auto answer = inner_.list_runs(filter, order, page);
  if (answer) keep(&Entries::pages, key, *generation, *answer);
  return answer;
}

Result<std::vector<GroupSummary>> CachedStore::hardware_summary(std::string_view kind) {
  if (options_.max_entries <= 0) return inner_.hardware_summary(kind);
  auto generation = current_generation();
  if (!generation) return std::unexpected(generation.error());
  const std::string key = "h:" + std::string(kind);
  if (auto hit = find(&Entries::groups, key, *generation)) return std::move(*hit);
  auto answer = inner_.hardware_summary(kind);
  if (answer) keep(&Entries::groups, key, *generation, *answer);
  return answer;
}

Result<std::vector<GroupSummary>> CachedStore::model_summary(std::string_view kind) {
  if (options_.max_entries <= 0) return inner_.model_summary(kind);
  auto generation = current_generation();
  if (!generation) return std::unexpected(generation.error());
  const std::string key = "m:" + std::string(kind);
  if (auto hit = find(&Entries::groups, key, *generation)) return std::move(*hit);
  auto answer = inner_.model_summary(kind);
  if (answer) keep(&Entries::groups, key, *generation, *answer);
  return answer;
}

Result<FilterValues> CachedStore::filter_values() {
  if (options_.max_entries <= 0) return inner_.filter_values();
  auto generation = current_generation();
  if (!generation) return std::unexpected(generation.error());
  {
    std::lock_guard lock(mutex_);
    if (entries_.generation == *generation && entries_.filters) {
      ++counters_.hits;
      return *entries_.filters;
    }
    ++counters_.misses;
  }
  auto answer = inner_.filter_values();
  if (answer) {
    std::lock_guard lock(mutex_);
    if (entries_.generation == *generation) entries_.filters = *answer;
  }
  return answer;
}

CacheCounters CachedStore::counters() const {
  std::lock_guard lock(mutex_);
  return counters_;
}

}  // namespace sm::store
