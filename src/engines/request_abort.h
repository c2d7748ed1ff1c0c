#pragma once
// Stopping a request on the server by its id. SGLang keeps generating a request whose stream the
// client closed (the seed's tool found this); `POST /abort_request {"rid": "<id>"}` stops it. The
// id is the one every chunk of the stream carries (RequestRecord::server_id).
#include <string>
#include <vector>

#include "core/error.h"
#include "engines/engine_kind.h"
#include "engines/probe.h"

namespace sm {

/// True for engines whose requests must be aborted by id at a window's end (SGLang).
bool aborts_by_request_id(EngineKind kind);

/// Asks the server to stop request `id`. Errors: transport failure or a non-2xx status.
Result<void> abort_request(EngineKind kind, const std::string& base_url, const std::vector<std::string>& headers,
                           const std::string& id, const HttpTransport& transport);

}  // namespace sm
