#pragma once
// Everything `speedmatrix run` needs, validated once at start-up and immutable afterwards.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "bench/slo_search.h"
#include "engines/api_kind.h"
#include "result/plan.h"
#include "result/plan_fit.h"
#include "net/stream_client.h"
#include "result/result.h"
#include "system/target_locality.h"
#include "workload/prompt_corpus.h"
#include "workload/session_plan.h"

namespace sm {

/// Exit statuses of `run` and `sweep`: 130 after Ctrl-C, as a shell reports SIGINT.
/// A finished run: 0 when every planned row and cell is valid, over capacity or beyond the model;
/// kExitCellErrors when any ended in error (the server died, a stream failed: `--resume DIR
/// --retry-failed` measures them again); kExitNothingMeasured when not one row or cell was
/// measured (everything beyond the model, or every one failed). 1: the run could not start or
/// its result could not be saved; 2: a bad flag (cli).
inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;
inline constexpr int kExitCellErrors = 3;
inline constexpr int kExitNothingMeasured = 4;
inline constexpr int kExitInterrupted = 130;

/// --mixed-prefill: long prompts landing while other requests decode (bench/mixed_prefill_phase.h).
struct MixedPrefillSpec {
  std::vector<int64_t> contexts;  ///< the long prompts' lengths; empty: none
  int64_t streams = 0;            ///< --mixed-prefill-streams; 0: default_mixed_prefill_streams
  double around_s = 5;            ///< --mixed-prefill-around: decoding before the send and after the first token
};

/// --sessions SxT / --trace FILE: conversations growing turn by turn (bench/sessions_phase.h).
struct SessionsSpec {
  SessionShape shape;          ///< --sessions, --session-lengths (generated sessions)
  std::string trace_name;      ///< --trace: the file's name; empty: generated sessions
  std::string trace_content;   ///< --trace: its bytes (already checked by parse_session_trace)
  double trace_speed = 1;      ///< --trace-speed
};

/// Where the server is and how to talk to it.
struct TargetConfig {
  std::string base_url;        ///< e.g. "http://127.0.0.1:8000" (no trailing /v1)
  std::string api_key;         ///< bearer token; empty = none
  ApiKind api = ApiKind::Completions;
  std::string model;           ///< model id to request; empty = the server's first model
  double connect_timeout_s = 10;  ///< TCP/TLS connect limit per request
  double read_timeout_s = 600;    ///< a stream silent this long fails (prefill of long prompts is slow)
  int64_t busy_poll_ns = kDefaultBusyPollNs;  ///< StreamClientOptions::busy_poll_ns
  ConnectionOptions connection;   ///< --cacert, --insecure, --header, --proxy, --http2: on every request
  bool natural_eos = false;       ///< --natural-eos: no ignore_eos / min_tokens, answers end where the model ends them
};

/// The validated configuration of one run.
struct RunConfig {
  TargetConfig target;
  MatrixSettings matrix;
  CapacityLimits limits_override;  ///< --kv-capacity / --max-model-len: win over what the server says
  std::string launch_command;      ///< --launch: a server command line speedmatrix starts and stops
  double launch_timeout_s = 900;   ///< how long a launched server may take to become healthy
  /// Refuse to launch when the URL's port already answers. Off only in tests whose scripted
  /// server stands in for the launched one.
  bool launch_port_check = true;
  double ramp_timeout_s = 120;     ///< longest wait for all streams of a cell to produce a token
  /// Longest a request outside a decode window (calibration, warm-up, prefill) may run; 0 =
  /// default_request_timeout_s(prompt tokens).
  double request_timeout_s = 0;
  double drain_timeout_s = 60;     ///< longest wait for the server to be idle before a row or cell (0 = no check)
  bool telemetry = true;           ///< sample GPUs, host and the server's metrics (--no-telemetry: off)
  double telemetry_interval_s = 0.5;  ///< --telemetry-interval: GPU and host sampling period
  std::string nvml_lib;            ///< --nvml-lib: NVML library to load; empty = libnvidia-ml.so.1
  std::string sys_root = "/";      ///< where /sys is read for AMD GPUs when NVML cannot open; tests: a fixture
  std::string host_root = "/";     ///< where the host's /proc and /sys are read (CPU use, RAPL); tests: a fixture
  std::string server_gpus;         ///< --server-gpus: the server's GPUs, "0,3" or UUIDs; empty = found
  double temperature = 0.0;        ///< sampling temperature sent with every request
  uint64_t seed = 0;               ///< prompt text seed (0 = derive from the run id)
  PromptSource prompts;            ///< --prompts random|text|code, or --dataset FILE: what prompts are cut from
  std::string out_dir;             ///< run folder; empty = runs/<timestamp>-<model>
  bool dry_run = false;            ///< print the plan, contact nothing
  bool quiet = false;              ///< no live progress line
  bool client_selftest = true;     ///< measure the client's ceiling (~1 s) before the run
  bool json_output = false;        ///< print the result as JSON instead of tables
  bool save_requests = false;      ///< --save-requests: every request's record in DIR/requests.jsonl
  bool redact_host = false;        ///< --redact-host: what is written drops hostnames and local paths too
  bool contexts_given = false;     ///< --contexts was set (else defaults follow the server's max length)
  bool fit_concurrency = false;    ///< no --concurrency: the defaults stop at the server's slots (cmd_run sets it)
  bool fit_max_output = false;     ///< no --max-output: fitted to the server's context (cmd_run sets it)
  std::string profile;             ///< the fixed profile followed, "standard/1" (--profile, --quick); empty: none
  int64_t repeat = 1;              ///< --repeat N: passes over the matrix, each row and cell measured N times
  std::vector<double> user_floors_tok_s;  ///< --user-floor: the capacity table's per-user speeds; empty = defaults
  CostSettings cost;               ///< --power-price, --hardware-cost, ...: cost per million output tokens
  bool retry_failed = false;       ///< --resume --retry-failed: error rows and cells are measured again
  std::string profile_note;        ///< why the profile asked for was dropped (a flag changed one of its settings)
  bool embedded_sim = false;       ///< no target: measure the built-in simulated engine in-process
  int64_t sim_attention_window = 0;  ///< --attention-window: the embedded engine's model reads only a
                                     ///< prompt's last N tokens (0 = all; sim/retrieval_answer.h)
  /// --retrieval-check (true) / --no-retrieval-check (false); nullopt: on for the standard profile
  /// only (bench/retrieval_check.h, retrieval_check_wanted).
  std::optional<bool> retrieval_check;
  /// --slo: the SLO search after the matrix (bench/slo_search.h); nullopt: none.
  std::optional<SloSpec> slo;
  MixedPrefillSpec mixed_prefill;  ///< --mixed-prefill: none when its contexts are empty
  std::optional<SessionsSpec> sessions;  ///< --sessions / --trace; nullopt: none
  /// --power-limits: the GPU power limits (W) to measure the matrix at, each a run of its own
  /// (bench/power_limit_sweep.h); empty: one run at the limit in force.
  std::vector<double> power_limits_w;
  std::string power_limit_command;  ///< --power-limit-command: sets a limit, "{watts}" replaced
  std::optional<double> power_limit_restore_w;  ///< --power-limit-restore: the limit set at the end (else the one found)
  std::string resume_dir;          ///< --resume: continue the run in this folder (settings come from it)
  std::optional<HardwareInfo> server_hardware;    ///< --server-hardware / --gpu: the server's machine, declared
  std::optional<TargetLocality> target_locality;  ///< where the server runs; unset: decided when the run starts
                                                  ///< (bench/attribution.h); tests set it
};

/// The headers that carry the API key ("Authorization: Bearer KEY"); none without a key.
inline std::vector<std::string> bearer_headers(const std::string& api_key) {
  if (api_key.empty()) return {};
  return {"Authorization: Bearer " + api_key};
}

/// The matrix the configuration asks for, to fit to the server once its limits are known.
inline MatrixRequest matrix_request(const RunConfig& c) {
  return {c.matrix, c.contexts_given, !c.fit_concurrency, !c.fit_max_output, c.profile};
}

/// The default --request-timeout: a generous floor plus time for a slow prefill (50 prompt
/// tokens/s, a CPU-only server's pace), so only a server that never ends its answer hits it.
constexpr double kRequestTimeoutFloorS = 300;
constexpr double kRequestTimeoutPerPromptTokenS = 0.02;
inline double default_request_timeout_s(int64_t prompt_tokens) {
  return kRequestTimeoutFloorS + kRequestTimeoutPerPromptTokenS * static_cast<double>(prompt_tokens);
}

}  // namespace sm
