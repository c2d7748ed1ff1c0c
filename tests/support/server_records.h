#pragma once
// Turns the scripted server's own record into RequestRecords, so tests compute the metrics of
// what the server actually sent with the same code that computes the client's.
#include <vector>

#include "metrics/request_record.h"
#include "support/scripted_server.h"

namespace sm::test {

/// One record per completion request: send = received, chunks = sent times and token counts.
std::vector<RequestRecord> to_request_records(const std::vector<ServedRequest>& served);

/// |a − b| ≤ rel × |b|
bool within_relative(double a, double b, double rel);

}  // namespace sm::test
