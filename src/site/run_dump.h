#pragma once
// The open-data dump: every visible run as JSON Lines, one file, for people who analyse the
// site's data themselves (GET /api/v1/dump; docs/site.md, "Open data").
//
// A line per run, newest upload first:
//   {"run_id":"…","uploaded_at":"…","implausible":"","synthetic_model":false,"result":{…result.json…}}
// Hidden runs are left out; flagged ones are in, with their flags. The dump is built once per
// store generation and shared by every request until an upload, hide or delete changes the store.
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

#include "core/error.h"
#include "store/result_store.h"

namespace sm::site {

struct RunDump {
  std::string jsonl;   ///< the file
  int64_t runs = 0;    ///< lines in it
  int64_t generation = -1;  ///< the store generation it was built at
};

/// Builds the dump of `store`'s visible runs (reads them a page at a time).
Result<RunDump> build_run_dump(store::ResultStore& store);

/// The dump of the current store generation, built at most once per generation.
class RunDumpCache {
 public:
  explicit RunDumpCache(store::ResultStore& store) : store_(store) {}
  Result<std::shared_ptr<const RunDump>> current();

 private:
  store::ResultStore& store_;
  std::mutex mutex_;  ///< one builder at a time; the others wait for its dump
  std::shared_ptr<const RunDump> dump_;
};

}  // namespace sm::site
