#pragma once
// A ResultStore that remembers the answers of the listing queries (run pages with their counts,
// the hardware and model groups, the filter menus) while the store's change counter
// (ResultStore::generation) stays the same, and forwards everything else. Several `serve`
// processes on one database each keep their own cache; an upload, a hide or a delete through any
// of them moves the counter in the database, so every process drops its cache at its next read.
//
// Each cached call costs one read of the counter (a one-row query) instead of the listing query.
// The counter is read before the data it vouches for, and an answer is kept only under the
// counter read before it, so a cache never holds data older than its counter. Requests that miss
// on the same listing at once wait for one computation of it instead of each running it (after an
// upload, a busy process would otherwise run the same aggregate queries once per thread).
//
//   auto store = sm::store::open_store(dsn);
//   sm::store::CachedStore cached(**store, {.max_entries = 256});
//   cached.list_runs(...);   // the second identical call answers from memory
#include <cstdint>
#include <functional>
#include <future>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "store/result_store.h"

namespace sm::store {

struct CacheOptions {
  int64_t max_entries = 256;  ///< cached listing pages; the cache is emptied when full. ≤ 0: nothing cached
};

/// What the cache did, for tests and the benchmark.
struct CacheCounters {
  int64_t hits = 0;
  int64_t misses = 0;
  int64_t joined = 0;         ///< misses that waited for another request's computation of the same answer
  int64_t invalidations = 0;  ///< times the counter was seen to move and the cache was emptied
};

class CachedStore final : public ResultStore {
 public:
  /// `inner` must outlive this store.
  CachedStore(ResultStore& inner, CacheOptions options) : inner_(inner), options_(options) {}

  std::string_view backend() const override { return inner_.backend(); }
  Result<int64_t> schema_version() override { return inner_.schema_version(); }
  Result<PutStatus> put_run(const RunRecord& record) override { return inner_.put_run(record); }
  Result<std::vector<PutStatus>> put_runs(const std::vector<RunRecord>& records) override {
    return inner_.put_runs(records);
  }
  Result<std::optional<std::string>> get_run_json(std::string_view run_id) override { return inner_.get_run_json(run_id); }
  Result<std::optional<RunSummary>> get_run_summary(std::string_view run_id) override {
    return inner_.get_run_summary(run_id);
  }
  Result<RunPage> list_runs(const RunFilter& filter, RunOrder order, const PageRequest& page) override;
  Result<std::vector<GroupSummary>> hardware_summary(std::string_view kind = "") override;
  Result<std::vector<GroupSummary>> model_summary(std::string_view kind = "") override;
  Result<FilterValues> filter_values() override;
  Result<std::vector<RunSummary>> list_runs_for_setup(const SetupKey& key, int64_t limit) override {
    return inner_.list_runs_for_setup(key, limit);
  }
  Result<RunPage> list_runs_for_moderation(const ModerationFilter& filter, int64_t limit) override {
    return inner_.list_runs_for_moderation(filter, limit);
  }
  Result<std::optional<std::string>> find_run_by_measurements(std::string_view measurements_sha256) override {
    return inner_.find_run_by_measurements(measurements_sha256);
  }
  Result<std::vector<StoredRun>> runs_checked_otherwise(std::string_view checked_with, std::string_view after_run_id,
                                                        int64_t limit) override {
    return inner_.runs_checked_otherwise(checked_with, after_run_id, limit);
  }
  Result<int64_t> update_checks(const std::vector<RunSummary>& summaries) override {
    return inner_.update_checks(summaries);
  }
  Result<int64_t> set_hidden(std::string_view run_id, bool hidden) override { return inner_.set_hidden(run_id, hidden); }
  Result<int64_t> delete_run(std::string_view run_id) override { return inner_.delete_run(run_id); }
  Result<int64_t> generation() override { return inner_.generation(); }
  Result<RateDecision> take_rate_token(std::string_view key, double per_s, double burst, int64_t now_ms) override {
    return inner_.take_rate_token(key, per_s, burst, now_ms);
  }
  Result<void> create_token(const TokenInfo& token, std::string_view token_sha256_hex) override {
    return inner_.create_token(token, token_sha256_hex);
  }
  Result<std::optional<TokenInfo>> find_token(std::string_view token_sha256_hex) override {
    return inner_.find_token(token_sha256_hex);
  }
  Result<int64_t> revoke_token(std::string_view token_id, std::string_view revoked_at) override {
    return inner_.revoke_token(token_id, revoked_at);
  }
  Result<std::vector<TokenInfo>> list_tokens() override { return inner_.list_tokens(); }

  CacheCounters counters() const;

 private:
  template <class T>
  using Values = std::unordered_map<std::string, T>;
  template <class T>
  using Flights = std::unordered_map<std::string, std::shared_future<Result<T>>>;

  /// The cache's contents, all true for one value of the counter, and the computations under way.
  struct Entries {
    int64_t generation = -1;
    Values<RunPage> pages;
    Values<std::vector<GroupSummary>> groups;  ///< "h:KIND" hardware, "m:KIND" models
    Values<FilterValues> filters;              ///< one entry, ""
    Flights<RunPage> page_flights;
    Flights<std::vector<GroupSummary>> group_flights;
    Flights<FilterValues> filter_flights;
  };

  /// Reads the counter and empties the cache when it moved; returns the counter.
  Result<int64_t> current_generation();
  /// The answer under `key`: from `values`, from a computation of it under way, or `compute`d
  /// (and kept while the counter has not moved).
  template <class T>
  Result<T> lookup(Values<T> Entries::*values, Flights<T> Entries::*flights, const std::string& key,
                   const std::function<Result<T>()>& compute);

  ResultStore& inner_;
  CacheOptions options_;
  mutable std::mutex mutex_;
  Entries entries_;
  CacheCounters counters_;
};

}  // namespace sm::store
