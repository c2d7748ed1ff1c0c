#include "store/result_store.h"

#include <fmt/format.h>

#include "store/postgres_store.h"
#include "store/sqlite_store.h"

namespace sm::store {

Result<std::unique_ptr<ResultStore>> open_store(std::string_view dsn, const StoreOptions& options) {
  if (dsn.starts_with("postgresql://") || dsn.starts_with("postgres://"))
    return open_postgres_store(std::string(dsn), options.pool_size);
  std::string_view path = dsn;
  if (path.starts_with("sqlite://")) path.remove_prefix(9);
  else if (path.starts_with("sqlite:")) path.remove_prefix(7);
  else if (!(path.ends_with(".db") || path.ends_with(".sqlite") || path.ends_with(".sqlite3")))
    return fail(ErrorCode::InvalidArgument,
                fmt::format("--db '{}': expected sqlite:PATH or postgresql://USER@HOST:PORT/DATABASE", redact_dsn(dsn)));
  if (path.empty()) return fail(ErrorCode::InvalidArgument, "--db sqlite: needs a file path, e.g. sqlite:results.db");
  if (path == ":memory:")
    return fail(ErrorCode::InvalidArgument, "--db sqlite::memory: is not supported (each connection would see its own database)");
  return open_sqlite_store(std::string(path), options.pool_size,
                           options.sqlite_full_sync ? SqliteSync::Full : SqliteSync::Normal);
}

Result<int64_t> count_unknown_hardware_runs(ResultStore& store) {
  RunFilter filter;
  filter.gpu = std::string(kUnknownHardwareGroup);
  auto page = store.list_runs(filter, RunOrder::Newest, {.limit = 1});
  if (!page) return std::unexpected(page.error());
  return page->total;
}

std::string redact_dsn(std::string_view dsn) {
  std::string out(dsn);
  // URL form: scheme://user:password@host -> scheme://user:***@host
  if (size_t scheme = out.find("://"); scheme != std::string::npos) {
    size_t at = out.find('@', scheme + 3);
    size_t colon = out.find(':', scheme + 3);
    if (at != std::string::npos && colon != std::string::npos && colon < at)
      out.replace(colon + 1, at - colon - 1, "***");
  }
  // key=value form and URL query: password=secret -> password=***
  for (size_t at = out.find("password="); at != std::string::npos; at = out.find("password=", at + 1)) {
    size_t start = at + 9;
    size_t end = out.find_first_of(" &", start);
    if (end == std::string::npos) end = out.size();
    out.replace(start, end - start, "***");
  }
  return out;
}

}  // namespace sm::store
