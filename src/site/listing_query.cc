#include "site/listing_query.h"


#include <charconv>
#include <fmt/format.h>

#include "metrics/capacity.h"
#include "result/profile.h"
#include "store/page_cursor.h"

namespace sm::site {

namespace {

UiResult<int64_t> parse_count(const QueryParams& q, const char* name, int64_t fallback, int64_t lo, int64_t hi) {
  if (!q.has(name) || q.get(name).empty()) return fallback;
  const std::string text = q.get(name);
  int64_t v = 0;
  auto r = std::from_chars(text.data(), text.data() + text.size(), v);
  if (r.ec != std::errc{} || r.ptr != text.data() + text.size() || v < lo || v > hi)
    return ui_fail("listing.whole_number", {{"param", name}, {"lo", std::to_string(lo)}, {"hi", std::to_string(hi)}});
  return v;
}

}  // namespace

std::string_view order_name(store::RunOrder order) {
  switch (order) {
    case store::RunOrder::Newest: return "newest";
    case store::RunOrder::SingleStream: return "single_stream";
    case store::RunOrder::BestTotal: return "best_total";
    case store::RunOrder::Prefill32K: return "prefill_32k";
    case store::RunOrder::TokensPerJoule: return "tokens_per_joule";
  }
  return "newest";
}

UiResult<ListingQuery> parse_listing_query(const QueryParams& q, store::RunOrder default_order, int64_t default_limit,
                                         std::string_view default_kind) {
  ListingQuery out;
  out.filter.gpu = q.get("gpu");
  out.filter.model = q.get("model");
  out.filter.engine = q.get("engine");
  out.filter.quantization = q.has("quantization") ? q.get("quantization") : q.get("quant");
  out.kind_param = q.has("kind") ? q.get("kind") : std::string();
  const std::string kind = q.has("kind") ? q.get("kind") : std::string(default_kind);
  if (!kind.empty() && kind != "all") {
    bool known = false;
    for (std::string_view k : kKinds) known = known || kind == k;
    if (!known)
      return ui_fail("listing.not_one_of",
                     {{"param", "kind"}, {"value", kind}, {"allowed", "measured, predicted, simulated, all"}});
    out.filter.kind = kind;
  }
  if (q.has("kind") && q.get("kind").empty()) out.kind_param = "all";
  const std::string flagged = q.get("flagged");
  if (!flagged.empty() && flagged != "include" && flagged != "exclude")
    return ui_fail("listing.not_either", {{"param", "flagged"}, {"value", flagged}, {"first", "include"}, {"second", "exclude"}});
  out.include_flagged = flagged == "include";
  out.profile_param = q.get("profile");
  if (out.profile_param == kStandardView) out.filter.profile = std::string(kCurrentStandardProfile);
  else if (out.profile_param == kOtherView) out.filter.other_than_profile = std::string(kCurrentStandardProfile);
  else if (!out.profile_param.empty())
    return ui_fail("listing.not_either",
                   {{"param", "profile"}, {"value", out.profile_param}, {"first", "standard"}, {"second", "other"}});
  // Users at a speed: the column's floor and context, and the filter's least users.
  if (const std::string floor = q.get("users_at"); !floor.empty()) {
    bool known = false;
    for (double f : kDefaultUserFloorsTokS)
      if (floor == fmt::format("{:g}", f)) {
        out.filter.users_floor_tok_s = f;
        known = true;
      }
    if (!known) return ui_fail("listing.not_one_of", {{"param", "users_at"}, {"value", floor}, {"allowed", "10, 20, 50"}});
  }
  auto context = parse_count(q, "context", out.filter.users_context, 0, kMaxListingContext);
  if (!context) return std::unexpected(context.error());
  out.filter.users_context = *context;
  auto min_users = parse_count(q, "min_users", 0, 0, kMaxListingUsers);
  if (!min_users) return std::unexpected(min_users.error());
  out.filter.min_users = *min_users;
  out.order = default_order;
  std::string sort = q.has("sort") ? q.get("sort") : q.get("metric");
  if (!sort.empty()) {
    bool found = false;
    for (auto o : {store::RunOrder::Newest, store::RunOrder::SingleStream, store::RunOrder::BestTotal,
                   store::RunOrder::Prefill32K, store::RunOrder::TokensPerJoule}) {
      if (sort == order_name(o)) {
        out.order = o;
        found = true;
      }
    }
    if (!found)
      return ui_fail("listing.not_one_of", {{"param", "sort"},
                                            {"value", sort},
                                            {"allowed", "newest, single_stream, best_total, prefill_32k, tokens_per_joule"}});
  }
  auto limit = parse_count(q, "limit", default_limit, 1, store::kMaxPageLimit);
  if (!limit) return std::unexpected(limit.error());
  auto offset = parse_count(q, "offset", 0, 0, int64_t{1} << 40);
  if (!offset) return std::unexpected(offset.error());
  out.page.limit = *limit;
  out.page.offset = *offset;
  if (const std::string cursor = q.get("cursor"); !cursor.empty()) {
    auto c = store::read_page_cursor(cursor);
    if (!c) {
      std::string_view key;
      switch (c.error()) {
        case store::CursorFault::Parts: key = "listing.cursor.parts"; break;
        case store::CursorFault::Start: key = "listing.cursor.start"; break;
        case store::CursorFault::Position: key = "listing.cursor.position"; break;
        case store::CursorFault::Key: key = "listing.cursor.key"; break;
        case store::CursorFault::TimeAndId: key = "listing.cursor.time_and_id"; break;
      }
      return ui_fail_as(store::parse_page_cursor(cursor).error().message, {{std::string(key), {}}});
    }
    if (c->order != out.order) return ui_fail("listing.cursor.other_order", {});
    out.page.cursor = *c;
  }
  return out;
}

void note_page(ListingQuery& q, const store::RunPage& page) {
  q.page.offset = page.position;
  q.next_cursor = page.next ? store::format_page_cursor(*page.next) : std::string();
  q.previous_cursor = page.previous ? store::format_page_cursor(*page.previous) : std::string();
}

void make_ranking(ListingQuery& q) {
  q.filter.known_hardware_only = true;  // a run on unknown hardware is credited to nothing: no rank
  q.filter.with_tokens_per_joule_only = q.order == store::RunOrder::TokensPerJoule;
  q.filter.unflagged_only = !q.include_flagged;
}

UiResult<ListingQuery> parse_leaderboard_query(const QueryParams& query) {
  // Other runs are not ranked: newest first unless a column was clicked.
  const bool other = query.get("profile") == kOtherView;
  auto q = parse_listing_query(query, other ? store::RunOrder::Newest : store::RunOrder::SingleStream, 50, "measured");
  if (!q) return q;
  make_ranking(*q);
  if (other) {
    // Nothing here is ranked, so nothing needs leaving out but the hardware no run is credited to:
    // flagged runs are listed with their badges, and runs without an efficiency figure come last.
    q->filter.with_tokens_per_joule_only = false;
    q->filter.unflagged_only = false;
  } else {
    // A ranking compares like with like: the current standard profile's runs only.
    q->filter.profile = std::string(kCurrentStandardProfile);
  }
  return q;
}

std::vector<std::pair<std::string, std::string>> listing_params(const ListingQuery& q) {
  return {{"gpu", q.filter.gpu},
          {"model", q.filter.model},
          {"engine", q.filter.engine},
          {"quantization", q.filter.quantization},
          {"kind", q.kind_param},
          {"flagged", q.include_flagged ? "include" : ""},
          {"profile", q.profile_param},
          {"users_at", q.filter.users_floor_tok_s == kDefaultUsersFloorTokS ? "" : fmt::format("{:g}", q.filter.users_floor_tok_s)},
          {"context", q.filter.users_context == kDefaultUsersContext ? "" : std::to_string(q.filter.users_context)},
          {"min_users", q.filter.min_users == 0 ? "" : std::to_string(q.filter.min_users)}};
}

}  // namespace sm::site
