#include "site/run_dump.h"

#include <nlohmann/json.hpp>

namespace sm::site {

Result<RunDump> build_run_dump(store::ResultStore& store) {
  RunDump dump;
  auto generation = store.generation();
  if (!generation) return std::unexpected(generation.error());
  dump.generation = *generation;
  store::PageRequest page{.limit = store::kMaxPageLimit};
  while (true) {
    auto listed = store.list_runs({}, store::RunOrder::Newest, page);
    if (!listed) return std::unexpected(listed.error());
    for (const auto& run : listed->runs) {
      auto text = store.get_run_json(run.run_id);
      if (!text) return std::unexpected(text.error());
      if (!*text) continue;  // hidden or deleted since the page was read
      nlohmann::json head = {{"run_id", run.run_id},
                             {"uploaded_at", run.uploaded_at},
                             {"implausible", run.implausible},
                             {"synthetic_model", run.synthetic_model}};
      std::string line = head.dump();
      line.pop_back();  // the closing brace
      line += ",\"result\":";
      // The stored result is compact JSON, so one line; a text with a raw newline (none is stored
      // so) is written again compactly rather than break the file.
      if ((*text)->find('\n') == std::string::npos) line += **text;
      else line += nlohmann::json::parse(**text, nullptr, false).dump();
      line += "}\n";
      dump.jsonl += line;
      ++dump.runs;
    }
    if (!listed->next) break;
    page.cursor = listed->next;
  }
  return dump;
}

Result<std::shared_ptr<const RunDump>> RunDumpCache::current() {
  auto generation = store_.generation();
  if (!generation) return std::unexpected(generation.error());
  std::lock_guard lock(mutex_);
  if (dump_ && dump_->generation == *generation) return dump_;
  auto built = build_run_dump(store_);
  if (!built) return std::unexpected(built.error());
  dump_ = std::make_shared<const RunDump>(std::move(*built));
  return dump_;
}

}  // namespace sm::site
