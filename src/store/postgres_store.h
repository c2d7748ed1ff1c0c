#pragma once
// The PostgreSQL backend (libpq): for a results site many machines upload to. Every statement
// goes through PQexecParams with typed parameters; a commit returns after PostgreSQL has flushed
// its write-ahead log (synchronous_commit on, the server default).
#include <memory>
#include <string>

#include "core/error.h"
#include "store/result_store.h"
#include "store/sql_connection.h"

namespace sm::store {

/// Opens one libpq connection with `conninfo` ("postgresql://user@host:port/db" or "key=value ...").
Result<std::unique_ptr<SqlConnection>> open_postgres_connection(const std::string& conninfo);

/// The store over PostgreSQL, migrated.
Result<std::unique_ptr<ResultStore>> open_postgres_store(const std::string& conninfo, int pool_size);

}  // namespace sm::store
