#include "site/site.h"

#include <fmt/format.h>

#include <cstdio>
#include <exception>
#include <random>

#include "core/text.h"
#include "site/run_checks.h"
#include "site/site_data.h"
#include "site/query_string.h"
#include "site/site_json.h"
#include "site/upload_token.h"

namespace sm::site {

std::string_view reason_phrase(int status) {
  switch (status) {
    case 200: return "OK";
    case 201: return "Created";
    case 204: return "No Content";
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 409: return "Conflict";
    case 411: return "Length Required";
    case 413: return "Payload Too Large";
    case 414: return "URI Too Long";
    case 415: return "Unsupported Media Type";
    case 429: return "Too Many Requests";
    case 431: return "Request Header Fields Too Large";
    case 500: return "Internal Server Error";
    case 503: return "Service Unavailable";
    default: return "Unknown";
  }
}

Result<std::unique_ptr<Site>> Site::create(store::ResultStore& store, SiteConfig config, const Clock& clock) {
  auto schema_text = site_data_file("result-schema.json");
  if (!schema_text) return fail(ErrorCode::Internal, "the result schema (docs/result-schema.json) is not embedded in this build");
  auto schema = JsonSchema::parse(*schema_text);
  if (!schema) return std::unexpected(schema.error());
  auto rules_text = site_data_file("upload-rules.json");
  if (!rules_text) return fail(ErrorCode::Internal, "the upload rules are not embedded in this build");
  auto rules = JsonSchema::parse(*rules_text);
  if (!rules) return std::unexpected(rules.error());
  auto catalog = calc::Catalog::builtin();
  if (!catalog) return std::unexpected(catalog.error());
  auto messages = config.messages_dir.empty() ? MessageCatalogs::load_embedded()
                                              : MessageCatalogs::load_embedded_and_dir(config.messages_dir);
  if (!messages)
    return fail(config.messages_dir.empty() ? ErrorCode::Internal : ErrorCode::InvalidArgument,
                "the message catalogs are refused: " + messages.error().message);
  std::unique_ptr<Site> site(new Site(store, std::move(config), clock, std::move(*schema), std::move(*rules),
                                      std::move(*catalog), std::move(*messages)));
  // Runs checked with another catalog (stored before this build) are checked again, so every
  // page groups them by this build's names and flags (run_checks.h).
  site->checks_fingerprint_ = checks_fingerprint(site->catalog_);
  auto rechecked = recheck_stored_runs(store, site->catalog_, site->checks_fingerprint_);
  if (!rechecked)
    return fail(rechecked.error().code, "checking the stored runs with this build's catalog: " + rechecked.error().message);
  site->rechecked_at_start_ = *rechecked;
  // The calibration corpus, the evidence beside a prediction; a build without it shows none.
  if (auto csv = site_data_file("measurements.csv")) {
    auto rows = calc::parse_corpus_csv(*csv);
    if (!rows) return fail(ErrorCode::Internal, "the embedded calibration corpus is unreadable: " + rows.error().message);
    site->corpus_ = calc::map_corpus(*rows, site->catalog_);
  }
  if (auto csv = site_data_file("sources.csv")) site->corpus_sources_ = parse_corpus_sources(*csv);
  return site;
}

Site::Site(store::ResultStore& store, SiteConfig config, const Clock& clock, JsonSchema schema, JsonSchema rules,
           calc::Catalog catalog, MessageCatalogs messages)
    : store_(store),
      config_(std::move(config)),
      clock_(clock),
      schema_(std::move(schema)),
      rules_(std::move(rules)),
      catalog_(std::move(catalog)),
      upload_limiter_(clock, config_.upload_rate_per_min, config_.upload_burst,
                      config_.shared_upload_limit ? &store : nullptr),
      calc_limiter_(clock, config_.calc_rate_per_min),
      messages_(std::move(messages)),
      dump_cache_(store),
      request_id_seed_(std::random_device{}()) {}

std::string Site::next_request_id() {
  const uint64_t n = request_counter_.fetch_add(1, std::memory_order_relaxed);
  return fmt::format("{:08x}{:08x}", static_cast<uint32_t>(request_id_seed_), static_cast<uint32_t>(n));
}

void Site::log(const std::string& line) const {
  if (config_.log_line) return config_.log_line(line);
  std::fputs((line + "\n").c_str(), stderr);  // one write per line, so threads do not interleave within one
}

namespace {

// A value for a log line: quoted, quotes and control characters escaped (escape_controls), at most
// 300 bytes of it.
std::string log_quote(std::string_view text) {
  std::string out = "\"";
  for (char c : escape_controls(text.substr(0, 300))) {
    if (c == '"') out += '\\';
    out += c;
  }
  if (text.size() > 300) out += "...";
  return out + "\"";
}

std::string_view method_name(HttpMethod m) {
  switch (m) {
    case HttpMethod::Get: return "GET";
    case HttpMethod::Head: return "HEAD";
    case HttpMethod::Post: return "POST";
    case HttpMethod::Options: return "OPTIONS";
    case HttpMethod::Other: break;
  }
  return "OTHER";
}

}  // namespace

SiteResponse Site::finish(const SiteRequest& request, SiteResponse r, std::string id) {
  if (id.empty()) id = request.request_id.empty() ? next_request_id() : request.request_id;
  const bool refused_upload = is_upload(request) && r.status >= 400;
  if (r.status >= 500 || refused_upload) {
    std::string reason = r.log_reason.empty() ? std::string(reason_phrase(r.status)) : r.log_reason;
    log(fmt::format("speedmatrix serve: request_id={} route={} status={} reason={}", id,
                    log_quote(std::string(method_name(request.method)) + " " + request.path), r.status,
                    log_quote(reason)));
  }
  if (r.status >= 500 && !r.body_is_public) {
    // What failed (a store error, an exception) may name files or internals: the log has it.
    const std::string message = fmt::format(
        "the site could not answer this request{}; its log names it as request {}",
        r.status == 503 ? " (the store is unavailable)" : "", id);
    if (r.content_type.starts_with("text/html")) {
      SiteResponse page = page_error(r.status, ui_format(r.status == 503 ? "error.unavailable" : "error.internal", id));
      page.headers = std::move(r.headers);
      r = std::move(page);
    } else {
      std::vector<std::pair<std::string, std::string>> headers = std::move(r.headers);
      r = error_response(r.status, r.status == 503 ? "unavailable" : "internal", message);
      r.headers = std::move(headers);
    }
  }
  r.log_reason.clear();
  r.body_is_public = false;
  r.headers.emplace_back("X-Request-Id", id);
  return r;
}

bool Site::is_upload(const SiteRequest& head) {
  return head.method == HttpMethod::Post && (head.path == "/api/v1/runs" || head.path == "/api/v1/runs/");
}

int64_t Site::body_limit(const SiteRequest& head) const {
  return is_upload(head) ? config_.max_upload_bytes : kMaxSmallBodyBytes;
}

std::optional<SiteResponse> Site::authorize(SiteRequest& request) {
  if (request.token) return std::nullopt;
  std::string_view secret = bearer_token(request.authorization);
  auto unauthorized = [](std::string_view message) {
    SiteResponse r = error_response(401, "unauthorized", message);
    r.headers.emplace_back("WWW-Authenticate", "Bearer realm=\"speedmatrix\"");
    return r;
  };
  if (secret.empty())
    return unauthorized("an upload token is required: send 'Authorization: Bearer TOKEN' "
                        "(make one with `speedmatrix serve token create`)");
  auto token = store_.find_token(sha256_hex(secret));
  if (!token) return error_response(503, "store_unavailable", token.error().message);
  if (!*token) return unauthorized("the upload token is unknown or revoked");
  int64_t retry_after_s = 0;
  if (!upload_limiter_.allow((*token)->token_id, &retry_after_s)) {
    SiteResponse r = json_response(
        429, {{"error",
               {{"status", 429},
                {"code", "rate_limited"},
                {"message", fmt::format("too many uploads with this token (limit {} a minute); retry in {} s",
                                        config_.upload_rate_per_min, retry_after_s)},
                {"retry_after_s", retry_after_s}}}});
    r.headers.emplace_back("Retry-After", std::to_string(retry_after_s));
    return r;
  }
  request.token = std::move(**token);
  return std::nullopt;
}

std::optional<SiteResponse> Site::precheck_upload(SiteRequest& head, std::optional<uint64_t> content_length) {
  if (head.request_id.empty()) head.request_id = next_request_id();
  if (auto rejected = authorize(head)) return finish(head, std::move(*rejected));
  if (content_length && *content_length > static_cast<uint64_t>(config_.max_upload_bytes))
    return finish(head, error_response(413, "too_large",
                                       fmt::format("the body is {} bytes; this site accepts at most {}", *content_length,
                                                   config_.max_upload_bytes)));
  return std::nullopt;
}

SiteResponse Site::handle_oversize(const SiteRequest& head) {
  return finish(head, error_response(413, "too_large",
                                     fmt::format("the body is larger than the {} bytes this route accepts", body_limit(head))));
}

bool Site::is_read_api(const SiteRequest& head) {
  return head.path.starts_with("/api/") && (head.method == HttpMethod::Get || head.method == HttpMethod::Head ||
                                            head.method == HttpMethod::Options);
}

bool Site::is_heavy(const SiteRequest& head) {
  const std::string& p = head.path;
  if (head.method == HttpMethod::Post) return p == "/api/v1/calc";
  if (head.method != HttpMethod::Get && head.method != HttpMethod::Head) return false;
  auto names_one_run = [&](std::string_view prefix) { return p.size() > prefix.size() && p.starts_with(prefix); };
  return names_one_run("/runs/") || names_one_run("/api/v1/runs/") || p == "/compare" || p == "/calc" ||
         p == "/api/v1/dump";
}

SiteResponse Site::handle(const SiteRequest& request) {
  return answer(request, [&] { return route(request); });
}

SiteResponse Site::handle_busy(const SiteRequest& head, int64_t retry_after_s) {
  return answer(head, [&] {
    // The API's body repeats Retry-After, as a 429's does (a client may not see headers).
    SiteResponse r =
        head.path.starts_with("/api/")
            ? json_response(503, {{"error",
                                   {{"status", 503},
                                    {"code", "busy"},
                                    {"message", fmt::format("the site is answering as many large pages as it can "
                                                            "queue; retry in {} s",
                                                            retry_after_s)},
                                    {"retry_after_s", retry_after_s}}}})
            : page_error(503, ui_format("error.busy", retry_after_s));
    r.body_is_public = true;
    r.log_reason = "busy: the heavy-request queue is full";
    r.headers.emplace_back("Retry-After", std::to_string(retry_after_s));
    return r;
  });
}

SiteResponse Site::answer(const SiteRequest& request, const std::function<SiteResponse()>& make) {
  const std::string id = request.request_id.empty() ? next_request_id() : request.request_id;
  // The page language: ?lang= (remembered in a cookie), the cookie, Accept-Language, English.
  const QueryParams query(request.query);
  const std::string lang = messages_.choose(query.get("lang"), request.cookie, request.accept_language);
  const UiLanguageScope language(messages_, lang, request.path, request.query);
  try {
    SiteResponse r = finish(request, make(), id);
    if (query.has("lang") && messages_.has(query.get("lang")))
      r.headers.emplace_back("Set-Cookie", "sm_lang=" + lang + "; Path=/; Max-Age=31536000; SameSite=Lax");
    r.headers.emplace_back("X-Content-Type-Options", "nosniff");
    if (is_read_api(request)) {
      // Open data: any web page may read the API (nothing in it depends on who asks: no cookie
      // or token is read by a GET). Uploads and the calculator's POST are not opened so.
      r.headers.emplace_back("Access-Control-Allow-Origin", "*");
      r.headers.emplace_back("Access-Control-Expose-Headers", "Retry-After, X-Request-Id");
    }
    if (r.content_type.starts_with("text/html")) {
      // No script runs on any page; a value that escaped escaping still could not execute.
      r.headers.emplace_back("Content-Security-Policy",
                             "default-src 'none'; style-src 'unsafe-inline'; img-src data:; form-action 'self'; "
                             "base-uri 'none'; frame-ancestors 'none'");
      r.headers.emplace_back("Referrer-Policy", "no-referrer");
      r.headers.emplace_back("Content-Language", lang);
      r.headers.emplace_back("Vary", "Accept-Language, Cookie");
    }
    return r;
  } catch (const std::exception& e) {
    return finish(request, error_response(500, "internal", e.what()), id);
  }
}

SiteResponse Site::route(const SiteRequest& request) {
  const std::string& p = request.path;
  const bool get = request.method == HttpMethod::Get || request.method == HttpMethod::Head;
  const bool post = request.method == HttpMethod::Post;
  auto not_allowed = [](std::string_view allow) {
    SiteResponse r = error_response(405, "method_not_allowed", fmt::format("use {}", allow));
    r.headers.emplace_back("Allow", std::string(allow));
    return r;
  };

  if (p.starts_with("/api/")) {
    if (request.method == HttpMethod::Options) {
      // A CORS preflight (a browser asks before a GET with headers of its own): reads only.
      SiteResponse r;
      r.status = 204;
      r.content_type.clear();
      r.headers.emplace_back("Allow", "GET, HEAD, OPTIONS");
      r.headers.emplace_back("Access-Control-Allow-Methods", "GET, HEAD");
      r.headers.emplace_back("Access-Control-Allow-Headers", "Accept, Accept-Language");
      r.headers.emplace_back("Access-Control-Max-Age", "86400");
      return r;
    }
    if (p == "/api/v1/runs" || p == "/api/v1/runs/") {
      if (post) {
        SiteRequest copy = request;
        return api_post_run(copy);
      }
      if (get) return api_list_runs(request);
      return not_allowed("GET, POST");
    }
    if (p == "/api/v1/calc") return post ? api_calc(request) : not_allowed("POST");
    if (!get) return not_allowed("GET");
    if (p.starts_with("/api/v1/runs/")) return api_get_run(p.substr(13));
    if (p == "/api/v1/leaderboard") return api_leaderboard(request);
    if (p == "/api/v1/hardware") return api_hardware(request);
    if (p == "/api/v1/models") return api_models(request);
    if (p == "/api/v1/health") return api_health();
    if (p == "/api/v1/dump") return api_dump();
    if (p == "/api/v1/openapi.json" || p == "/api/v1/schema/result.json") {
      auto file = site_data_file(p == "/api/v1/openapi.json" ? "openapi.json" : "result-schema.json");
      SiteResponse r;
      r.body = std::string(file.value_or("{}"));
      r.content_type = p == "/api/v1/openapi.json" ? "application/json" : "application/schema+json";
      return r;
    }
    return error_response(404, "not_found", fmt::format("no API route {} (see /api/v1/openapi.json)", p));
  }

  if (p == "/calc") return get ? page_calc(request) : not_allowed("GET");
  if (!get) return not_allowed("GET");
  if (p == "/" || p == "/leaderboard") return page_leaderboard(request);
  if (p == "/runs" || p == "/runs/") return page_runs(request);
  if (p.starts_with("/runs/")) return page_run(p.substr(6), request);
  if (p == "/hardware") return page_hardware(request);
  if (p == "/models") return page_models(request);
  if (p == "/compare") return page_compare(request);
  if (p == "/getting-started") return page_getting_started(request);
  if (p == "/api" || p == "/api-docs") return page_api_docs();
  if (p == "/benchmarks") return page_benchmarks(request);
  if (p == "/favicon.ico") {
    SiteResponse r;
    r.status = 204;
    r.content_type = "image/x-icon";
    return r;
  }
  return page_error(404, ui_text("error.no_page"));
}

}  // namespace sm::site
