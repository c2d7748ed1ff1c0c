#include "bench/slo_search.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <set>

#include "core/text.h"
#include "core/units.h"
#include "result/plan.h"

namespace sm {

namespace {

// "2s", "2000ms", "1.5s", "50" (ms) → milliseconds.
Result<double> parse_ms(std::string_view key, std::string_view text) {
  double scale = 1;
  std::string_view number = text;
  if (number.ends_with("ms")) {
    number.remove_suffix(2);
  } else if (number.ends_with("s")) {
    number.remove_suffix(1);
    scale = 1000;
  }
  const std::string n(number);
  char* end = nullptr;
  const double v = n.empty() ? NAN : std::strtod(n.c_str(), &end);
  if (n.empty() || end != n.c_str() + n.size() || !std::isfinite(v) || v <= 0)
    return fail(ErrorCode::InvalidArgument,
                fmt::format("{}={}: want a time above zero in ms or s (\"2s\", \"500ms\")", key, text));
  return v * scale;
}

}  // namespace

Result<SloSpec> parse_slo_spec(std::string_view text) {
  SloSpec spec;
  std::set<std::string> seen;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t comma = text.find(',', start);
    const std::string_view item = text.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
    start = comma == std::string_view::npos ? text.size() + 1 : comma + 1;
    if (item.empty()) continue;
    const size_t eq = item.find('=');
    if (eq == std::string_view::npos)
      return fail(ErrorCode::InvalidArgument,
                  fmt::format("\"{}\" is not key=value (keys: ttft, tpot, context, p, probes)", item));
    const std::string key(item.substr(0, eq));
    const std::string_view value = item.substr(eq + 1);
    if (key != "context" && !seen.insert(key).second)
      return fail(ErrorCode::InvalidArgument, fmt::format("{} is given twice", key));
    if (key == "ttft" || key == "tpot") {
      auto ms = parse_ms(key, value);
      if (!ms) return std::unexpected(ms.error());
      (key == "ttft" ? spec.targets.ttft_ms : spec.targets.tpot_ms) = *ms;
    } else if (key == "context") {
      auto tokens = parse_token_count(value);
      if (!tokens) return fail(ErrorCode::InvalidArgument, fmt::format("context={}: {}", value, tokens.error().message));
      spec.contexts.push_back(*tokens);
    } else if (key == "p") {
      std::string_view v = value;
      if (v.starts_with("p")) v.remove_prefix(1);
      const std::string n(v);
      char* end = nullptr;
      const double p = n.empty() ? NAN : std::strtod(n.c_str(), &end);
      if (n.empty() || end != n.c_str() + n.size() || !(p > 0 && p <= 100))
        return fail(ErrorCode::InvalidArgument, fmt::format("p={}: want a percentile above 0 and at most 100 (p=90)", value));
      spec.targets.percentile = p;
    } else if (key == "probes") {
      const std::string n(value);
      char* end = nullptr;
      const long long v = n.empty() ? -1 : std::strtoll(n.c_str(), &end, 10);
      if (n.empty() || end != n.c_str() + n.size() || v < 0 || v > 64)
        return fail(ErrorCode::InvalidArgument, fmt::format("probes={}: want a whole number from 0 to 64", value));
      spec.max_probes = v;
    } else {
      return fail(ErrorCode::InvalidArgument, fmt::format("unknown key \"{}\" (keys: ttft, tpot, context, p, probes)", key));
    }
  }
  if (!spec.targets.ttft_ms && !spec.targets.tpot_ms)
    return fail(ErrorCode::InvalidArgument, "give a target: ttft=TIME, tpot=TIME or both (\"ttft=2s,tpot=50ms\")");
  spec.contexts = sorted_unique(spec.contexts);
  return spec;
}

void apply_slo_spec(RunSettings& s, const SloSpec& spec) {
  s.slo = spec.targets;
  s.slo_contexts = spec.contexts;
  s.slo_max_probes = spec.max_probes;
}

bool same_slo(const RunSettings& s, const SloSpec& spec) {
  return s.slo && s.slo->ttft_ms == spec.targets.ttft_ms && s.slo->tpot_ms == spec.targets.tpot_ms &&
         s.slo->percentile == spec.targets.percentile && s.slo_contexts == spec.contexts &&
         s.slo_max_probes == spec.max_probes;
}

std::string describe_slo(const SloTargets& t) {
  std::string out;
  if (t.ttft_ms) out += fmt::format("TTFT ≤ {:g} ms", *t.ttft_ms);
  if (t.tpot_ms) out += fmt::format("{}TPOT ≤ {:g} ms", out.empty() ? "" : ", ", *t.tpot_ms);
  return out + fmt::format(" at p{:g}", t.percentile);
}

SloBisection bisect_slo_concurrency(std::vector<SloKnown> known, int64_t max_concurrency, int64_t max_probes,
                                    const SloProbeFn& probe) {
  SloBisection b;
  std::erase_if(known, [&](const SloKnown& k) { return k.concurrency < 1 || k.concurrency > max_concurrency; });
  std::sort(known.begin(), known.end(), [](const SloKnown& a, const SloKnown& x) { return a.concurrency < x.concurrency; });
  std::optional<int64_t> hi;
  for (const auto& k : known)
    if (!k.meets) {
      hi = k.concurrency;
      break;
    }
  int64_t lo = 0;
  for (const auto& k : known) {
    if (!k.meets) continue;
    if (!hi || k.concurrency < *hi) lo = std::max(lo, k.concurrency);
    else b.passed_above = std::max(b.passed_above.value_or(0), k.concurrency);
  }
  auto stop = [&](std::string basis) {
    b.basis = std::move(basis);
    b.concurrency = lo;
    b.failing_concurrency = hi;
    return b;
  };
  auto ask = [&](int64_t c) -> std::optional<bool> {
    ++b.probes;
    return probe(c);
  };
  if (max_concurrency < 1) return stop("none");
  if (!hi) {
    if (lo >= max_concurrency) return stop("at_least");
    if (b.probes >= max_probes) return stop("probe_limit");
    const auto top = ask(max_concurrency);
    if (!top) return stop("stopped");
    if (*top) {
      lo = max_concurrency;
      return stop("at_least");
    }
    hi = max_concurrency;
  }
  while (*hi - lo > 1) {
    if (b.probes >= max_probes) return stop("probe_limit");
    const int64_t mid = lo + (*hi - lo) / 2;
    const auto passed = ask(mid);
    if (!passed) return stop("stopped");
    if (*passed) lo = mid;
    else hi = mid;
  }
  return stop(lo == 0 ? "none" : "found");
}

int64_t slo_max_concurrency(const RunResult& result, int64_t context) {
  int64_t fitting = 0, over = 0;
  for (const auto& c : result.decode) {
    if (c.context != context) continue;
    if (c.status == CellStatus::OverCapacity) over = over == 0 ? c.concurrency : std::min(over, c.concurrency);
    else if (c.status != CellStatus::BeyondModel) fitting = std::max(fitting, c.concurrency);
  }
  if (fitting == 0 || over <= fitting) return fitting;
  const CapacityLimits limits{result.engine.kv_capacity_tokens, result.engine.max_model_len};
  for (int64_t c = over - 1; c > fitting; --c)
    if (decode_cell_status(context, c, result.settings.max_output_tokens, limits) == CellStatus::Valid) return c;
  return fitting;
}

std::vector<int64_t> slo_contexts_owed(const RunResult& result) {
  if (!result.settings.slo) return {};
  std::set<int64_t> contexts;
  for (const auto& c : result.decode) contexts.insert(c.context);
  std::vector<int64_t> out;
  for (int64_t context : contexts) {
    const auto& wanted = result.settings.slo_contexts;
    if (!wanted.empty() && std::find(wanted.begin(), wanted.end(), context) == wanted.end()) continue;
    if (slo_max_concurrency(result, context) == 0) continue;
    const bool done = std::any_of(result.slo_search.begin(), result.slo_search.end(),
                                  [&](const SloSearch& s) { return s.context == context; });
    if (!done) out.push_back(context);
  }
  return out;
}

bool run_slo_searches(RunResult& result, const SloSearchHooks& hooks) {
  for (int64_t context : slo_contexts_owed(result)) {
    if (hooks.interrupted && hooks.interrupted()) return false;
    SloSearch search;
    search.context = context;
    search.max_concurrency = slo_max_concurrency(result, context);
    std::vector<SloKnown> known;
    for (const auto& c : result.decode) {
      if (c.context != context || c.status != CellStatus::Valid || !c.slo) continue;
      known.push_back({c.concurrency, c.slo->meets});
      search.points.push_back(SloPoint{c.concurrency, "matrix", CellStatus::Valid, c.slo, ""});
    }
    std::sort(search.points.begin(), search.points.end(),
              [](const SloPoint& a, const SloPoint& b) { return a.concurrency < b.concurrency; });
    bool interrupted = false;
    const SloBisection b = bisect_slo_concurrency(
        known, search.max_concurrency, result.settings.slo_max_probes, [&](int64_t c) -> std::optional<bool> {
          SloPoint point = hooks.probe(context, c);
          point.concurrency = c;
          point.source = "probe";
          const std::optional<bool> verdict =
              point.status == CellStatus::Valid && point.judgement ? std::optional<bool>(point.judgement->meets)
                                                                   : std::nullopt;
          if (point.status == CellStatus::Interrupted) interrupted = true;
          search.points.push_back(std::move(point));
          return verdict;
        });
    if (interrupted || (b.basis == "stopped" && hooks.interrupted && hooks.interrupted())) return false;
    search.basis = b.basis;
    search.concurrency = b.concurrency;
    search.failing_concurrency = b.failing_concurrency;
    search.passed_above = b.passed_above;
    search.probes = b.probes;
    const auto at = std::lower_bound(result.slo_search.begin(), result.slo_search.end(), context,
                                     [](const SloSearch& s, int64_t x) { return s.context < x; });
    const SloSearch& stored = *result.slo_search.insert(at, std::move(search));
    if (hooks.on_searched) hooks.on_searched(stored);
  }
  return true;
}

std::string slo_search_summary(const SloSearch& s) {
  const std::string what = fmt::format("SLO {}", format_tokens(s.context));
  const std::string probes = fmt::format("{} probe{}", s.probes, s.probes == 1 ? "" : "s");
  if (s.basis == "none") return fmt::format("{}: not met even by one request ({})", what, probes);
  if (s.basis == "at_least")
    return fmt::format("{}: met by at least {} requests at once, the most tried ({})", what, s.concurrency, probes);
  if (s.basis == "found") return fmt::format("{}: met by {} requests at once, not {} ({})", what, s.concurrency,
                                             s.failing_concurrency.value_or(s.concurrency + 1), probes);
  if (s.basis == "probe_limit")
    return fmt::format("{}: met by {} requests at once{} (the probes ran out; {})", what, s.concurrency,
                       s.failing_concurrency ? fmt::format(", not {}", *s.failing_concurrency) : std::string(), probes);
  return fmt::format("{}: stopped after {} (a probe failed); met by {} requests at once so far", what, probes, s.concurrency);
}

}  // namespace sm
