#include "cli/session_flags.h"

#include <algorithm>
#include <fmt/format.h>
#include <fstream>
#include <sstream>

namespace sm::cli {

namespace {

constexpr std::streamsize kTraceLimitBytes = 64 << 20;

bool session_flag_given(const std::vector<std::string>& given, const char* flag) {
  return std::find(given.begin(), given.end(), flag) != given.end();
}

Result<void> session_flag_error(const char* flag, const Error& e) {
  return fail(ErrorCode::InvalidArgument, fmt::format("{}: {}", flag, e.message));
}

}  // namespace

void add_session_flags(CLI::App* cmd, SessionFlags& flags) {
  cmd->add_option("--sessions", flags.sessions,
                  "After the matrix, SESSIONSxTURNS conversations side by side (e.g. 4x6): each turn sends the "
                  "session's whole conversation so far (its opening text, every turn's text and the model's own "
                  "answers) and the next turn goes out when its answer ends, so the server's prefix cache decides "
                  "TTFT. The report gives TTFT, the cached share and the decode rate per turn; every request goes to "
                  "requests.jsonl (docs/sessions.md). Only the sessions: --contexts none --prefill-contexts none");
  cmd->add_option("--session-lengths", flags.lengths,
                  "With --sessions: tokens of the text a session opens with, of each turn's text and of each answer, "
                  "a length or a range drawn per turn (seeded): first=2K,user=128-512,answer=64-256 (default "
                  "first=1K,user=256,answer=128)");
  cmd->add_option("--trace", flags.trace,
                  "Replay your own sessions instead: JSON Lines, a turn per line, {\"session\": ..., \"timestamp_s\": "
                  "..., \"input_tokens\": ..., \"output_tokens\": ..., \"prefix\": ..., \"prefix_tokens\": ...} "
                  "(docs/sessions.md has the format and an example); a turn goes out at its time, or when its "
                  "session's previous answer ends if that is later");
  cmd->add_option("--trace-speed", flags.trace_speed,
                  "With --trace: replay this many times faster than recorded (0.5: half as fast)")
      ->capture_default_str();
}

Result<std::optional<SessionsSpec>> session_spec_from_flags(const SessionFlags& flags,
                                                            const std::vector<std::string>& given) {
  if (!(flags.trace_speed > 0) || flags.trace_speed > 1000)
    return fail(ErrorCode::InvalidArgument, "--trace-speed must be more than 0 and at most 1000");
  if (session_flag_given(given, "--trace-speed") && flags.trace.empty())
    return fail(ErrorCode::InvalidArgument, "--trace-speed is for --trace FILE");
  if (!flags.lengths.empty() && flags.sessions.empty())
    return fail(ErrorCode::InvalidArgument, "--session-lengths is for --sessions SESSIONSxTURNS (e.g. --sessions 4x6)");
  if (!flags.trace.empty() && !flags.sessions.empty())
    return fail(ErrorCode::InvalidArgument, "--trace replays its own sessions; it cannot go with --sessions");
  if (flags.sessions.empty() && flags.trace.empty()) return std::optional<SessionsSpec>{};
  SessionsSpec spec;
  if (!flags.trace.empty()) {
    std::ifstream in(flags.trace, std::ios::binary);
    if (!in) return fail(ErrorCode::InvalidArgument, fmt::format("--trace {}: cannot read the file", flags.trace));
    std::ostringstream bytes;
    bytes << in.rdbuf();
    spec.trace_content = std::move(bytes).str();
    if (static_cast<std::streamsize>(spec.trace_content.size()) > kTraceLimitBytes)
      return fail(ErrorCode::InvalidArgument, fmt::format("--trace {}: larger than 64 MB", flags.trace));
    if (auto plan = parse_session_trace(spec.trace_content, flags.trace_speed); !plan)
      return fail(ErrorCode::InvalidArgument, fmt::format("--trace {}: {}", flags.trace, plan.error().message));
    spec.trace_name = flags.trace;
    spec.trace_speed = flags.trace_speed;
    return std::optional<SessionsSpec>(std::move(spec));
  }
  if (auto ok = parse_sessions_flag(flags.sessions, spec.shape); !ok) {
    auto e = session_flag_error("--sessions", ok.error());
    return std::unexpected(e.error());
  }
  if (auto ok = parse_session_lengths(flags.lengths, spec.shape); !ok) {
    auto e = session_flag_error("--session-lengths", ok.error());
    return std::unexpected(e.error());
  }
  return std::optional<SessionsSpec>(std::move(spec));
}

}  // namespace sm::cli
