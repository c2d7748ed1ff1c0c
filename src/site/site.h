#pragma once
// The results site: JSON API and server-rendered pages over a ResultStore. Site::handle maps one
// request to one response and knows nothing of sockets (site_server.h does the HTTP), so every
// route is testable by calling it directly.
//
//   auto site = sm::site::Site::create(*store, config);       // Result<std::unique_ptr<Site>>
//   SiteResponse r = (*site)->handle({.method = HttpMethod::Get, .path = "/api/v1/runs"});
//
// Thread safety: handle() and precheck_upload() may run on many threads at once; the store,
// the rate limiters and the immutable catalog and schema are all safe to share.
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "calc/catalog.h"
#include "calc/corpus.h"
#include "site/calc_evidence.h"
#include "site/calc_input.h"
#include "core/clock.h"
#include "core/error.h"
#include "site/json_schema.h"
#include "site/rate_limiter.h"
#include "site/run_dump.h"
#include "site/site_http.h"
#include "site/ui_language.h"
#include "store/result_store.h"

namespace sm::site {

/// Settings of the site that are not the listening address.
struct SiteConfig {
  int64_t max_upload_bytes = int64_t{8} << 20;  ///< largest accepted result body; larger → 413
  double upload_rate_per_min = 60;              ///< uploads a minute per token (≤ 0: unlimited)
  double upload_burst = 0;                      ///< bucket size; 0: one minute's worth
  double calc_rate_per_min = 60;                ///< calculations a minute per client address (≤ 0: unlimited)
  /// Keep the upload buckets in the store, shared by every process on the database (scale-out);
  /// false: in this process. The calculator's per-address limit is always per process.
  bool shared_upload_limit = false;
  std::string public_url;                       ///< base URL the Getting started page shows; empty: from Host
  /// A folder of extra message catalogs (messages-LANG.json), added to the embedded ones
  /// (`serve --messages DIR`); empty: the embedded ones only.
  std::string messages_dir;
  /// Where the site writes its log lines (one per 5xx and per refused upload); empty: stderr.
  std::function<void(const std::string& line)> log_line;
};

/// Largest body of any request but an upload (e.g. POST /api/v1/calc).
constexpr int64_t kMaxSmallBodyBytes = 64 * 1024;

class Site {
 public:
  /// Loads the embedded result schema, the upload rules and the calculator's catalog. `store` and `clock` must
  /// outlive the site.
  static Result<std::unique_ptr<Site>> create(store::ResultStore& store, SiteConfig config,
                                              const Clock& clock = SteadyClock::instance());

  /// Answers one request. Never throws; store failures become 500/503 responses whose body
  /// names only the request id (the reason goes to the log).
  SiteResponse handle(const SiteRequest& request);

  /// True for the one route that takes large bodies and a token: POST /api/v1/runs.
  static bool is_upload(const SiteRequest& head);

  /// True for the routes whose answer may take long to make (docs/site.md, "Heavy pages"): a
  /// run's page and JSON (up to 1,000 cells), a comparison, the calculator (page and API). The
  /// server answers them on its worker pool, the cheap ones (health, leaderboard, listings,
  /// documents) on its I/O threads, so the cheap ones never wait behind them. Uploads are not
  /// heavy: they stay on the I/O threads, bounded by their token's rate limit. The open-data
  /// dump is heavy (built once per store generation, then copied out).
  static bool is_heavy(const SiteRequest& head);
  /// True for the API's reads (GET, HEAD, OPTIONS under /api/): they carry the CORS headers.
  static bool is_read_api(const SiteRequest& head);

  /// The answer to a heavy request the server had no room to queue: 503 with Retry-After
  /// (seconds), a page for a page's route, JSON for the API's.
  SiteResponse handle_busy(const SiteRequest& head, int64_t retry_after_s);

  /// The checks of an upload that need only its headers, done before its body is read:
  /// token (401), declared size (413), rate limit (429). Returns the rejection, or nothing and
  /// sets `head.token` so handle() does not check again.
  std::optional<SiteResponse> precheck_upload(SiteRequest& head, std::optional<uint64_t> content_length);

  /// The answer to a request whose body went over body_limit() while it was read: 413.
  SiteResponse handle_oversize(const SiteRequest& head);

  /// The body limit for a request with these headers.
  int64_t body_limit(const SiteRequest& head) const;

  const SiteConfig& config() const { return config_; }
  /// How many stored runs create() checked again with this build's catalog (run_checks.h).
  int64_t rechecked_at_start() const { return rechecked_at_start_; }

 private:
  Site(store::ResultStore& store, SiteConfig config, const Clock& clock, JsonSchema schema, JsonSchema rules,
       calc::Catalog catalog, MessageCatalogs messages);

  SiteResponse route(const SiteRequest& request);
  /// Runs `make` in the request's page language and finishes its answer (handle, handle_busy).
  SiteResponse answer(const SiteRequest& request, const std::function<SiteResponse()>& make);
  /// Adds the common headers and the request id, replaces a 5xx body by a generic one, and logs
  /// 5xx answers and refused uploads.
  SiteResponse finish(const SiteRequest& request, SiteResponse response, std::string id = "");
  void log(const std::string& line) const;
  std::string next_request_id();
  // API (site_api.cc)
  SiteResponse api_post_run(SiteRequest& request);
  SiteResponse api_list_runs(const SiteRequest& request);
  SiteResponse api_get_run(const std::string& run_id);
  SiteResponse api_leaderboard(const SiteRequest& request);
  SiteResponse api_hardware(const SiteRequest& request);
  SiteResponse api_models(const SiteRequest& request);
  SiteResponse api_calc(const SiteRequest& request);
  SiteResponse api_health();
  SiteResponse api_dump();
  std::optional<SiteResponse> authorize(SiteRequest& request);
  // Pages (site_pages.cc)
  SiteResponse page_leaderboard(const SiteRequest& request);
  SiteResponse page_runs(const SiteRequest& request);
  SiteResponse page_run(const std::string& run_id, const SiteRequest& request);
  SiteResponse page_hardware(const SiteRequest& request);
  SiteResponse page_models(const SiteRequest& request);
  SiteResponse page_compare(const SiteRequest& request);
  SiteResponse page_calc(const SiteRequest& request);
  SiteResponse page_getting_started(const SiteRequest& request);
  SiteResponse page_api_docs();
  SiteResponse page_benchmarks(const SiteRequest& request);
  SiteResponse page_error(int status, const std::string& message);

  store::ResultStore& store_;
  SiteConfig config_;
  const Clock& clock_;
  JsonSchema schema_;  ///< docs/result-schema.json: what a result is
  JsonSchema rules_;   ///< data/site/upload-rules.json: what this site accepts of one
  calc::Catalog catalog_;
  std::string checks_fingerprint_;  ///< checks_fingerprint(catalog_): what apply_site_checks records
  int64_t rechecked_at_start_ = 0;  ///< stored runs checked again by create (run_checks.h)
  RateLimiter upload_limiter_;
  RateLimiter calc_limiter_;
  std::vector<calc::CorpusCase> corpus_;  ///< data/measurements/measurements.csv mapped to the catalog
  std::vector<std::pair<std::string, CorpusSource>> corpus_sources_;  ///< data/measurements/sources.csv
  MessageCatalogs messages_;  ///< data/site/messages-LANG.json: the page frame's text per language
  RunDumpCache dump_cache_;   ///< GET /api/v1/dump, built once per store generation
  uint64_t request_id_seed_ = 0;
  std::atomic<uint64_t> request_counter_{0};
};

}  // namespace sm::site
