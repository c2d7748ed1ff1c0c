#pragma once
// The report's Network section and its findings: how the client reached the server (TLS,
// HTTP version, proxy, extra header names) and the network round trip, from RunResult::connection.
#include <optional>
#include <vector>

#include "report/report_model.h"
#include "result/result.h"

namespace sm::report {

/// The "Network" facts (id "connection"); nullopt when the result records no connection (older files, predictions).
std::optional<FactGroup> connection_facts(const RunResult& r);

/// What a reader must know about the connection: a certificate that was not checked (--insecure),
/// --http2 that the server did not take up.
std::vector<Finding> connection_findings(const RunResult& r);

}  // namespace sm::report
