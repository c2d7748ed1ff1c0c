#include "result/mixed_prefill_json.h"

#include <fmt/format.h>

#include "result/cell_status.h"
#include "result/json_fields.h"

namespace sm {

using nlohmann::json;
using json_fields::opt;
using json_fields::read;
using json_fields::read_opt;

json mixed_prefill_to_json(const MixedPrefillRow& r) {
  json j = {{"context", r.context},
            {"background_streams", r.background_streams},
            {"status", std::string(to_string(r.status))},
            {"ttft_alone_ms", opt(r.ttft_alone_ms)},
            {"ttft_loaded_ms", opt(r.ttft_loaded_ms)},
            {"background_before_tok_s", opt(r.background_before_tok_s)},
            {"background_during_tok_s", opt(r.background_during_tok_s)},
            {"background_after_tok_s", opt(r.background_after_tok_s)},
            {"longest_gap_ms", opt(r.longest_gap_ms)},
            {"sent_at_s", r.sent_at_s},
            {"first_token_at_s", opt(r.first_token_at_s)},
            {"timeline_bin_s", r.timeline_bin_s},
            {"timeline_tok_s", r.timeline_tok_s}};
  if (!r.error.empty()) j["error"] = r.error;
  if (!r.warnings.empty()) j["warnings"] = r.warnings;
  return j;
}

Result<MixedPrefillRow> mixed_prefill_from_json(const json& j) {
  if (!j.is_object()) return fail(ErrorCode::InvalidArgument, "result JSON: a mixed_prefill entry is not an object");
  MixedPrefillRow r;
  read(j, "context", r.context);
  read(j, "background_streams", r.background_streams);
  std::string status = "valid";
  read(j, "status", status);
  auto parsed = parse_cell_status(status);
  if (!parsed) return fail(ErrorCode::InvalidArgument, fmt::format("result JSON: mixed_prefill status \"{}\"", status));
  r.status = *parsed;
  read(j, "error", r.error);
  read_opt(j, "ttft_alone_ms", r.ttft_alone_ms);
  read_opt(j, "ttft_loaded_ms", r.ttft_loaded_ms);
  read_opt(j, "background_before_tok_s", r.background_before_tok_s);
  read_opt(j, "background_during_tok_s", r.background_during_tok_s);
  read_opt(j, "background_after_tok_s", r.background_after_tok_s);
  read_opt(j, "longest_gap_ms", r.longest_gap_ms);
  read(j, "sent_at_s", r.sent_at_s);
  read_opt(j, "first_token_at_s", r.first_token_at_s);
  read(j, "timeline_bin_s", r.timeline_bin_s);
  read(j, "timeline_tok_s", r.timeline_tok_s);
  read(j, "warnings", r.warnings);
  return r;
}

}  // namespace sm
