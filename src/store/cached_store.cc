#include "store/cached_store.h"

#include <fmt/format.h>

#include "store/page_cursor.h"

namespace sm::store {

namespace {

// Everything a listing's answer depends on, as one key (fields apart by a unit separator).
std::string listing_cache_key(const RunFilter& f, RunOrder order, const PageRequest& page) {
  return fmt::format("{}\x1f{}\x1f{}\x1f{}\x1f{}\x1f{}{}{}{}\x1f{}\x1f{}\x1f{}\x1f{}\x1f{}\x1f{}\x1f{}\x1f{}\x1f{}", f.gpu,
                     f.model, f.engine, f.quantization, f.kind, int{f.known_hardware_only},
                     int{f.with_tokens_per_joule_only}, int{f.unflagged_only}, int{f.include_hidden}, f.profile,
                     f.other_than_profile, f.users_floor_tok_s, f.users_context, f.min_users,
                     static_cast<int>(order), page.limit, page.cursor ? 0 : page.offset,
                     page.cursor ? format_page_cursor(*page.cursor) : std::string());
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

template <class T>
Result<T> CachedStore::lookup(Values<T> Entries::*values, Flights<T> Entries::*flights, const std::string& key,
                              const std::function<Result<T>()>& compute) {
  if (options_.max_entries <= 0) return compute();
  auto generation = current_generation();
  if (!generation) return std::unexpected(generation.error());
  std::promise<Result<T>> promise;
  bool flying = false;
  {
    std::unique_lock lock(mutex_);
    if (entries_.generation == *generation) {
      const Values<T>& kept = entries_.*values;
      if (auto it = kept.find(key); it != kept.end()) {
        ++counters_.hits;
        return it->second;
      }
      Flights<T>& under_way = entries_.*flights;
      if (auto it = under_way.find(key); it != under_way.end()) {
        std::shared_future<Result<T>> other = it->second;
        ++counters_.joined;
        lock.unlock();
        return other.get();
      }
      under_way.emplace(key, promise.get_future().share());
      flying = true;
    }
    ++counters_.misses;
  }
  Result<T> answer = compute();
  {
    std::lock_guard lock(mutex_);
    if (entries_.generation == *generation) {  // else the store moved on while this was read
      if (answer) {
        Values<T>& kept = entries_.*values;
        if (static_cast<int64_t>(kept.size()) >= options_.max_entries) kept.clear();
        kept.emplace(key, *answer);
      }
      (entries_.*flights).erase(key);
    }
  }
  if (flying) promise.set_value(answer);
  return answer;
}

Result<RunPage> CachedStore::list_runs(const RunFilter& filter, RunOrder order, const PageRequest& page) {
  return lookup<RunPage>(&Entries::pages, &Entries::page_flights, listing_cache_key(filter, order, page),
                         [&] { return inner_.list_runs(filter, order, page); });
}

Result<std::vector<GroupSummary>> CachedStore::hardware_summary(std::string_view kind) {
  return lookup<std::vector<GroupSummary>>(&Entries::groups, &Entries::group_flights, "h:" + std::string(kind),
                                           [&] { return inner_.hardware_summary(kind); });
}

Result<std::vector<GroupSummary>> CachedStore::model_summary(std::string_view kind) {
  return lookup<std::vector<GroupSummary>>(&Entries::groups, &Entries::group_flights, "m:" + std::string(kind),
                                           [&] { return inner_.model_summary(kind); });
}

Result<FilterValues> CachedStore::filter_values() {
  return lookup<FilterValues>(&Entries::filters, &Entries::filter_flights, "", [&] { return inner_.filter_values(); });
}

CacheCounters CachedStore::counters() const {
  std::lock_guard lock(mutex_);
  return counters_;
}

}  // namespace sm::store
