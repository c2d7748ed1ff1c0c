#include "site/site_json.h"

#include "site/query_string.h"

namespace sm::site {

using nlohmann::json;

namespace {

template <class T>
json opt(const std::optional<T>& v) {
  return v ? json(*v) : json(nullptr);
}

}  // namespace

json summary_to_json(const store::RunSummary& s) {
  return {{"run_id", s.run_id},
          {"kind", s.kind},
          {"gpu", s.gpu},
          {"model", s.model},
          {"engine", s.engine},
          {"engine_version", s.engine_version},
          {"quantization", s.quantization},
          {"submitted_by", s.submitted_by},
          {"started_at", s.started_at},
          {"uploaded_at", s.uploaded_at},
          {"single_stream_tok_s", opt(s.single_stream_tok_s)},
          {"single_stream_context", opt(s.single_stream_context)},
          {"best_total_tok_s", opt(s.best_total_tok_s)},
          {"best_total_context", opt(s.best_total_context)},
          {"best_total_concurrency", opt(s.best_total_concurrency)},
          {"single_stream_projected", s.single_stream_projected},
          {"best_total_projected", s.best_total_projected},
          {"prefill_32k_tok_s", opt(s.prefill_32k_tok_s)},
          {"valid_cells", s.valid_cells},
          {"decode_cells", s.decode_cells},
          {"best_tokens_per_joule", opt(s.best_tokens_per_joule)},
          {"best_tokens_per_joule_context", opt(s.best_tokens_per_joule_context)},
          {"best_tokens_per_joule_concurrency", opt(s.best_tokens_per_joule_concurrency)},
          {"gpu_telemetry", s.gpu_telemetry},
          {"throttle_worst", s.throttle_worst},
          {"throttled_cells", opt(s.throttled_cells)},
          {"implausible", s.implausible.empty() ? json(nullptr) : json(s.implausible)},
          {"synthetic_model", s.synthetic_model},
          {"unverified_hardware", s.unverified_hardware},
          {"gpu_reported", s.gpu_reported.empty() ? s.gpu : s.gpu_reported},
          {"model_reported", s.model_reported.empty() ? s.model : s.model_reported},
          {"profile", s.profile},
          {"users_at", opt(s.users_at)},
          {"users_at_basis", s.users_at_basis},
          {"retrieval", s.retrieval},
          {"retrieval_failed_contexts", s.retrieval_failed_contexts},
          {"ranked", s.ranked()},
          {"url", run_page_path(s.run_id)},
          {"api_url", "/api/v1/runs/" + percent_encode(s.run_id)}};
}

json group_to_json(const store::GroupSummary& g, std::string_view other) {
  return {{"name", g.name},
          {"runs", g.runs},
          {std::string(other), g.distinct_other},
          {"best_single_stream_tok_s", opt(g.best_single_stream_tok_s)},
          {"best_total_tok_s", opt(g.best_total_tok_s)},
          {"best_prefill_32k_tok_s", opt(g.best_prefill_32k_tok_s)},
          {"best_tokens_per_joule", opt(g.best_tokens_per_joule)},
          {"last_uploaded_at", g.last_uploaded_at}};
}

SiteResponse json_response(int status, const json& body) {
  SiteResponse r;
  r.status = status;
  r.content_type = "application/json";
  // Invalid UTF-8 from a stored string must not make dump() throw: replace it.
  r.body = body.dump(-1, ' ', false, json::error_handler_t::replace);
  r.body += '\n';
  return r;
}

SiteResponse error_response(int status, std::string_view code, std::string_view message) {
  SiteResponse r = json_response(status, {{"error", {{"status", status}, {"code", code}, {"message", message}}}});
  r.log_reason = std::string(code) + ": " + std::string(message);
  return r;
}

std::string run_page_path(std::string_view run_id) { return "/runs/" + percent_encode(run_id); }

}  // namespace sm::site
