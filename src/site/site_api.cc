// The JSON API of the results site (described in data/site/openapi.json).
#include <fmt/format.h>

#include "result/redact_document.h"
#include "result/result_json.h"
#include "core/clock.h"
#include "result/profile.h"
#include "site/calc_input.h"
#include "site/canonical_names.h"
#include "site/catalog_match.h"
#include "site/listing_query.h"
#include "site/run_checks.h"
#include "site/near_duplicate.h"
#include "site/site.h"
#include "site/site_json.h"
#include "site/timestamps.h"
#include "site/upload_checks.h"
#include "site/upload_token.h"
#include "store/migrations.h"
#include "store/run_summary.h"

namespace sm::site {

using nlohmann::json;

namespace {

constexpr int kMaxJsonDepth = 64;  // result.json nests 4 deep; anything far deeper is refused unparsed

// Deepest nesting of arrays and objects in `text`, ignoring brackets inside strings; stops
// counting past `limit`. Checked before parsing so a hostile body cannot exhaust the stack.
int json_depth(std::string_view text, int limit) {
  int depth = 0;
  int deepest = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') ++i;
      else if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') in_string = true;
    else if (c == '[' || c == '{') {
      deepest = std::max(deepest, ++depth);
      if (deepest > limit) return deepest;
    } else if (c == ']' || c == '}') --depth;
  }
  return deepest;
}

// "[json.exception.parse_error.101] parse error at line 1, column 2: ..." -> "parse error at line 1, ..."
std::string parse_error_text(const std::string& what) {
  if (what.starts_with("[json.exception.")) {
    size_t close = what.find("] ");
    if (close != std::string::npos) return what.substr(close + 2);
  }
  return what;
}

// The message goes to the log only (Site::finish answers 503 with the request id).
SiteResponse store_error(const Error& e) { return error_response(503, "store_unavailable", e.message); }

// A listing's failure: a cursor the store could not use is the caller's (400), the rest the store's.
SiteResponse list_error(const Error& e) {
  if (e.code == ErrorCode::InvalidArgument) return error_response(400, "bad_parameter", e.message);
  return store_error(e);
}

Result<json> parse_body(std::string_view body) {
  if (body.empty()) return fail(ErrorCode::InvalidArgument, "malformed JSON: the body is empty");
  if (json_depth(body, kMaxJsonDepth) > kMaxJsonDepth)
    return fail(ErrorCode::InvalidArgument, fmt::format("malformed JSON: nested deeper than {} levels", kMaxJsonDepth));
  try {
    return json::parse(body);
  } catch (const json::parse_error& e) {
    return fail(ErrorCode::InvalidArgument, "malformed JSON: " + parse_error_text(e.what()));
  } catch (const json::out_of_range& e) {  // a number too large for a double: "number overflow parsing '1e999'"
    return fail(ErrorCode::InvalidArgument, "malformed JSON: " + parse_error_text(e.what()));
  }
}

// `ranks`: each row's rank counts from the page's offset; false (the leaderboard's Other runs,
// which are not ranked): every rank is null.
json page_json(const store::RunPage& page, const ListingQuery& q, std::string_view path, bool ranks = true) {
  json runs = json::array();
  int64_t rank = q.page.offset;
  for (const auto& s : page.runs) {
    json row = summary_to_json(s);
    row["rank"] = ranks ? json(++rank) : json(nullptr);
    runs.push_back(std::move(row));
  }
  // Keyset links: each names the row next to its page, so it costs the same at any depth.
  auto link = [&](const std::string& cursor) -> json {
    if (cursor.empty()) return nullptr;
    auto params = listing_params(q);
    params.emplace_back("sort", std::string(order_name(q.order)));
    params.emplace_back("limit", std::to_string(q.page.limit));
    params.emplace_back("cursor", cursor);
    return std::string(path) + build_query(params);
  };
  return {{"runs", runs},
          {"kind", q.filter.kind.empty() ? "all" : q.filter.kind},
          {"total", page.total},
          {"limit", q.page.limit},
          {"offset", q.page.offset},
          {"sort", order_name(q.order)},
          {"next", link(q.next_cursor)},
          {"previous", link(q.previous_cursor)}};
}

}  // namespace

SiteResponse Site::api_post_run(SiteRequest& request) {
  if (auto rejected = authorize(request)) return *rejected;
  if (static_cast<int64_t>(request.body.size()) > config_.max_upload_bytes)
    return error_response(413, "too_large",
                          fmt::format("the body is {} bytes; this site accepts at most {}", request.body.size(),
                                      config_.max_upload_bytes));
  auto document = parse_body(request.body);
  if (!document) return error_response(400, "malformed_json", document.error().message);
  if (auto ok = schema_.validate(*document); !ok)
    return error_response(400, "schema_violation", "result schema: " + ok.error().message);
  if (auto ok = rules_.validate(*document); !ok)
    return error_response(400, "schema_violation", "upload rules: " + ok.error().message);
  auto result = result_from_json(*document);
  if (!result) return error_response(400, "invalid_result", result.error().message);
  const int64_t now_ms = wall_clock_unix_ms();
  if (auto ok = check_upload_numbers(*result, now_ms); !ok)
    return error_response(400, "invalid_numbers", ok.error().message);
  // Redaction on ingest, as `run` redacts (docs/site.md, "Redaction"): a result posted straight
  // to the API, or written before redaction existed, keeps no credential in a URL and no key in
  // a launch command or note. What is stored, hashed and summarised is the redacted document.
  redact_result_document(*document, *result);

  store::RunRecord record;
  record.summary = store::summarize_run(*result);
  record.summary.uploaded_at = iso8601_utc_ms(now_ms);
  record.summary.token_id = request.token->token_id;
  apply_site_checks(record.summary, *result, *document, catalog_, checks_fingerprint_);
  // Canonical text (keys sorted, no spaces): a retry with other whitespace is the same run.
  record.result_json = document->dump();
  record.content_sha256 = sha256_hex(record.result_json);
  record.measurements_sha256 = measurements_sha256(*document);
  // A near duplicate (near_duplicate.h) is refused; an exact one (the same measurements hash) or
  // a run of this id (a retry, a conflict) gets the store's answer below.
  auto same_measurements = store_.find_run_by_measurements(record.measurements_sha256);
  if (!same_measurements) return store_error(same_measurements.error());
  auto same_id = store_.get_run_summary(result->run_id);
  if (!same_id) return store_error(same_id.error());
  if (!*same_measurements && !*same_id) {
    auto earlier = find_near_duplicate(store_, *result, record.summary);
    if (!earlier) return store_error(earlier.error());
    if (*earlier) {
      const std::string message =
          fmt::format("run '{}' measured the same: the same setup and cells, every figure within {}% of it; a run "
                      "is uploaded once (docs/site.md, \"Upload checks\")",
                      **earlier, kNearDuplicateTolerance * 100);
      SiteResponse r = json_response(409, {{"error",
                                            {{"status", 409},
                                             {"code", "near_duplicate"},
                                             {"message", message},
                                             {"duplicate_of", **earlier},
                                             {"url", run_page_path(**earlier)}}}});
      r.log_reason = "near_duplicate: " + message;
      return r;
    }
  }
  auto put = store_.put_run(record);
  if (!put) return store_error(put.error());

  std::string stored_id = result->run_id;
  int status = 201;
  std::string status_text = "created";
  switch (*put) {
    case store::PutStatus::Created: break;
    case store::PutStatus::Existing:
      status_text = "exists";
      status = 200;
      break;
    case store::PutStatus::Duplicate: {
      // The same measurements under another id: the original answers for them.
      auto original = store_.find_run_by_measurements(record.measurements_sha256);
      if (!original) return store_error(original.error());
      if (!*original) return store_error(Error{ErrorCode::Internal, "duplicate run vanished before it was named"});
      stored_id = **original;
      status_text = "exists";
      status = 200;
      break;
    }
    case store::PutStatus::Conflict:
      return error_response(409, "conflict",
                            fmt::format("a different run with id '{}' is already stored; a run id names one run", result->run_id));
  }
  const std::string page = run_page_path(stored_id);
  json body = {{"run_id", stored_id}, {"url", page}, {"api_url", "/api/v1/runs/" + percent_encode(stored_id)},
               {"status", status_text}};
  if (stored_id != result->run_id) body["duplicate_of"] = stored_id, body["uploaded_run_id"] = result->run_id;
  if (!record.summary.implausible.empty()) body["implausible"] = record.summary.implausible;
  if (record.summary.synthetic_model) body["synthetic_model"] = true;
  // Where the run stands with the leaderboard, so the uploader can say (upload/ranking_note.h).
  body["ranked"] = record.summary.ranked();
  body["profile"] = record.summary.profile;
  body["standard_profile"] = std::string(kCurrentStandardProfile);
  body["leaderboard_view"] = std::string(is_ranked_profile(record.summary.profile) ? kStandardView : kOtherView);
  if (!record.summary.ranked()) body["not_ranked_because"] = std::string(store::not_ranked_because(record.summary));
  SiteResponse r = json_response(status, body);
  r.headers.emplace_back("Location", page);
  return r;
}

SiteResponse Site::api_list_runs(const SiteRequest& request) {
  auto q = parse_listing_query(canonical_filter_query(QueryParams(request.query), catalog_), store::RunOrder::Newest);
  if (!q) return error_response(400, "bad_parameter", q.error().message);
  auto page = store_.list_runs(q->filter, q->order, q->page);
  if (!page) return list_error(page.error());
  note_page(*q, *page);
  return json_response(200, page_json(*page, *q, "/api/v1/runs"));
}

SiteResponse Site::api_get_run(const std::string& run_id) {
  auto text = store_.get_run_json(run_id);
  if (!text) return store_error(text.error());
  if (!*text) return error_response(404, "not_found", fmt::format("no run with id '{}'", run_id));
  SiteResponse r;
  r.body = std::move(**text);
  r.body += '\n';
  return r;
}

SiteResponse Site::api_leaderboard(const SiteRequest& request) {
  // A ranking compares like with like: measured runs unless `kind` says otherwise, of the current
  // standard profile; `profile=other` lists the rest, unranked.
  auto q = parse_leaderboard_query(canonical_filter_query(QueryParams(request.query), catalog_));
  if (!q) return error_response(400, "bad_parameter", q.error().message);
  auto page = store_.list_runs(q->filter, q->order, q->page);
  if (!page) return list_error(page.error());
  note_page(*q, *page);
  const bool other = other_runs_view(*q);
  json body = page_json(*page, *q, "/api/v1/leaderboard", !other);
  body["view"] = std::string(other ? kOtherView : kStandardView);
  body["ranked"] = !other;
  body["standard_profile"] = std::string(kCurrentStandardProfile);
  return json_response(200, body);
}

namespace {

// `kind` of the group listings: one kind, or every kind ("all" or absent).
Result<std::string> group_kind(const SiteRequest& request) {
  auto q = parse_listing_query(QueryParams(request.query), store::RunOrder::Newest);
  if (!q) return std::unexpected(q.error());
  return q->filter.kind;
}

}  // namespace

SiteResponse Site::api_hardware(const SiteRequest& request) {
  auto kind = group_kind(request);
  if (!kind) return error_response(400, "bad_parameter", kind.error().message);
  auto groups = store_.hardware_summary(*kind);
  if (!groups) return store_error(groups.error());
  json out = json::array();
  for (const auto& g : *groups) out.push_back(group_to_json(g, "models"));
  auto unknown = store::count_unknown_hardware_runs(store_);
  if (!unknown) return store_error(unknown.error());
  return json_response(200, {{"hardware", out}, {"unknown_hardware_runs", *unknown}});
}

SiteResponse Site::api_models(const SiteRequest& request) {
  auto kind = group_kind(request);
  if (!kind) return error_response(400, "bad_parameter", kind.error().message);
  auto groups = store_.model_summary(*kind);
  if (!groups) return store_error(groups.error());
  json out = json::array();
  for (const auto& g : *groups) out.push_back(group_to_json(g, "gpus"));
  return json_response(200, {{"models", out}});
}

SiteResponse Site::api_calc(const SiteRequest& request) {
  int64_t retry_after_s = 0;
  if (!calc_limiter_.allow("calc:" + request.client, &retry_after_s)) {
    SiteResponse r = error_response(429, "rate_limited", fmt::format("too many calculations; retry in {} s", retry_after_s));
    r.headers.emplace_back("Retry-After", std::to_string(retry_after_s));
    return r;
  }
  if (static_cast<int64_t>(request.body.size()) > kMaxSmallBodyBytes)
    return error_response(413, "too_large", fmt::format("the body may be at most {} bytes", kMaxSmallBodyBytes));
  auto body = parse_body(request.body);
  if (!body) return error_response(400, "malformed_json", body.error().message);
  auto input = calc_input_from_json(*body);
  if (!input) return error_response(400, "bad_parameter", input.error().message);
  auto result = run_calc(catalog_, *input);
  if (!result) return error_response(400, "bad_parameter", result.error().message);
  auto evidence = find_evidence(store_, corpus_, catalog_, *input);
  if (!evidence) return store_error(evidence.error());
  json out = to_json(*result);
  // Beside the prediction, what was measured of the same setup (not part of a result.json).
  out["evidence"] = evidence_json(*evidence, *result, corpus_sources_);
  return json_response(200, out);
}

SiteResponse Site::api_dump() {
  auto dump = dump_cache_.current();
  if (!dump) return store_error(dump.error());
  SiteResponse r;
  r.content_type = "application/x-ndjson; charset=utf-8";
  r.body = (*dump)->jsonl;
  r.headers.emplace_back("Content-Disposition", "attachment; filename=\"speedmatrix-runs.jsonl\"");
  r.headers.emplace_back("X-Run-Count", std::to_string((*dump)->runs));
  return r;
}

SiteResponse Site::api_health() {
  auto version = store_.schema_version();
  if (!version) return store_error(version.error());
  return json_response(200, {{"ok", true},
                             {"store", store_.backend()},
                             {"schema_version", *version},
                             {"result_schema_version", kResultSchemaVersion}});
}

}  // namespace sm::site
