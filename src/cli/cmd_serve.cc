// `speedmatrix serve`: the results site and its JSON API, until SIGINT/SIGTERM.
// `speedmatrix serve token create|revoke|list`: upload tokens, stored hashed.
// `speedmatrix serve run list|hide|unhide|delete`: moderation of stored runs.
#include <fmt/format.h>
#include <signal.h>

#include <charconv>
#include <cstdio>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "net/url.h"
#include "core/clock.h"
#include "core/text.h"
#include "core/units.h"
#include "calc/catalog.h"
#include "site/run_checks.h"
#include "site/site.h"
#include "site/site_server.h"
#include "site/trusted_proxies.h"
#include "site/upload_token.h"
#include "store/cached_store.h"
#include "store/result_store.h"
#include "store/run_summary.h"

namespace sm::cli {

namespace {

constexpr const char* kDefaultDb = "sqlite:speedmatrix-results.db";

struct ServeFlags {
  std::string db = kDefaultDb;
  std::string listen = "127.0.0.1:8080";
  int threads = 4;
  int heavy_threads = 2;
  std::string max_upload = "8M";
  double rate_limit_per_min = 60;
  double calc_rate_limit_per_min = 60;
  std::string public_url;
  std::string messages_dir;
  std::string sqlite_sync = "normal";
  int64_t listing_cache = 256;
  std::vector<std::string> trusted_proxies;
};

struct TokenFlags {
  std::string db = kDefaultDb;
  std::string name;
  std::string token_id;
  std::string format = "text";
};

struct ModerationFlags {
  std::string db = kDefaultDb;
  std::string run_id;
  store::ModerationFilter filter;
  std::string format = "text";
  int64_t limit = 100;
};

int usage_error(const char* command, const std::string& message) {
  std::fprintf(stderr, "speedmatrix %s: %s\n", command, message.c_str());
  return kExitUsage;
}

Result<std::unique_ptr<store::ResultStore>> open_db(const std::string& db, int pool_size, bool full_sync) {
  store::StoreOptions options;
  options.pool_size = pool_size;
  options.sqlite_full_sync = full_sync;
  return store::open_store(db, options);
}

std::string now_iso() {
  char buf[32];
  return std::string(format_iso8601_utc(wall_clock_unix_ms(), buf));
}

int serve(const ServeFlags& f) {
  auto listen = parse_listen_address(f.listen);
  if (!listen) return usage_error("serve", listen.error().message);
  auto max_upload = parse_token_count(f.max_upload);
  if (!max_upload || *max_upload < 1024) return usage_error("serve", "--max-upload must be a size of at least 1K, e.g. 8M");
  if (f.sqlite_sync != "normal" && f.sqlite_sync != "full") return usage_error("serve", "--sqlite-sync must be normal or full");
  if (f.threads < 1 || f.threads > 256) return usage_error("serve", "--threads must be between 1 and 256");
  if (f.heavy_threads < 0 || f.heavy_threads > 256)
    return usage_error("serve", "--heavy-threads must be between 0 and 256");
  auto proxies = site::TrustedProxies::parse(f.trusted_proxies);
  if (!proxies) return usage_error("serve", "--trusted-proxy: " + proxies.error().message);

  // Block the stop signals before any thread starts, then wait for one here.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  // One store connection for each thread that may call the store at once: the I/O threads and
  // the heavy-request workers.
  auto store = open_db(f.db, f.threads + f.heavy_threads, f.sqlite_sync == "full");
  if (!store) {
    std::fprintf(stderr, "speedmatrix serve: %s\n", store.error().message.c_str());
    return kExitFailure;
  }
  // Listings are answered from memory while the store's change counter stands still; an upload,
  // hide or delete through any process on the database moves it (docs/site.md, Scale-out).
  store::CachedStore cached(**store, {.max_entries = f.listing_cache});
  site::SiteConfig config;
  config.shared_upload_limit = true;  // one bucket per token for every process on the database
  config.max_upload_bytes = *max_upload;
  config.upload_rate_per_min = f.rate_limit_per_min;
  config.calc_rate_per_min = f.calc_rate_limit_per_min;
  config.public_url = f.public_url;
  config.messages_dir = f.messages_dir;
  while (!config.public_url.empty() && config.public_url.back() == '/') config.public_url.pop_back();
  // The shared buckets need a clock every machine agrees on: the wall clock.
  auto site = site::Site::create(cached, config, site::UnixClock::instance());
  if (!site) {
    std::fprintf(stderr, "speedmatrix serve: %s\n", site.error().message.c_str());
    return kExitFailure;
  }
  if ((*site)->rechecked_at_start() > 0)
    std::fprintf(stderr, "speedmatrix serve: checked %lld stored runs again with this build's catalog and checks\n",
                 static_cast<long long>((*site)->rechecked_at_start()));
  site::SiteServerConfig server_config{.host = listen->host, .port = listen->port, .threads = f.threads, .heavy_threads = f.heavy_threads};
  server_config.trusted_proxies = std::move(*proxies);
  auto server = site::SiteServer::start(**site, server_config);
  if (!server) {
    std::fprintf(stderr, "speedmatrix serve: %s\n", server.error().message.c_str());
    return kExitFailure;
  }
  auto version = (*store)->schema_version();
  std::fprintf(stderr,
               "speedmatrix serve: store %s (%s, schema v%lld); uploads up to %s bytes, %g a minute per token\n"
               "  make an upload token: speedmatrix serve token create --db %s --name NAME\n"
               "  Ctrl-C stops it.\n",
               store::redact_dsn(f.db).c_str(), std::string((*store)->backend()).c_str(),
               static_cast<long long>(version.value_or(0)), format_thousands(*max_upload).c_str(),
               f.rate_limit_per_min, store::redact_dsn(f.db).c_str());
  // The first line on stdout is the address, for scripts and tests that start it on port 0.
  std::printf("speedmatrix serve: listening on %s\n", (*server)->base_url().c_str());
  std::fflush(stdout);
  int sig = 0;
  sigwait(&stop_signals, &sig);
  (*server)->stop();
  std::fprintf(stderr, "speedmatrix serve: stopped\n");
  return kExitOk;
}

int token_create(const TokenFlags& f) {
  if (f.name.empty()) return usage_error("serve token create", "--name is required (who or what uploads with it)");
  auto store = open_db(f.db, 1, false);
  if (!store) {
    std::fprintf(stderr, "speedmatrix serve token create: %s\n", store.error().message.c_str());
    return kExitFailure;
  }
  auto token = site::generate_upload_token();
  if (!token) {
    std::fprintf(stderr, "speedmatrix serve token create: %s\n", token.error().message.c_str());
    return kExitFailure;
  }
  store::TokenInfo info;
  info.token_id = token->token_id;
  info.name = f.name;
  info.created_at = now_iso();
  if (auto ok = (*store)->create_token(info, token->sha256_hex); !ok) {
    std::fprintf(stderr, "speedmatrix serve token create: %s\n", ok.error().message.c_str());
    return kExitFailure;
  }
  if (f.format == "json") {
    nlohmann::json j = {{"token", token->secret}, {"token_id", info.token_id}, {"name", info.name}, {"created_at", info.created_at}};
    std::printf("%s\n", j.dump(2).c_str());
  } else {
    std::printf("%s\n", token->secret.c_str());
    std::fprintf(stderr,
                 "speedmatrix serve token create: token %s (\"%s\") above; it is shown only this once.\n"
                 "  upload with: speedmatrix upload runs/<run>/result.json --to URL --token <token>\n",
                 info.token_id.c_str(), info.name.c_str());
  }
  return kExitOk;
}

int token_revoke(const TokenFlags& f) {
  auto store = open_db(f.db, 1, false);
  if (!store) {
    std::fprintf(stderr, "speedmatrix serve token revoke: %s\n", store.error().message.c_str());
    return kExitFailure;
  }
  auto n = (*store)->revoke_token(f.token_id, now_iso());
  if (!n) {
    std::fprintf(stderr, "speedmatrix serve token revoke: %s\n", n.error().message.c_str());
    return kExitFailure;
  }
  if (*n == 1) {
    std::fprintf(stderr, "speedmatrix serve token revoke: revoked %s\n", escape_controls(f.token_id).c_str());
    return kExitOk;
  }
  // Not a valid token's id: say what it is instead, so a name never revokes anything by itself.
  auto tokens = (*store)->list_tokens();
  if (!tokens) {
    std::fprintf(stderr, "speedmatrix serve token revoke: %s\n", tokens.error().message.c_str());
    return kExitFailure;
  }
  std::string named;
  for (const auto& t : *tokens) {
    if (t.token_id == f.token_id) {
      std::fprintf(stderr, "speedmatrix serve token revoke: %s was already revoked (%s)\n", t.token_id.c_str(),
                   t.revoked_at.c_str());
      return kExitFailure;
    }
    if (t.name == f.token_id && t.revoked_at.empty()) named += (named.empty() ? "" : ", ") + t.token_id;
  }
  if (!named.empty())
    std::fprintf(stderr,
                 "speedmatrix serve token revoke: '%s' is a token name, not an id; revoke by id: the valid tokens of "
                 "that name are %s (serve token list shows them all)\n",
                 escape_controls(f.token_id).c_str(), named.c_str());
  else
    std::fprintf(stderr, "speedmatrix serve token revoke: no token has the id '%s' (serve token list shows them)\n",
                 escape_controls(f.token_id).c_str());
  return kExitFailure;
}

int token_list(const TokenFlags& f) {
  auto store = open_db(f.db, 1, false);
  if (!store) {
    std::fprintf(stderr, "speedmatrix serve token list: %s\n", store.error().message.c_str());
    return kExitFailure;
  }
  auto tokens = (*store)->list_tokens();
  if (!tokens) {
    std::fprintf(stderr, "speedmatrix serve token list: %s\n", tokens.error().message.c_str());
    return kExitFailure;
  }
  if (f.format == "json") {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& t : *tokens)
      out.push_back({{"token_id", t.token_id}, {"name", t.name}, {"created_at", t.created_at},
                     {"revoked_at", t.revoked_at.empty() ? nlohmann::json(nullptr) : nlohmann::json(t.revoked_at)},
                     {"uploads", t.uploads}});
    std::printf("%s\n", out.dump(2).c_str());
    return kExitOk;
  }
  std::printf("%-16s %-24s %-21s %-21s %s\n", "ID", "NAME", "CREATED", "REVOKED", "UPLOADS");
  for (const auto& t : *tokens)
    std::printf("%-16s %-24s %-21s %-21s %lld\n", t.token_id.c_str(), escape_controls(t.name).c_str(), t.created_at.c_str(),
                t.revoked_at.empty() ? "-" : t.revoked_at.c_str(), static_cast<long long>(t.uploads));
  return kExitOk;
}

// `serve run list`: every run, hidden ones too, newest first, with what moderation needs.
int run_list(const ModerationFlags& f) {
  auto store = open_db(f.db, 1, false);
  if (!store) {
    std::fprintf(stderr, "speedmatrix serve run list: %s\n", store.error().message.c_str());
    return kExitFailure;
  }
  auto page = (*store)->list_runs_for_moderation(f.filter, f.limit);
  if (!page) {
    std::fprintf(stderr, "speedmatrix serve run list: %s\n", page.error().message.c_str());
    return kExitFailure;
  }
  if (f.format == "json") {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& r : page->runs)
      out.push_back({{"run_id", r.run_id}, {"kind", r.kind}, {"hidden", r.hidden}, {"implausible", r.implausible},
                     {"synthetic_model", r.synthetic_model}, {"unverified_hardware", r.unverified_hardware},
                     {"gpu", r.gpu}, {"gpu_reported", r.gpu_reported}, {"model", r.model},
                     {"model_reported", r.model_reported}, {"engine", r.engine},
                     {"token_id", r.token_id}, {"uploaded_at", r.uploaded_at}});
    std::printf("%s\n", out.dump(2).c_str());
    return kExitOk;
  }
  // Every uploaded string is escaped: a name with control characters could otherwise move the
  // cursor or clear the line and hide rows from the moderator reading this.
  std::printf("%-40s %-9s %-8s %-16s %-24s %-28s %s\n", "RUN", "KIND", "STATE", "TOKEN", "UPLOADED", "HARDWARE", "MODEL");
  for (const auto& r : page->runs) {
    const char* state = r.hidden                                 ? "hidden"
                        : !r.implausible.empty()                 ? "implaus"
                        : r.synthetic_model                      ? "synth"
                        : r.gpu == store::kUnknownHardwareGroup  ? "unknown"
                        : r.unverified_hardware                  ? "unverif"
                                                                 : "shown";
    std::printf("%-40s %-9s %-8s %-16s %-24s %-28s %s\n", escape_controls(r.run_id).c_str(), escape_controls(r.kind).c_str(),
                state, escape_controls(r.token_id.empty() ? "-" : r.token_id).c_str(), r.uploaded_at.c_str(),
                escape_controls(r.gpu).c_str(), escape_controls(r.model).c_str());
  }
  if (page->total > static_cast<int64_t>(page->runs.size()))
    std::fprintf(stderr, "speedmatrix serve run list: %lld of %lld matching runs shown (--limit)\n",
                 static_cast<long long>(page->runs.size()), static_cast<long long>(page->total));
  return kExitOk;
}

// `serve run hide|unhide|delete ID`.
int run_moderate(const ModerationFlags& f, const std::string& verb) {
  const std::string command = "serve run " + verb;
  auto store = open_db(f.db, 1, false);
  if (!store) {
    std::fprintf(stderr, "speedmatrix %s: %s\n", command.c_str(), store.error().message.c_str());
    return kExitFailure;
  }
  auto exists = (*store)->get_run_summary(f.run_id);
  if (!exists) {
    std::fprintf(stderr, "speedmatrix %s: %s\n", command.c_str(), exists.error().message.c_str());
    return kExitFailure;
  }
  if (!*exists) {
    std::fprintf(stderr, "speedmatrix %s: no run with id '%s'\n", command.c_str(), f.run_id.c_str());
    return kExitFailure;
  }
  auto n = verb == "delete" ? (*store)->delete_run(f.run_id) : (*store)->set_hidden(f.run_id, verb == "hide");
  if (!n) {
    std::fprintf(stderr, "speedmatrix %s: %s\n", command.c_str(), n.error().message.c_str());
    return kExitFailure;
  }
  const char* done = verb == "delete" ? "deleted" : verb == "hide" ? "hidden" : "shown again";
  if (*n == 0) std::fprintf(stderr, "speedmatrix %s: run %s was already %s\n", command.c_str(), f.run_id.c_str(), done);
  else std::fprintf(stderr, "speedmatrix %s: run %s %s\n", command.c_str(), f.run_id.c_str(), done);
  return kExitOk;
}

}  // namespace

void add_serve_command(CLI::App& app, Action& action) {
  auto flags = std::make_shared<ServeFlags>();
  auto token_flags = std::make_shared<TokenFlags>();
  auto run_flags = std::make_shared<ModerationFlags>();
  CLI::App* cmd = app.add_subcommand("serve", "Run the results site: leaderboard, runs, hardware, models, calculator, JSON API");
  cmd->footer(
      "--db takes sqlite:PATH (one file, WAL; the default) or postgresql://USER@HOST:PORT/DATABASE.\n"
      "The first line on stdout is \"speedmatrix serve: listening on URL\" (useful with port 0).\n"
      "Examples:\n"
      "  speedmatrix serve --db sqlite:results.db --listen 0.0.0.0:8080\n"
      "  speedmatrix serve token create --db sqlite:results.db --name lab-3090\n"
      "  speedmatrix serve token list --db sqlite:results.db\n"
      "  speedmatrix serve token revoke --db sqlite:results.db tk_...   (the id token list shows)\n"
      "  speedmatrix serve run list --db sqlite:results.db --flag implausible --token tk_...\n"
      "  speedmatrix serve run hide --db sqlite:results.db RUN_ID   (also: run list, run unhide, run delete)\n"
      "Docs: docs/site.md; the API is described at /api/v1/openapi.json.");
  cmd->add_option("--db", flags->db, "Store: sqlite:PATH or postgresql://...")->capture_default_str();
  cmd->add_option("--listen", flags->listen, "HOST:PORT to listen on (port 0 = any free port)")->capture_default_str();
  cmd->add_option("--threads", flags->threads, "I/O threads: answer the cheap requests (health, leaderboard, listings)")
      ->capture_default_str();
  cmd->add_option("--trusted-proxy", flags->trusted_proxies,
                  "A load balancer or reverse proxy in front of the site, as an address or CIDR block (repeatable, "
                  "e.g. 10.0.0.0/8): a request from it is counted as from the client its X-Forwarded-For names, for "
                  "the calculator's per-client rate limit. Without it the connection's address is the client, and "
                  "X-Forwarded-For is ignored (anyone could write it)");
  cmd->add_option("--heavy-threads", flags->heavy_threads,
                  "Workers for the heavy requests (run pages, compare, calculator), queued apart from the cheap ones "
                  "(0: on the I/O threads); store connections = --threads + --heavy-threads")
      ->capture_default_str();
  cmd->add_option("--max-upload", flags->max_upload, "Largest result body accepted (K/M suffixes); larger gets 413")
      ->capture_default_str();
  cmd->add_option("--rate-limit", flags->rate_limit_per_min, "Uploads a minute per token (0: no limit); more gets 429")
      ->capture_default_str();
  cmd->add_option("--calc-rate-limit", flags->calc_rate_limit_per_min,
                  "Calculator requests a minute per client address (0: no limit)")
      ->capture_default_str();
  cmd->add_option("--public-url", flags->public_url, "Base URL the Getting started page shows (default: from the Host header)");
  cmd->add_option("--listing-cache", flags->listing_cache,
                  "Listing pages kept in memory while no upload changes the store (0: none)")
      ->capture_default_str();
  cmd->add_option("--messages", flags->messages_dir,
                  "Folder of extra message catalogs (messages-LANG.json: a new language, or one replacing a built-in)");
  cmd->add_option("--sqlite-sync", flags->sqlite_sync,
                  "SQLite: 'normal' survives a killed server; 'full' also a power cut (one fsync per upload)")
      ->capture_default_str();

  CLI::App* token = cmd->add_subcommand("token", "Make, revoke and list upload tokens");
  token->require_subcommand(1);
  CLI::App* create = token->add_subcommand("create", "Make a token; it is printed once, the store keeps only its hash");
  create->add_option("--db", token_flags->db, "Store: sqlite:PATH or postgresql://...")->capture_default_str();
  create->add_option("--name", token_flags->name, "Who or what uploads with it, e.g. lab-3090")->required();
  create->add_option("--format", token_flags->format, "'text' (the token alone on stdout) or 'json'")->capture_default_str();
  CLI::App* revoke = token->add_subcommand("revoke", "Revoke one token by its id; uploads with it get 401 at once");
  revoke->add_option("--db", token_flags->db, "Store: sqlite:PATH or postgresql://...")->capture_default_str();
  revoke->add_option("token_id", token_flags->token_id,
                     "The token's id (tk_..., from token list). Not a name: names are not unique")
      ->required();
  CLI::App* list = token->add_subcommand("list", "List tokens (ids, names, dates, uploads; never the secrets)");
  list->add_option("--db", token_flags->db, "Store: sqlite:PATH or postgresql://...")->capture_default_str();
  list->add_option("--format", token_flags->format, "'text' or 'json'")->capture_default_str();

  create->callback([token_flags, &action] { action = [token_flags] { return token_create(*token_flags); }; });
  revoke->callback([token_flags, &action] { action = [token_flags] { return token_revoke(*token_flags); }; });
  list->callback([token_flags, &action] { action = [token_flags] { return token_list(*token_flags); }; });
  CLI::App* run = cmd->add_subcommand("run", "Moderate stored runs: list them, hide, show again or delete one");
  run->require_subcommand(1);
  CLI::App* run_list_cmd = run->add_subcommand(
      "list", "List runs, hidden ones too, newest first; uploaded names are printed with control characters escaped");
  run_list_cmd->add_option("--db", run_flags->db, "Store: sqlite:PATH or postgresql://...")->capture_default_str();
  run_list_cmd->add_option("--format", run_flags->format, "'text' or 'json'")->capture_default_str();
  run_list_cmd->add_option("--limit", run_flags->limit, "At most this many runs")->capture_default_str();
  run_list_cmd->add_option("--token", run_flags->filter.token_id, "Only runs uploaded with this token id (tk_...)");
  run_list_cmd->add_option("--kind", run_flags->filter.kind, "Only runs of this kind")
      ->check(CLI::IsMember({"measured", "simulated", "predicted"}));
  run_list_cmd->add_option("--flag", run_flags->filter.flag,
                           "Only runs flagged so: implausible, synthetic_model, hidden, unknown_hardware, "
                           "unverified_hardware; or none "
                           "(shown, unflagged, known hardware)")
      ->check(CLI::IsMember(std::vector<std::string>(std::begin(store::kModerationFlags), std::end(store::kModerationFlags))));
  run_list_cmd->callback([run_flags, &action] { action = [run_flags] { return run_list(*run_flags); }; });
  for (const char* verb : {"hide", "unhide", "delete"}) {
    const char* what = std::string_view(verb) == "hide"     ? "Hide a run: out of every page and API listing, kept in the store"
                       : std::string_view(verb) == "unhide" ? "Show a hidden run again"
                                                            : "Delete a run for good";
    CLI::App* sub = run->add_subcommand(verb, what);
    sub->add_option("--db", run_flags->db, "Store: sqlite:PATH or postgresql://...")->capture_default_str();
    sub->add_option("run_id", run_flags->run_id, "The run's id")->required();
    sub->callback([run_flags, &action, v = std::string(verb)] {
      action = [run_flags, v] { return run_moderate(*run_flags, v); };
    });
  }
  CLI::App* checks = cmd->add_subcommand(
      "checks-fingerprint",
      "Print the fingerprint of this build's catalog and upload checks: a run stored with another (its "
      "checked_with column) is checked again when the site starts. For scripts that write runs into the "
      "store directly and have checked them otherwise (bench/site_scale.sh)");
  checks->callback([&action] {
    action = [] {
      auto catalog = calc::Catalog::builtin();
      if (!catalog) {
        std::fprintf(stderr, "speedmatrix serve checks-fingerprint: %s\n", catalog.error().message.c_str());
        return kExitFailure;
      }
      std::printf("%s\n", site::checks_fingerprint(*catalog).c_str());
      return kExitOk;
    };
  });
  cmd->callback([flags, token, run, checks, &action] {
    if (token->parsed() || run->parsed() || checks->parsed()) return;  // a subcommand set the action
    action = [flags] { return serve(*flags); };
  });
}

}  // namespace sm::cli
