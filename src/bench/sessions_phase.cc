#include "bench/sessions_phase.h"

#include <algorithm>
#include <filesystem>
#include <fmt/format.h>
#include <vector>

#include "bench/open_loop.h"
#include "core/interrupt.h"
#include "core/sha256.h"
#include "core/units.h"
#include "metrics/session_metrics.h"

namespace sm {

namespace {

// Between the parts of a conversation: the opening text, each turn's text, each answer.
constexpr std::string_view kTurnSeparator = "\n\n";

std::string sessions_summary_line(const SessionsSettings& s, const SessionsResult& r) {
  const std::string what = fmt::format("sessions {} x {}", s.sessions, s.turns);
  if (r.status != CellStatus::Valid)
    return fmt::format("{}: {}{}", what, to_string(r.status), r.error.empty() ? "" : " (" + r.error + ")");
  return fmt::format("{}: {} turns, {:.0f} output tok/s, prefix cache {}", what, r.requests, r.output_tok_s.value_or(0),
                     r.cache_hit_rate ? fmt::format("{:.0f}% of prompt tokens", 100 * *r.cache_hit_rate)
                                      : std::string("not reported"));
}

// Measures the workload. Returns true when interrupted (nothing is kept).
bool measure_sessions(PhaseContext& ctx, const SessionPlan& plan, SessionsResult& res) {
  const SessionsSettings& settings = *ctx.result.settings.sessions;
  // The texts: each opening, each turn's own words (a unique head: no cache holds them yet).
  std::vector<std::string> openings, texts;
  const auto build = [&](int64_t tokens, const std::string& what, std::vector<std::string>& into) {
    auto built = ctx.build_prompt(tokens, ctx.unique_head(what, tokens));
    if (!built) {
      res.status = CellStatus::Error;
      res.error = "could not build the prompts: " + built.error().message;
      return false;
    }
    into.push_back(std::move(built->text));
    return true;
  };
  for (const SessionPrefix& p : plan.prefixes)
    if (!build(p.tokens, "session opening " + p.id, openings)) return false;
  for (const SessionTurn& t : plan.turns) {
    if (interrupt_requested()) return true;
    if (!build(t.input_tokens, fmt::format("session {} turn {}", t.session + 1, t.turn), texts)) return false;
  }
  if (!ctx.server_ready(res.status, res.error)) return res.status == CellStatus::Interrupted;

  // The conversation so far of each turn: made when it is sent (from its previous turn's
  // conversation and answer), handed on to the next turn. Role-tagged messages on the chat API;
  // their contents joined by blank lines as one prompt on the completions API.
  std::vector<std::vector<ChatMessage>> conversations(plan.turns.size());
  const auto request_of = [&ctx](const std::vector<ChatMessage>& conversation, int64_t max_tokens) {
    return ctx.session.conversation_request(conversation, kTurnSeparator, max_tokens, ctx.config.temperature);
  };
  OpenLoopSpec spec;
  for (size_t i = 0; i < plan.turns.size(); ++i) {
    const SessionTurn& t = plan.turns[i];
    PlannedRequest r;
    r.at_ns = t.at_ns;
    r.max_tokens = t.output_tokens;
    r.after = t.after;
    r.keep_text = true;
    if (t.after < 0) {  // the opening and the first turn's text, one user message
      const std::string first =
          t.prefix >= 0 ? openings[static_cast<size_t>(t.prefix)] + std::string(kTurnSeparator) + texts[i] : texts[i];
      conversations[i] = {{"user", first}};
      r.request = request_of(conversations[i], t.output_tokens);
    }
    spec.requests.push_back(std::move(r));
  }
  spec.prepare = [&](size_t i, const std::vector<std::string>& answers) {
    const auto before = static_cast<size_t>(plan.turns[i].after);
    std::vector<ChatMessage> conversation = std::move(conversations[before]);
    conversation.push_back({"assistant", answers[before]});
    conversation.push_back({"user", texts[i]});
    conversations[i] = std::move(conversation);
    return request_of(conversations[i], plan.turns[i].output_tokens);
  };
  const int64_t longest = longest_session_tokens(plan);
  const double timeout_s =
      ctx.config.request_timeout_s > 0 ? ctx.config.request_timeout_s : default_request_timeout_s(longest);
  spec.drain_timeout_ns = static_cast<int64_t>(timeout_s * kNsPerSD);
  spec.on_tick = [&ctx] { ctx.progress.tick(); };

  ctx.progress.begin(fmt::format("sessions {} x {}", settings.sessions, settings.turns), false);
  OpenLoop loop(ctx.clock, ctx.session.client_options());
  const int64_t t0 = ctx.clock.now_ns();
  OpenLoopOutcome out = loop.run(spec);
  ctx.timing.windows_s += ctx.seconds_since(t0);
  ctx.progress.end();

  // Every request in requests.jsonl, with its session and turn.
  std::vector<SessionRequestView> views;
  for (const TimedRequest& t : out.requests) {
    const SessionTurn& turn = plan.turns[static_cast<size_t>(t.record.slot)];
    // Lateness counts from the trace's own time (the open loop's intended start is the later of
    // that and the previous answer's end: a slow answer makes a turn late against the recording).
    views.push_back({turn.turn, &t.record, settings.source == "trace" ? out.start_ns + turn.at_ns : t.intended_ns});
    if (ctx.request_log) {
      RequestTag tag{"session", std::max<int64_t>(0, t.record.usage_prompt_tokens), settings.sessions};
      tag.session = turn.session + 1;
      tag.turn = turn.turn;
      if (auto ok = ctx.request_log->append(tag, std::span<const RequestRecord>(&t.record, 1)); !ok) {
        ctx.note(ok.error().message);
        res.warnings.push_back(ok.error().message);
      }
    }
  }
  if (out.interrupted) return true;
  SessionsResult summary = summarize_sessions(views, settings.source == "trace");
  summary.warnings = std::move(res.warnings);
  res = std::move(summary);
  if (out.drain_timed_out)
    res.warnings.push_back(fmt::format("answers still running {:.0f} s after the last turn's time were cut", timeout_s));
  if (res.failed > 0) {
    const auto first = std::find_if(out.requests.begin(), out.requests.end(),
                                    [](const TimedRequest& t) { return t.record.end == RequestEnd::Failed; });
    const std::string why = first != out.requests.end() ? first->record.error : "no token received";
    if (res.failed == res.requests) {
      res.status = CellStatus::Error;
      res.error = "every turn failed; first: " + why;
    } else {
      res.warnings.push_back(fmt::format("{} of {} turns failed; first: {}", res.failed, res.requests, why));
    }
  }
  return false;
}

}  // namespace

void apply_sessions_settings(RunSettings& s, const SessionsSpec& spec, uint64_t seed) {
  SessionsSettings out;
  out.seed = seed;
  if (!spec.trace_name.empty()) {
    out.source = "trace";
    out.trace_file = std::filesystem::path(spec.trace_name).filename().string();
    out.trace_sha256 = sha256_hex(spec.trace_content);
    out.trace_speed = spec.trace_speed;
    if (auto plan = parse_session_trace(spec.trace_content, spec.trace_speed)) {
      out.sessions = plan->sessions;
      out.turns = plan->max_turns;
      out.trace_requests = static_cast<int64_t>(plan->turns.size());
    }
  } else {
    out.sessions = spec.shape.sessions;
    out.turns = spec.shape.turns;
    out.first_tokens = format_token_range(spec.shape.first);
    out.user_tokens = format_token_range(spec.shape.user);
    out.answer_tokens = format_token_range(spec.shape.answer);
  }
  s.sessions = std::move(out);
}

Result<SessionPlan> sessions_plan(const SessionsSettings& settings, const std::optional<SessionsSpec>& spec) {
  if (settings.source == "trace") {
    if (!spec || spec->trace_name.empty())
      return fail(ErrorCode::InvalidArgument,
                  fmt::format("the run replays the trace {}: give --trace {} again", settings.trace_file,
                              settings.trace_file));
    if (sha256_hex(spec->trace_content) != settings.trace_sha256)
      return fail(ErrorCode::InvalidArgument,
                  fmt::format("--trace {}: not the trace the run started with (its SHA-256 differs)", spec->trace_name));
    return parse_session_trace(spec->trace_content, settings.trace_speed);
  }
  SessionShape shape;
  shape.sessions = settings.sessions;
  shape.turns = settings.turns;
  for (auto [text, into] : {std::pair{&settings.first_tokens, &shape.first}, std::pair{&settings.user_tokens, &shape.user},
                            std::pair{&settings.answer_tokens, &shape.answer}}) {
    auto range = parse_token_range(*text);
    if (!range) return std::unexpected(range.error());
    *into = *range;
  }
  return generate_sessions(shape, settings.seed);
}

int64_t longest_session_tokens(const SessionPlan& plan) {
  std::vector<int64_t> tokens(static_cast<size_t>(plan.sessions), 0);
  for (const SessionTurn& t : plan.turns) {
    int64_t& n = tokens[static_cast<size_t>(t.session)];
    if (t.prefix >= 0) n += plan.prefixes[static_cast<size_t>(t.prefix)].tokens;
    n += t.input_tokens + t.output_tokens;
  }
  return tokens.empty() ? 0 : *std::max_element(tokens.begin(), tokens.end());
}

PhaseUnits SessionsPhase::units_owed(const PhaseContext& ctx) const {
  return ctx.result.settings.sessions && !ctx.result.sessions ? PhaseUnits{1, 0} : PhaseUnits{};
}

bool SessionsPhase::run(PhaseContext& ctx) {
  if (!ctx.result.settings.sessions || ctx.result.sessions) return false;
  if (interrupt_requested()) return true;
  const SessionsSettings& settings = *ctx.result.settings.sessions;
  SessionsResult res;
  auto plan = sessions_plan(settings, ctx.config.sessions);
  if (!plan) {
    res.status = CellStatus::Error;
    res.error = plan.error().message;
  } else if (const int64_t longest = longest_session_tokens(*plan);
             ctx.limits.max_model_len && longest > *ctx.limits.max_model_len) {
    res.status = CellStatus::BeyondModel;
    res.error = fmt::format("a session reaches {} tokens, beyond the model's {}", format_thousands(longest),
                            format_thousands(*ctx.limits.max_model_len));
  } else {
    if (ctx.limits.kv_capacity_tokens && longest * plan->sessions > *ctx.limits.kv_capacity_tokens)
      res.warnings.push_back(fmt::format(
          "the sessions together reach {} tokens, more than the server's KV cache ({}): it must drop some of their "
          "prefixes, and their turns read them again",
          format_thousands(longest * plan->sessions), format_thousands(*ctx.limits.kv_capacity_tokens)));
    if (measure_sessions(ctx, *plan, res)) return true;
  }
  ctx.progress.finished(sessions_summary_line(settings, res));
  ctx.result.sessions = std::move(res);
  ctx.save();
  return false;
}

}  // namespace sm
