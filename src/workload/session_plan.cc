#include "workload/session_plan.h"

#include <algorithm>
#include <fmt/format.h>
#include <map>
#include <optional>
#include <nlohmann/json.hpp>
#include <random>

#include "core/units.h"

namespace sm {

namespace {

constexpr int64_t kMaxPlanSessions = 4096;
constexpr int64_t kMaxPlanTurns = 1000;
constexpr int64_t kMaxTraceTurns = 100000;
constexpr int64_t kMaxPlanTurnTokens = 1 << 20;

Result<void> bad_session_spec(std::string message) { return fail(ErrorCode::InvalidArgument, std::move(message)); }

int64_t draw_tokens(const TokenRange& r, std::mt19937_64& rng) {
  if (r.hi <= r.lo) return r.lo;
  return std::uniform_int_distribution<int64_t>(r.lo, r.hi)(rng);
}

// Gives each turn the index of its session's previous one.
void link_turns(SessionPlan& plan) {
  std::vector<int64_t> last(static_cast<size_t>(plan.sessions), -1);
  for (size_t i = 0; i < plan.turns.size(); ++i) {
    SessionTurn& t = plan.turns[i];
    t.after = last[static_cast<size_t>(t.session)];
    last[static_cast<size_t>(t.session)] = static_cast<int64_t>(i);
    plan.max_turns = std::max(plan.max_turns, t.turn);
  }
}

}  // namespace

Result<TokenRange> parse_token_range(std::string_view text) {
  const size_t dash = text.find('-');
  auto lo = parse_token_count(text.substr(0, dash));
  if (!lo) return std::unexpected(lo.error());
  TokenRange r{*lo, *lo};
  if (dash != std::string_view::npos) {
    auto hi = parse_token_count(text.substr(dash + 1));
    if (!hi) return std::unexpected(hi.error());
    r.hi = *hi;
  }
  if (r.lo < 1 || r.hi < r.lo || r.hi > kMaxPlanTurnTokens)
    return fail(ErrorCode::InvalidArgument,
                fmt::format("\"{}\": a length (1 to 1M tokens) or a range LOW-HIGH with LOW <= HIGH", text));
  return r;
}

std::string format_token_range(const TokenRange& r) {
  return r.hi > r.lo ? format_tokens(r.lo) + "-" + format_tokens(r.hi) : format_tokens(r.lo);
}

Result<void> parse_sessions_flag(std::string_view text, SessionShape& shape) {
  const size_t x = text.find_first_of("xX");
  const auto number = [](std::string_view s, int64_t& out) {
    if (s.empty() || s.size() > 9 || !std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; }))
      return false;
    out = std::stoll(std::string(s));
    return true;
  };
  int64_t sessions = 0, turns = 0;
  if (x == std::string_view::npos || !number(text.substr(0, x), sessions) || !number(text.substr(x + 1), turns))
    return bad_session_spec(fmt::format("\"{}\": SESSIONSxTURNS, e.g. 4x6 (4 sessions of 6 turns)", text));
  if (sessions < 1 || sessions > kMaxPlanSessions) return bad_session_spec(fmt::format("sessions must be 1 to {}", kMaxPlanSessions));
  if (turns < 1 || turns > kMaxPlanTurns) return bad_session_spec(fmt::format("turns must be 1 to {}", kMaxPlanTurns));
  shape.sessions = sessions;
  shape.turns = turns;
  return {};
}

Result<void> parse_session_lengths(std::string_view text, SessionShape& shape) {
  size_t at = 0;
  while (at <= text.size()) {
    const size_t comma = std::min(text.find(',', at), text.size());
    const std::string_view item = text.substr(at, comma - at);
    at = comma + 1;
    if (item.empty()) continue;
    const size_t eq = item.find('=');
    const std::string_view key = item.substr(0, eq);
    TokenRange* into = key == "first" ? &shape.first : key == "user" ? &shape.user : key == "answer" ? &shape.answer : nullptr;
    if (eq == std::string_view::npos || into == nullptr)
      return bad_session_spec(fmt::format("\"{}\": expected first=, user= or answer= (e.g. first=2K,user=128-512,answer=256)", item));
    auto range = parse_token_range(item.substr(eq + 1));
    if (!range) return bad_session_spec(fmt::format("{}: {}", key, range.error().message));
    *into = *range;
  }
  return {};
}

SessionPlan generate_sessions(const SessionShape& shape, uint64_t seed) {
  SessionPlan plan;
  plan.sessions = shape.sessions;
  std::mt19937_64 rng(seed ^ 0x5e55105e55105e55ULL);
  for (int64_t s = 0; s < shape.sessions; ++s)
    plan.prefixes.push_back({fmt::format("session {}", s + 1), draw_tokens(shape.first, rng)});
  // Turn by turn across the sessions: every session's first turn goes out at the start, each later
  // one when its session's previous answer ends.
  for (int64_t t = 1; t <= shape.turns; ++t)
    for (int64_t s = 0; s < shape.sessions; ++s) {
      SessionTurn turn;
      turn.session = s;
      turn.turn = t;
      turn.prefix = t == 1 ? s : -1;
      turn.input_tokens = draw_tokens(shape.user, rng);
      turn.output_tokens = draw_tokens(shape.answer, rng);
      plan.turns.push_back(turn);
    }
  link_turns(plan);
  return plan;
}

Result<SessionPlan> parse_session_trace(std::string_view content, double speed) {
  using nlohmann::json;
  if (!(speed > 0)) return fail(ErrorCode::InvalidArgument, "the trace speed must be more than 0");
  struct Line {
    int64_t line = 0;
    std::string session;
    std::optional<int64_t> turn;
    std::optional<double> at_s;
    int64_t input = 0, output = 0;
    std::string prefix;
    int64_t prefix_tokens = 0;
  };
  std::vector<Line> lines;
  int64_t number = 0;
  size_t at = 0;
  while (at < content.size()) {
    const size_t end = std::min(content.find('\n', at), content.size());
    std::string_view text = content.substr(at, end - at);
    at = end + 1;
    ++number;
    while (!text.empty() && (text.back() == '\r' || text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
    if (text.empty()) continue;
    const auto err = [&](const std::string& what) {
      return fail(ErrorCode::InvalidArgument, fmt::format("trace line {}: {}", number, what));
    };
    json j = json::parse(text, nullptr, false);
    if (j.is_discarded() || !j.is_object()) return err("not a JSON object");
    if (static_cast<int64_t>(lines.size()) >= kMaxTraceTurns)
      return err(fmt::format("a trace holds at most {} turns", kMaxTraceTurns));
    Line l;
    l.line = number;
    const auto session = j.find("session");
    if (session == j.end() || !(session->is_string() || session->is_number_integer()))
      return err("\"session\" (a string or an integer) is required");
    l.session = session->is_string() ? session->get<std::string>() : std::to_string(session->get<int64_t>());
    const auto count = [&](const char* key, bool required, int64_t& out) -> Result<void> {
      const auto it = j.find(key);
      if (it == j.end() || it->is_null()) {
        if (required) return err(fmt::format("\"{}\" (tokens, at least 1) is required", key));
        return {};
      }
      if (!it->is_number_integer() || it->get<int64_t>() < 1 || it->get<int64_t>() > kMaxPlanTurnTokens)
        return err(fmt::format("\"{}\" must be a whole number of tokens from 1 to {}", key, kMaxPlanTurnTokens));
      out = it->get<int64_t>();
      return {};
    };
    if (auto ok = count("input_tokens", true, l.input); !ok) return std::unexpected(ok.error());
    if (auto ok = count("output_tokens", true, l.output); !ok) return std::unexpected(ok.error());
    if (auto ok = count("prefix_tokens", false, l.prefix_tokens); !ok) return std::unexpected(ok.error());
    if (const auto it = j.find("turn"); it != j.end() && !it->is_null()) {
      if (!it->is_number_integer() || it->get<int64_t>() < 0) return err("\"turn\" must be a whole number");
      l.turn = it->get<int64_t>();
    }
    if (const auto it = j.find("timestamp_s"); it != j.end() && !it->is_null()) {
      if (!it->is_number() || it->get<double>() < 0) return err("\"timestamp_s\" must be seconds, 0 or more");
      l.at_s = it->get<double>();
    }
    if (const auto it = j.find("prefix"); it != j.end() && !it->is_null()) {
      if (!(it->is_string() || it->is_number_integer())) return err("\"prefix\" must be a string or an integer");
      l.prefix = it->is_string() ? it->get<std::string>() : std::to_string(it->get<int64_t>());
    }
    lines.push_back(std::move(l));
  }
  if (lines.empty()) return fail(ErrorCode::InvalidArgument, "the trace has no turns (one JSON object per line)");

  // Sessions in order of first appearance; each session's turns by "turn" (file order without).
  std::map<std::string, int64_t> session_index;
  std::vector<std::vector<const Line*>> by_session;
  for (const Line& l : lines) {
    auto [it, added] = session_index.emplace(l.session, static_cast<int64_t>(by_session.size()));
    if (added) by_session.emplace_back();
    by_session[static_cast<size_t>(it->second)].push_back(&l);
  }
  SessionPlan plan;
  plan.sessions = static_cast<int64_t>(by_session.size());
  std::map<std::string, int64_t> prefix_index;
  for (size_t s = 0; s < by_session.size(); ++s) {
    auto& turns = by_session[s];
    std::stable_sort(turns.begin(), turns.end(),
                     [](const Line* a, const Line* b) { return a->turn.value_or(0) < b->turn.value_or(0); });
    double last_at_s = 0;
    for (size_t t = 0; t < turns.size(); ++t) {
      const Line& l = *turns[t];
      if (t > 0 && l.turn && turns[t - 1]->turn == l.turn)
        return fail(ErrorCode::InvalidArgument,
                    fmt::format("trace line {}: session \"{}\" has turn {} twice", l.line, l.session, *l.turn));
      if (l.at_s && *l.at_s < last_at_s)
        return fail(ErrorCode::InvalidArgument,
                    fmt::format("trace line {}: session \"{}\" goes back in time ({} s after {} s)", l.line,
                                l.session, *l.at_s, last_at_s));
      if (l.at_s) last_at_s = *l.at_s;
      SessionTurn turn;
      turn.session = static_cast<int64_t>(s);
      turn.turn = static_cast<int64_t>(t) + 1;
      turn.at_ns = static_cast<int64_t>(last_at_s / speed * 1e9);
      turn.input_tokens = l.input;
      turn.output_tokens = l.output;
      if (t == 0 && !l.prefix.empty()) {
        auto [it, added] = prefix_index.emplace(l.prefix, static_cast<int64_t>(plan.prefixes.size()));
        if (added) {
          if (l.prefix_tokens < 1)
            return fail(ErrorCode::InvalidArgument,
                        fmt::format("trace line {}: prefix \"{}\" needs \"prefix_tokens\" where it first appears",
                                    l.line, l.prefix));
          plan.prefixes.push_back({l.prefix, l.prefix_tokens});
        }
        turn.prefix = it->second;
      } else if (!l.prefix.empty() && t > 0) {
        return fail(ErrorCode::InvalidArgument,
                    fmt::format("trace line {}: a prefix opens a session: give it on the session's first turn", l.line));
      }
      plan.turns.push_back(turn);
    }
  }
  // In the order they may be sent: by time, then turn, then session.
  std::stable_sort(plan.turns.begin(), plan.turns.end(), [](const SessionTurn& a, const SessionTurn& b) {
    if (a.at_ns != b.at_ns) return a.at_ns < b.at_ns;
    if (a.turn != b.turn) return a.turn < b.turn;
    return a.session < b.session;
  });
  link_turns(plan);
  return plan;
}

}  // namespace sm
