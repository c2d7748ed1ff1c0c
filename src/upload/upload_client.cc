#include "upload/upload_client.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "core/clock.h"
#include "bench/run_folder.h"
#include "core/rng.h"
#include "net/http_fetch.h"
#include "result/redact_result.h"
#include "result/result_json.h"

namespace sm::upload {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr int kPendingSearchDepth = 4;

std::string runs_endpoint(std::string base) {
  while (!base.empty() && base.back() == '/') base.pop_back();
  if (base.ends_with("/api/v1/runs")) return base;
  return base + "/api/v1/runs";
}

std::string site_root(std::string base) {
  while (!base.empty() && base.back() == '/') base.pop_back();
  if (base.ends_with("/api/v1/runs")) base.resize(base.size() - 12);
  return base;
}

// The message of the site's JSON error body, else the start of the body.
std::string describe_response(const HttpResponse& r) {
  json j = json::parse(r.body, nullptr, false);
  if (!j.is_discarded() && j.is_object()) {
    if (auto e = j.find("error"); e != j.end() && e->is_object() && e->contains("message") && (*e)["message"].is_string())
      return fmt::format("HTTP {}: {}", r.status, (*e)["message"].get<std::string>());
  }
  std::string body = r.body.substr(0, 200);
  return fmt::format("HTTP {}{}{}", r.status, body.empty() ? "" : ": ", body);
}

// The run's standing with the leaderboard from the site's answer (upload/ranking_note.h); a site
// older than profiles does not say, and a field of another type is read as not said.
void read_standing(const json& j, UploadOutcome& out) {
  auto text = [&](const char* key) {
    auto it = j.find(key);
    return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  if (auto it = j.find("ranked"); it != j.end() && it->is_boolean() && j.contains("standard_profile"))
    out.ranked = it->get<bool>();
  out.profile = text("profile");
  out.standard_profile = text("standard_profile");
  out.not_ranked_because = text("not_ranked_because");
  out.implausible = text("implausible");
}

Result<std::string> read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return fail(ErrorCode::Io, fmt::format("cannot open {}", path));
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string now_iso() {
  char buf[32];
  return std::string(format_iso8601_utc(wall_clock_unix_ms(), buf));
}

std::string result_path_of(const std::string& path) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) return (fs::path(path) / kResultFile).string();
  return path;
}

}  // namespace

bool is_retryable(long status, ErrorCode transport_error) {
  if (status == 0) return transport_error == ErrorCode::Network || transport_error == ErrorCode::Timeout;
  return status == 408 || status == 429 || status >= 500;
}

double backoff_s(int attempt, const UploadOptions& o, double unit_random) {
  const double full = std::min(o.max_backoff_s, o.initial_backoff_s * std::pow(2.0, std::max(0, attempt - 1)));
  return full / 2 + full / 2 * unit_random;
}

Result<UploadOutcome> upload_result_text(const std::string& json_text, const UploadOptions& o) {
  if (o.site_url.empty()) return fail(ErrorCode::InvalidArgument, "no site URL (--to URL)");
  if (o.token.empty())
    return fail(ErrorCode::InvalidArgument, "no upload token (--token T or $SPEEDMATRIX_UPLOAD_TOKEN)");
  Rng rng(o.jitter_seed ? o.jitter_seed : static_cast<uint64_t>(SteadyClock::instance().now_ns()));
  auto sleep = o.sleep ? o.sleep : [](double s) { std::this_thread::sleep_for(std::chrono::duration<double>(s)); };
  HttpRequest request;
  request.url = runs_endpoint(o.site_url);
  request.body = json_text;
  request.headers.push_back("Authorization: Bearer " + o.token);
  FetchOptions fetch;
  fetch.timeout_s = o.timeout_s;
  fetch.max_body_bytes = 1 << 20;
  fetch.connection = o.connection;
  const int attempts = std::max(1, o.max_attempts);
  Error last{ErrorCode::Internal, "not tried"};
  for (int attempt = 1; attempt <= attempts; ++attempt) {
    auto response = http_fetch(request, fetch);
    long status = 0;
    ErrorCode transport = ErrorCode::Http;
    int64_t retry_after_s = 0;
    if (!response) {
      last = response.error();
      transport = response.error().code;
    } else if (response->status == 200 || response->status == 201) {
      UploadOutcome out;
      out.http_status = response->status;
      out.attempts = attempt;
      out.already_stored = response->status == 200;
      json j = json::parse(response->body, nullptr, false);
      if (!j.is_discarded() && j.is_object()) {
        out.run_id = j.value("run_id", "");
        out.run_url = site_root(o.site_url) + j.value("url", "");
        read_standing(j, out);
      }
      return out;
    } else {
      status = response->status;
      last = Error{ErrorCode::Http, describe_response(*response)};
      if (status == 429) {
        // The site repeats its Retry-After header in the body (http_fetch does not return headers).
        json j = json::parse(response->body, nullptr, false);
        if (!j.is_discarded() && j.is_object() && j.contains("error") && j["error"].is_object())
          retry_after_s = j["error"].value("retry_after_s", int64_t{0});
      }
    }
    if (!is_retryable(status, transport) || attempt == attempts) break;
    double wait = backoff_s(attempt, o, rng.next_double());
    if (retry_after_s > 0) wait = std::max(wait, static_cast<double>(retry_after_s));
    sleep(wait);
  }
  return fail(last.code, fmt::format("upload to {} failed: {}", request.url, last.message));
}

Result<std::string> upload_body(const std::string& result_text, const RedactOptions& redact) {
  json j = json::parse(result_text, nullptr, false);
  if (j.is_discarded()) return fail(ErrorCode::InvalidArgument, "not valid JSON");
  auto result = result_from_json(j);
  if (!result) return std::unexpected(result.error());
  redact_result(*result, redact);
  return to_json(*result).dump(2) + "\n";
}

Result<UploadOutcome> upload_result_file(const std::string& path, const UploadOptions& o) {
  const std::string result_path = result_path_of(path);
  const fs::path marker = fs::path(result_path).parent_path() / kPendingFile;
  auto text = read_text(result_path);
  if (!text) return std::unexpected(text.error());
  // Check it locally first: a file that is not a result is not worth a pending marker.
  auto body = upload_body(*text, o.redact);
  if (!body) return fail(body.error().code, fmt::format("{}: {}", result_path, body.error().message));
  auto sent = upload_result_text(*body, o);
  std::error_code ec;
  if (sent) {
    fs::remove(marker, ec);
    return sent;
  }
  json pending = {{"url", site_root(o.site_url)},
                  {"result_file", fs::path(result_path).filename().string()},
                  {"run_id", json::parse(*body).value("run_id", "")},
                  {"last_error", sent.error().message},
                  {"last_attempt_at", now_iso()}};
  if (auto ok = write_file_atomic(marker.string(), pending.dump(2) + "\n"); !ok)
    return fail(sent.error().code, sent.error().message + "; and " + ok.error().message);
  return fail(sent.error().code, sent.error().message + fmt::format(" (kept for later: {})", marker.string()));
}

Result<std::vector<PendingUpload>> find_pending_uploads(const std::string& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return fail(ErrorCode::InvalidArgument, fmt::format("{} is not a folder", dir));
  std::vector<PendingUpload> out;
  auto consider = [&](const fs::path& marker) -> Result<void> {
    auto text = read_text(marker.string());
    if (!text) return std::unexpected(text.error());
    json j = json::parse(*text, nullptr, false);
    if (j.is_discarded() || !j.is_object()) return fail(ErrorCode::InvalidArgument, fmt::format("{} is not valid JSON", marker.string()));
    PendingUpload p;
    p.marker_path = marker.string();
    p.result_path = (marker.parent_path() / j.value("result_file", std::string(kResultFile))).string();
    p.site_url = j.value("url", "");
    p.last_error = j.value("last_error", "");
    out.push_back(std::move(p));
    return {};
  };
  if (fs::exists(fs::path(dir) / kPendingFile, ec))
    if (auto ok = consider(fs::path(dir) / kPendingFile); !ok) return std::unexpected(ok.error());
  for (auto it = fs::recursive_directory_iterator(dir, fs::directory_options::skip_permission_denied, ec);
       it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (ec) break;
    if (it.depth() >= kPendingSearchDepth) it.disable_recursion_pending();
    if (it->is_regular_file(ec) && it->path().filename() == kPendingFile && it.depth() > 0)
      if (auto ok = consider(it->path()); !ok) return std::unexpected(ok.error());
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.marker_path < b.marker_path; });
  return out;
}

std::string run_folder_of(const std::string& path) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) return path;
  return fs::path(path).parent_path().string();
}

}  // namespace sm::upload
