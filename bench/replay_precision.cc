// Replays adaptive-window closing rules on audited runs (`run --precision P --precision-audit`):
// each audited decode cell keeps the full window's per-second bins (audit_bins_tok_s), so any rule
// can be asked, offline, where it would have closed the window and how far its figure would have
// been from the full window's own (docs/performance.md, "Adaptive windows").
//
// Rules (each built on metrics/window_precision.h's checks):
//   held     close at the first whole second (at or after --min-window) the check finds precise
//            and the projection held within P/2 over the last half of the window: what
//            `run --precision` does (metrics/window_precision.h, check_window_closing)
//   first    ... the check finds precise (the rule before the projection had to hold still)
//   twice    ... precise at two consecutive seconds
//
// Usage: build/bench/replay_precision [--precision 2%] [--min-window 5] [--trace] RESULT.json...
//   --trace: under each cell, what the `held` rule's check said at every second
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <string>
#include <vector>

#include "core/units.h"
#include "metrics/window_precision.h"
#include "result/result_json.h"

namespace {

struct Rule {
  const char* name;
  // Whether the window closes after `n` whole seconds, given the checks at 1..n (index n-1).
  bool (*closes)(const std::vector<sm::PrecisionCheck>& checks, size_t n);
};

const Rule kRules[] = {
    {"held", [](const std::vector<sm::PrecisionCheck>& c, size_t n) { return c[n - 1].closes(); }},
    {"first", [](const std::vector<sm::PrecisionCheck>& c, size_t n) { return c[n - 1].precise_enough; }},
    {"twice",
     [](const std::vector<sm::PrecisionCheck>& c, size_t n) {
       return n >= 2 && c[n - 1].precise_enough && c[n - 2].precise_enough;
     }},
};

struct Tally {
  int cells = 0, closed = 0, beyond = 0;
  double worst = 0, window_s = 0, full_s = 0;
};

}  // namespace

int main(int argc, char** argv) {
  double precision = 0.02, min_window_s = 5;
  bool trace = false;  // print what the live rule's check said at every second
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--precision" && i + 1 < argc) {
      const auto share = sm::parse_share(argv[++i]);
      if (!share || !(*share > 0)) {
        std::fprintf(stderr, "replay_precision: --precision must be a share above 0, e.g. 2%% or 0.02\n");
        return 2;
      }
      precision = *share;
    } else if (a == "--min-window" && i + 1 < argc) {
      min_window_s = std::atof(argv[++i]);
    } else if (a == "--trace") {
      trace = true;
    } else if (a == "-h" || a == "--help") {
      std::puts("usage: replay_precision [--precision 2%] [--min-window 5] [--trace] RESULT.json...");
      return 0;
    } else {
      files.push_back(a);
    }
  }
  if (files.empty()) {
    std::fputs("replay_precision: name one or more result.json files of --precision-audit runs\n", stderr);
    return 2;
  }
  Tally tally[std::size(kRules)];
  std::printf("%-28s %10s", "cell", "full tok/s");
  for (const auto& rule : kRules) std::printf(" | %-6s %6s %7s", rule.name, "close", "diff");
  std::printf("\n");
  for (const auto& file : files) {
    auto result = sm::read_result_file(file);
    if (!result) {
      std::fprintf(stderr, "replay_precision: %s: %s\n", file.c_str(), result.error().message.c_str());
      return 1;
    }
    for (const auto& cell : result->decode) {
      if (cell.status != sm::CellStatus::Valid || cell.audit_bins_tok_s.empty() || !cell.total_tok_s) continue;
      const double duration_s = cell.measured_s.value_or(result->settings.duration_s);
      const double full = *cell.total_tok_s;
      const auto& bins = cell.audit_bins_tok_s;
      std::vector<sm::PrecisionCheck> checks;
      for (size_t n = 1; n <= bins.size(); ++n)
        checks.push_back(sm::check_window_closing(std::span(bins.data(), n), duration_s, precision));
      // The run's folder and the one above it name it (".../A/B/result.json" is "A/B").
      std::string run = file;
      if (run.ends_with("/result.json")) run.resize(run.size() - std::string("/result.json").size());
      if (const auto slash = run.find_last_of('/'); slash != std::string::npos && slash > 0)
        if (const auto above = run.find_last_of('/', slash - 1); above != std::string::npos) run = run.substr(above + 1);
      std::string name = run + " " + std::to_string(cell.context) + "x" + std::to_string(cell.concurrency);
      if (name.size() > 28) name = name.substr(name.size() - 28);
      std::printf("%-28s %10.1f", name.c_str(), full);
      for (size_t r = 0; r < std::size(kRules); ++r) {
        Tally& t = tally[r];
        ++t.cells;
        t.full_s += duration_s;
        size_t close = 0;
        for (size_t n = static_cast<size_t>(std::ceil(min_window_s)); n <= bins.size() && n >= 1; ++n)
          if (kRules[r].closes(checks, n)) {
            close = n;
            break;
          }
        if (close == 0) {
          t.window_s += duration_s;
          std::printf(" | %-6s %6s %7s", "", "cap", "");
          continue;
        }
        const double diff = checks[close - 1].projected_tok_s / full - 1;
        ++t.closed;
        t.window_s += static_cast<double>(close);
        t.worst = std::max(t.worst, std::fabs(diff));
        if (std::fabs(diff) > precision) ++t.beyond;
        std::printf(" | %-6s %5zus %+6.2f%%", "", close, diff * 100);
      }
      std::printf("\n");
      if (!trace) continue;
      for (size_t n = 1; n <= bins.size(); ++n) {
        const sm::PrecisionCheck& c = checks[n - 1];
        if (!(c.projected_tok_s > 0)) continue;
        std::printf("    %2zus bin %8.1f  projects %+6.2f%% ± %5.2f%%  observed ± %5.2f%%  %s%s\n", n, bins[n - 1],
                    (c.projected_tok_s / full - 1) * 100, c.half_width_tok_s / c.projected_tok_s * 100,
                    c.observed_half_width_tok_s / c.observed_tok_s * 100, c.precise_enough ? "precise" : "",
                    c.closes() ? " held: closes" : "");
      }
    }
  }
  std::printf("\nrule    cells closed beyond-%g%% worst    windows (of full)\n", precision * 100);
  for (size_t r = 0; r < std::size(kRules); ++r) {
    const Tally& t = tally[r];
    std::printf("%-7s %5d %6d %9d %6.2f%% %7.0f s of %.0f s (%.0f%%)\n", kRules[r].name, t.cells, t.closed, t.beyond,
                t.worst * 100, t.window_s, t.full_s, t.full_s > 0 ? 100 * t.window_s / t.full_s : 0);
  }
  return 0;
}
