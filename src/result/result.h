#pragma once
// The result of a run: one typed record that every printer, the store and the site read
// (llama-bench habit). Its JSON form is result.json, described by docs/result-schema.json.
// Optional numbers are std::nullopt when not measured (a cell that did not run, a value the
// server did not report); they are written as JSON null.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "result/cell_status.h"
#include "result/sessions.h"

namespace sm {

constexpr int kResultSchemaVersion = 1;

/// One GPU of the machine that ran the server (or the one predicted for).
struct GpuInfo {
  std::string name;                  ///< e.g. "NVIDIA GeForce RTX 3090"
  std::optional<int64_t> vram_bytes; ///< total device memory
  std::string driver;                ///< driver version, e.g. "595.99.02"
  std::optional<double> power_limit_w;  ///< enforced board power limit
  std::string pcie;                  ///< e.g. "Gen4 x16"
};

/// Where a HardwareInfo came from (docs/METRICS.md, Attribution).
enum class HardwareSource : uint8_t {
  Probed,     ///< read on the machine it describes: the server ran here (or it is the client)
  Declared,   ///< given by the user for a server on another machine (--server-hardware, --gpu)
  Unknown,    ///< the server ran on another machine and nothing was declared
  Simulated,  ///< the built-in simulated engine's GPU (from the calculator's catalog)
  Catalog,    ///< a `calc` prediction: the catalog's GPU the matrix was predicted for
};

/// "probed", "declared", "unknown", "simulated", "catalog".
std::string_view to_string(HardwareSource source);
/// The inverse of to_string; std::nullopt for anything else.
std::optional<HardwareSource> parse_hardware_source(std::string_view text);

/// The machine (the seed page's Hardware section).
struct HardwareInfo {
  std::string type;                  ///< "Discrete GPU", "CPU only", "Apple silicon", ...
  std::vector<GpuInfo> gpus;         ///< the server's GPUs (all of the machine's unless it uses fewer)
  /// GPUs on the machine where the server uses fewer (those are not in gpus); empty otherwise.
  std::optional<int64_t> machine_gpu_count;
  std::string cpu_model;             ///< e.g. "AMD Ryzen 9 7900X 12-Core Processor"
  std::optional<int64_t> cpu_cores;  ///< physical cores (logical when unknown)
  std::optional<int64_t> ram_bytes;  ///< total system memory
  std::string os;                    ///< e.g. "Ubuntu 24.04.5 LTS"
  std::string kernel;                ///< e.g. "6.8.0-45-generic"
  std::string hostname;
  HardwareSource source = HardwareSource::Probed;  ///< how these facts were obtained
  std::string source_detail;         ///< why, in words: "10.0.0.7 is not an address of this machine", "--gpu"
};

/// The engine and model being measured (the seed page's Engine section).
struct EngineInfo {
  std::string kind;          ///< "vllm", "sglang", "llamacpp", "tgi", "ollama", "openai", "sim"
  std::string version;       ///< e.g. "0.32.0"
  std::string build;         ///< e.g. "b6500-abc1234" or a container tag
  std::string model;         ///< served model id, as requested
  std::string model_path;    ///< weights path or repo when the server says
  std::string quantization;  ///< e.g. "AWQ 4-bit", "q8_0"
  std::string backend;       ///< e.g. "cuda", "cpu"
  std::optional<int64_t> max_model_len;       ///< per-request context limit the server reports
  std::optional<int64_t> kv_capacity_tokens;  ///< KV-cache tokens the server reports
  std::string kv_capacity_source;             ///< where that came from, e.g. "/metrics cache_config_info"
  std::optional<int64_t> slots;               ///< llama.cpp parallel slots / max running requests
  std::optional<bool> prefix_caching;         ///< server-side prefix cache on
  bool tokenize_endpoint = false;             ///< the server can count tokens for us
  bool forces_output_length = true;           ///< false: EOS cannot be ignored (TGI, Ollama)
  bool synthetic_model = false;               ///< speedmatrix synth-model's GGUF (gguf/synth_detect.h)
};

/// The share of requests that must meet every target (docs/METRICS.md, "SLOs"): 90 = 90% of them.
inline constexpr double kDefaultSloPercentile = 90;

/// Latency targets (docs/METRICS.md, "SLOs"); unset = no limit on that figure. A point (a sweep's
/// rate, a decode cell, a probe) meets them when at least `percentile` % of its requests each
/// meet every target set (metrics/slo.h, meets_slo and meets_slo_share).
struct SloTargets {
  std::optional<double> ttft_ms;
  std::optional<double> tpot_ms;
  double percentile = kDefaultSloPercentile;  ///< in (0, 100]
};

/// Prices for the cost per million output tokens (docs/METRICS.md, "Energy and cost per million
/// tokens"): run --power-price, --currency, --hardware-cost, --amortize-years, --host-power-w,
/// --busy-share. A reader may put other prices in later (report, the site's ?power_price=).
struct CostSettings {
  std::optional<double> power_price_per_kwh;  ///< electricity, currency per kWh
  std::string currency;                        ///< a label for the prices ("USD", "EUR"); empty: none given
  std::optional<double> hardware_cost;         ///< what the machine cost, currency
  std::optional<double> amortize_years;        ///< written off over this many years (of 8,766 hours)
  std::optional<double> host_power_w;          ///< the host's draw where RAPL cannot be read (busy and idle);
                                               ///< empty: the documented constants
  double busy_share = 1;                       ///< share of the time the box serves at the cell's load; the rest
                                               ///< it waits at its idle power (0 < busy_share <= 1)
  /// Whether anything was set (the settings' "cost" object is written only then).
  bool any() const {
    return power_price_per_kwh || !currency.empty() || hardware_cost || amortize_years || host_power_w ||
           busy_share != 1;
  }
};

/// How the run was set up (the seed page's Run section).
/// Where a run's prompts were cut from, other than random words (docs/METRICS.md, "Prompt sources").
struct PromptCorpusInfo {
  std::string name;     ///< "News from Nowhere (William Morris, 1890)", a dataset's file name
  std::string origin;   ///< where it came from, in words
  std::string licence;  ///< its terms
  int64_t texts = 1;    ///< texts joined into it (a dataset's prompts)
  int64_t bytes = 0;    ///< its size
  std::string sha256;   ///< of its text: runs with the same hash cut prompts from the same corpus
};

struct RunSettings {
  std::string api = "completions";      ///< "completions" or "chat"
  std::string decode_test = "fixed_duration";
  std::string prefill_mode = "cold request; measured during decode warm-up where contexts coincide";
  int64_t max_output_tokens = 8192;
  double duration_s = 30;
  std::optional<double> precision;     ///< adaptive windows (--precision), a fraction: 0.02 = 2%
  std::optional<double> min_window_s;  ///< adaptive windows: the shortest window (--min-window)
  std::optional<bool> precision_audit; ///< --precision-audit: full windows, each cell's audit_* says where it would have closed
  int64_t requests_per_cell = 0;  ///< burst runs (decode_test "burst"): measured requests per decode cell
  int64_t warmup_requests = 0;    ///< burst runs: requests sent before them and not measured (-1: one
                                  ///< per simultaneous request, at most 8)
  std::vector<int64_t> contexts;
  std::vector<int64_t> concurrency;
  std::vector<int64_t> prefill_contexts;
  std::vector<double> user_floors_tok_s;  ///< --user-floor: per-user speeds the capacity table reads (tok/s)
  double temperature = 0;
  uint64_t seed = 0;
  std::optional<int64_t> kv_capacity_override;   ///< --kv-capacity
  std::optional<int64_t> max_model_len_override;  ///< --max-model-len
  /// How the server was reached, so --resume reaches it the same way: "embedded" (the built-in
  /// simulated engine, started again), "launched" (--launch, started again), "url" (must still
  /// answer); empty for predictions.
  std::string target;
  /// The fixed profile the run followed, name and version ("standard/1", "quick/1"; docs/METRICS.md,
  /// "Profiles"); empty: a matrix of its own (defaults or flags), not comparable cell for cell.
  std::string profile;
  /// --repeat N: every row and cell measured N times, pass after pass over the whole matrix; each
  /// keeps every pass's figure (repeat_*), and its other figures are its median pass's.
  int64_t repeat = 1;
  /// What the plan chose for this server and why: a max output fitted to its context, cells
  /// dropped beyond the model's length, concurrency stopped at its slots (in words).
  std::vector<std::string> plan_notes;
  /// The long-context retrieval check (docs/METRICS.md, "Long-context retrieval check"): true when
  /// the run asked the server its needle back at each context (--retrieval-check, the standard
  /// profile's default), false when it was turned off; nullopt in files from before the check.
  std::optional<bool> retrieval_check;
  /// --slo: the targets of the SLO search (docs/METRICS.md, "SLO search"); nullopt: no search.
  std::optional<SloTargets> slo;
  std::vector<int64_t> slo_contexts;  ///< --slo context=...: the contexts searched; empty: every decode context
  int64_t slo_max_probes = 0;         ///< probes allowed per context
  /// --mixed-prefill: the long prompts' lengths (docs/METRICS.md, "Mixed prefill"); empty: none.
  std::vector<int64_t> mixed_prefill_contexts;
  int64_t mixed_prefill_streams = 0;    ///< requests decoding while each long prompt lands
  double mixed_prefill_around_s = 0;    ///< seconds they decode before it is sent and after its first token
  CostSettings cost;  ///< prices for the cost per million tokens; all empty: energy figures only
  /// --prompts / --dataset: what prompts were cut from, "random" (seeded common words), "text",
  /// "code" or "dataset"; the corpus's name, origin and hash beside it (absent for "random").
  std::string prompts = "random";
  std::optional<PromptCorpusInfo> prompt_corpus;
  /// --natural-eos: requests end where the model ends its answer (no ignore_eos), so decode cells
  /// mix prefills in and each reports its requests' output lengths (DecodeCell::ended_output_tokens).
  bool natural_eos = false;
  /// --sessions / --trace: conversations that grow turn by turn (docs/METRICS.md, "Sessions").
  std::optional<SessionsSettings> sessions;
};

/// A median with its tails. All in the unit the field name says.
struct Percentiles {
  double p50 = 0;
  double p90 = 0;
  double p99 = 0;
};

/// The machine's state over a cell's window (or a prefill row's request), from the telemetry
/// sampler (docs/METRICS.md, "Telemetry"). Empty where nothing was sampled.
/// One GPU's figures over a window, where the server uses more than one (docs/METRICS.md, "The
/// server's GPUs"): what each drew and how it ran, so one hot or idle GPU shows.
struct GpuWindowFigures {
  int index = 0;                        ///< the GPU (NVML index)
  std::optional<double> power_w;        ///< mean board power over the window
  std::optional<double> energy_j;       ///< energy in the window
  std::optional<double> sm_clock_mhz;   ///< mean SM clock
  std::optional<double> util_pct;       ///< mean utilisation (at least two samples in the window)
  std::optional<double> temp_max_c;     ///< hottest reading
  std::string throttle;                 ///< this GPU's verdict
};

struct CellTelemetry {
  std::optional<double> gpu_power_w;         ///< mean board power over the window, summed over the server's
                                             ///< GPUs; empty when they were idle (utilisation < 5 %)
  std::optional<double> gpu_energy_j;        ///< GPU energy in the window (energy counter; else power × time);
                                             ///< empty when the GPUs were idle
  std::optional<double> tokens_per_joule;    ///< output tokens (prefill: prompt tokens) ÷ gpu_energy_j
  std::optional<double> gpu_sm_clock_mhz;    ///< mean SM clock over the window and the GPUs
  std::optional<double> gpu_util_pct;        ///< mean GPU utilisation over the window's samples and the GPUs,
                                             ///< 0–100; only where the window held at least two samples
  std::optional<double> gpu_temp_max_c;      ///< hottest GPU reading in the window
  std::string throttle;                      ///< "ok", "power_capped", "thermal", "hw_slowdown",
                                             ///< "clocks_below_max"; empty: no GPU telemetry
  std::optional<double> host_cpu_util_pct;   ///< mean host CPU utilisation over the window, 0–100
  std::optional<double> host_cpu_other_pct;  ///< of it, what processes other than the measurement's own
                                             ///< (speedmatrix, a server on this machine) used: a busy host
  std::optional<double> host_energy_j;       ///< the CPU packages' energy in the window (RAPL); empty where
                                             ///< it could not be read
  std::optional<int64_t> server_waiting_max; ///< most requests the server queued at once (its metrics)
  std::optional<double> server_kv_usage_max; ///< highest KV-cache use the server reported, 0–1
  std::optional<int64_t> server_preemptions; ///< requests the server preempted during the window
  /// Speculative decoding over the window, from the server's counters (docs/METRICS.md,
  /// "Speculative decoding"); empty where the server exports none or proposed no draft.
  std::optional<int64_t> spec_draft_tokens;     ///< draft tokens proposed
  std::optional<int64_t> spec_accepted_tokens;  ///< of them, accepted
  std::optional<int64_t> spec_drafts;           ///< drafts verified (vLLM)
  std::optional<double> spec_accept_length;     ///< mean tokens per verified draft: 1 + accepted ÷ drafts, or
                                                ///< SGLang's gauge (its mean over the window)
  std::vector<GpuWindowFigures> per_gpu;     ///< each of the server's GPUs, where it uses more than one
};

/// One prefill row: a cold request of `context` prompt tokens asking for 1 output token.
struct PrefillRow {
  int64_t context = 0;                    ///< target prompt tokens
  CellStatus status = CellStatus::Valid;
  std::optional<double> prompt_tok_s;     ///< prompt tokens / TTFT
  std::optional<double> ttft_ms;          ///< request sent -> first token received
  std::optional<int64_t> prompt_tokens;   ///< the server's usage.prompt_tokens
  std::optional<int64_t> cached_tokens;   ///< prompt tokens the server reused (should be ~0: cold)
  bool prompt_length_ok = true;           ///< |prompt_tokens − context| ≤ max(16, 0.5%)
  std::string error;                      ///< why the row failed (status error)
  std::vector<double> repeat_prompt_tok_s;  ///< --repeat: prompt_tok_s of every pass, in the order run
  CellTelemetry telemetry;                ///< the machine over the request (send → first token)
};

/// What the output checks (metrics/output_check.h) found in a cell's requests: result.json's
/// "output_check" (docs/METRICS.md, "Output checks").
struct OutputCheckSummary {
  int64_t requests = 0;  ///< requests checked: those that brought output (failed ones aside)
  int64_t repeat = 0;
  int64_t empty = 0;
  int64_t not_text = 0;
  int64_t count_mismatch = 0;
  /// "ok"; "loop" when repeat + empty requests are more than a tenth (kOutputFlawShare) of those checked;
  /// "not_text" when not_text + count_mismatch are (and the cell does not loop).
  std::string verdict = "ok";
  std::string flaw;     ///< the flaw of the excerpt's request ("repeat", ...); empty when ok
  std::string excerpt;  ///< a flawed request's text: the loop's cycle, or the text's start
};

/// One closed-loop measurement (a decode cell or an SLO probe) judged against the run's SLO
/// (docs/METRICS.md, "SLO search"; metrics/slo.h, judge_closed_loop).
struct SloJudgement {
  bool meets = false;                  ///< met_fraction ≥ percentile ÷ 100
  int64_t requests = 0;                ///< requests judged
  int64_t met = 0;                     ///< of those, within every target
  std::optional<double> met_fraction;  ///< met ÷ requests
  std::optional<double> ttft_ms;       ///< TTFT at the SLO percentile (send → first token)
  std::optional<double> tpot_ms;       ///< TPOT at the SLO percentile
  std::optional<double> achieved_rps;  ///< requests completed inside the window ÷ its length
  std::optional<double> goodput_rps;   ///< of those, the ones within the SLO ÷ the window's length
  std::optional<double> goodput_tok_s; ///< output tokens inside the window of requests within the SLO ÷ its length
};

/// One concurrency of an SLO search: a matrix cell or a probe, judged.
struct SloPoint {
  int64_t concurrency = 0;
  std::string source;                  ///< "matrix" (a decode cell of the matrix) or "probe"
  CellStatus status = CellStatus::Valid;  ///< a probe that failed: Error (or Interrupted)
  std::optional<SloJudgement> judgement;  ///< valid points
  std::string error;                   ///< status Error: why
};

/// One context's SLO search (`run --slo`): the highest concurrency meeting the SLO.
struct SloSearch {
  int64_t context = 0;
  /// "found" (concurrency passes, concurrency + 1 fails), "at_least" (the highest concurrency the
  /// KV cache and the matrix allow passes), "none" (one request already fails), "probe_limit"
  /// (the probes ran out between concurrency and failing_concurrency), "stopped" (a probe failed
  /// or the run was interrupted: the bracket so far).
  std::string basis;
  int64_t concurrency = 0;                      ///< highest concurrency that passed (0: none)
  std::optional<int64_t> failing_concurrency;   ///< lowest concurrency above it that failed
  std::optional<int64_t> passed_above;          ///< a higher concurrency that passed anyway (noise)
  int64_t max_concurrency = 0;                  ///< the highest concurrency the search could try
  int64_t probes = 0;                           ///< probes measured (matrix cells not counted)
  std::vector<SloPoint> points;                 ///< matrix cells used, then probes, in the order judged
};

/// A long prompt landing while other requests decode (`run --mixed-prefill`; docs/METRICS.md,
/// "Mixed prefill"): its TTFT alone and under load, and the background streams' decode rate
/// before, during and after its prefill, with a timeline.
struct MixedPrefillRow {
  int64_t context = 0;                  ///< the long prompt's tokens
  int64_t background_streams = 0;       ///< requests decoding while it lands
  CellStatus status = CellStatus::Valid;
  std::string error;                    ///< status Error: why
  std::optional<double> ttft_alone_ms;  ///< the long prompt alone, the server idle
  std::optional<double> ttft_loaded_ms; ///< a prompt as long, sent while the streams decode
  std::optional<double> background_before_tok_s;  ///< the streams' total tok/s before it was sent
  std::optional<double> background_during_tok_s;  ///< ... from its send to its first token
  std::optional<double> background_after_tok_s;   ///< ... from its first token to the window's end
  std::optional<double> longest_gap_ms; ///< longest pause between two tokens of a stream, over its prefill
  double sent_at_s = 0;                 ///< when it was sent, seconds into the window
  std::optional<double> first_token_at_s;  ///< its first token, seconds into the window
  double timeline_bin_s = 1;            ///< width of a timeline bin
  std::vector<double> timeline_tok_s;   ///< the streams' total tok/s in each bin of the window
  std::vector<std::string> warnings;
};

/// The point of `search` at its answer (the last judged at search.concurrency); null when none.
const SloPoint* slo_answer_point(const SloSearch& search);

/// A decode cell's energy per token and cost per million output tokens (docs/METRICS.md, "Energy
/// and cost per million tokens"; metrics/energy_cost.h). Present where the window has a measured
/// energy: the GPUs' (telemetry) or the host's (RAPL).
struct CellEnergy {
  int64_t output_tokens = 0;                    ///< output tokens in the window
  int64_t total_tokens = 0;                     ///< of them plus the prompt tokens of the requests that completed
  std::optional<double> gpu_j_per_output_token; ///< the GPUs' energy ÷ output tokens (empty: no GPU energy)
  std::optional<double> gpu_j_per_total_token;
  double host_energy_j = 0;                     ///< the host's energy over the window
  std::string host_source;                      ///< "rapl" (measured) or "estimate" (a constant power × time)
  double j_per_output_token = 0;                ///< (GPU + host) ÷ output tokens
  double j_per_total_token = 0;
  double power_w = 0;                           ///< (GPU + host energy) ÷ window
  double idle_power_w = 0;                      ///< what the box draws waiting (GPUs + host)
  double served_j_per_output_token = 0;         ///< j_per_output_token plus the idle share's energy (busy_share)
  std::optional<double> energy_cost_per_mtok;   ///< the electricity of a million output tokens (--power-price)
  std::optional<double> hardware_cost_per_mtok; ///< the machine's write-off over their time (--hardware-cost)
  std::optional<double> cost_per_mtok;          ///< the sum of those given
};

/// One sustained decode cell: `concurrency` streams over a `context`-token prompt.
struct DecodeCell {
  int64_t context = 0;
  int64_t concurrency = 0;
  CellStatus status = CellStatus::Valid;
  std::optional<double> total_tok_s;        ///< output tokens inside the window / window length; an adaptive
                                            ///< window that closed early: its projection to the full --duration
  std::optional<double> window_tok_s;       ///< adaptive window closed early: output tokens / window length
  std::optional<double> per_request_tok_s;  ///< median over streams of (tokens−1)/(last−first) in window
  std::optional<double> total_tok_s_ci;       ///< half-width of total_tok_s's 95% interval (batch means), tok/s
  std::optional<double> per_request_tok_s_ci; ///< the same relative precision applied to per_request_tok_s, tok/s
  std::optional<double> ttft_ms;            ///< median TTFT of the cell's requests
  std::optional<double> ttft_p90_ms;
  std::optional<double> ttft_p99_ms;
  std::optional<double> tbt_ms;             ///< median gap between consecutive tokens of a stream
  std::optional<double> tbt_p90_ms;
  std::optional<double> tbt_p99_ms;
  std::optional<double> chunk_gap_ms;       ///< median gap between consecutive chunks of a stream
  std::optional<double> e2e_ms;             ///< burst cells: median send → last token of a request
  std::optional<double> e2e_p90_ms;
  std::optional<double> e2e_p99_ms;
  std::optional<double> tpot_ms;            ///< burst cells: median over requests of (last − first token) ÷ (tokens − 1)
  std::optional<double> tpot_p90_ms;
  std::optional<double> tpot_p99_ms;
  std::optional<double> tokens_per_chunk;   ///< output tokens / token-bearing chunks, in window
  std::optional<double> avg_active;         ///< time-weighted mean of requests in flight, in window
  std::optional<double> effective_concurrency;  ///< time-weighted mean of streams generating, in window
  std::optional<double> server_running_mean;  ///< the server's own running-request count, mean of samples in window
  std::optional<double> server_waiting_mean;  ///< the server's own queued-request count, same samples
  std::optional<int64_t> completed;         ///< requests that finished inside the window
  std::optional<int64_t> output_tokens;     ///< output tokens that arrived inside the window
  std::optional<double> measured_s;         ///< window length
  std::optional<bool> settled;              ///< adaptive windows: true = closed early, within --precision;
                                            ///< false = never settled, ran the full --duration
  std::optional<double> audit_close_s;      ///< --precision-audit: seconds into the window where it would have closed
  std::optional<double> audit_tok_s;        ///< ... and the total tok/s it would have reported then (the projection)
  std::optional<double> audit_tok_s_ci;     ///< ... with this 95% half-width, tok/s
  std::vector<double> audit_bins_tok_s;     ///< --precision-audit: the full window's output tokens in each whole
                                            ///< second, the bins the rule reads (to replay other rules on them)
  std::optional<int64_t> requests_started;  ///< requests sent for this cell (warm-up excluded)
  std::optional<int64_t> requests_failed;   ///< of those, ended by an error
  std::optional<int64_t> ended_early;       ///< of those, ended by the server before max output
  std::optional<int64_t> requests_ended;    ///< run --natural-eos: requests whose answer ended in the cell
                                            ///< (end of sequence or max output; not cut at the window's end)
  std::optional<Percentiles> ended_output_tokens;  ///< ... and their output lengths, tokens
  std::optional<int64_t> reasoning_requests;  ///< requests that streamed reasoning apart from their answer
  std::optional<int64_t> answered_requests;   ///< ... of those, the ones whose answer began
  std::optional<Percentiles> first_answer_ms; ///< ... send → their first answer token (TTFT counts reasoning)
  std::optional<Percentiles> reasoning_tokens; ///< ... each one's reasoning before its answer, tokens
  std::optional<double> server_tok_s;       ///< median per-request tok/s the server itself reported (llama.cpp timings)
  std::optional<double> server_rate_ratio;  ///< median over the same finished requests of client-measured
                                            ///< (tokens−1)/(last−first) ÷ the server's figure; 1 = agreement
  std::string token_count_source;           ///< "usage_continuous", "timings", "token_ids", "usage_final", "chunks"
  std::optional<int64_t> prompt_tokens_min; ///< smallest usage.prompt_tokens seen
  std::optional<int64_t> prompt_tokens_max; ///< largest usage.prompt_tokens seen
  bool prompt_length_ok = true;             ///< every prompt within max(16, 0.5%) of the target
  std::string error;                        ///< why the cell failed (status error)
  std::vector<std::string> warnings;        ///< e.g. "2 requests ended before max output (stop)"
  std::vector<double> repeat_tok_s;         ///< --repeat: total_tok_s of every pass, in the order run; the
                                            ///< cell's other figures are its median pass's
  CellTelemetry telemetry;                  ///< the machine over the window
  std::optional<OutputCheckSummary> output_check;  ///< the requests' output checked; absent in files before it
  std::optional<SloJudgement> slo;          ///< run --slo: the cell judged against the SLO (metrics/slo.h)
  std::optional<CellEnergy> energy;         ///< energy per token and cost; absent without a measured energy
};

/// A GPU's fixed facts, as the telemetry saw them.
struct TelemetryGpu {
  int index = 0;
  std::string name;
  std::optional<double> sm_clock_max_mhz;
  std::optional<double> mem_clock_max_mhz;
  std::optional<double> power_limit_w;  ///< enforced limit at the run's start
  std::string pcie;                     ///< link at the run's start / its maximum, e.g. "Gen4 x16 (max Gen4 x16)"
};

/// What the run's telemetry covered (docs/METRICS.md, "Telemetry").
struct TelemetryInfo {
  double interval_s = 0.5;          ///< GPU and host sampling period (server: every second)
  std::string gpu_source;           ///< "nvml" or "amdgpu-sysfs" when GPUs were sampled; empty otherwise
  std::string gpu_unavailable;      ///< why there is no GPU telemetry (no library, no GPU, ...)
  std::vector<TelemetryGpu> gpus;   ///< every GPU sampled (the series has them all)
  /// The GPUs the server uses (indices into gpus): only they count in the cells' figures
  /// (docs/METRICS.md, "The server's GPUs"). Empty with a source: the server uses none.
  std::vector<int> server_gpus;
  std::string server_gpus_source;   ///< "declared", "process_list", "visible_devices", "all"; empty: not chosen
  std::string server_gpus_detail;   ///< how, in words
  bool host = false;                ///< host CPU was sampled
  bool server = false;              ///< the server's metrics were sampled
  bool client_side_only = false;    ///< GPU and host readings are the client's machine (remote server)
  std::string series_file;          ///< the raw series in the run folder, e.g. "telemetry.jsonl"
  /// What the box drew waiting, outside every window (telemetry/window_summary.h idle_power): the
  /// server's GPUs summed, and the CPU packages (RAPL); empty where not measured.
  std::optional<double> idle_gpu_power_w;
  std::optional<double> idle_host_power_w;
};

/// Facts about the client's own ceiling, measured before the run.
struct ClientCeiling {
  double tokens_per_s = 0;  ///< streamed tokens per second the client ingests on one core
  int64_t streams = 0;      ///< concurrent streams of that measurement
};

/// How the client reached the server, and the network's share of every latency
/// (docs/METRICS.md, "Connection"). Header values are never recorded.
struct ConnectionInfo {
  bool tls = false;                  ///< the target URL is https://
  bool tls_verified = false;         ///< tls, and the server's certificate was checked (false with --insecure)
  std::string cacert;                ///< --cacert file the certificate was checked against; empty: the system's CAs
  std::string proxy;                 ///< proxy the requests went through (credentials redacted); empty: direct
  std::string proxy_source;          ///< "--proxy" or "environment" (https_proxy, ...); empty when direct
  bool http2_requested = false;      ///< --http2 was given
  std::string http_version;          ///< what the server answered with: "1.1" or "2"
  std::vector<std::string> headers;  ///< --header lines with their values redacted: "api-key: <redacted>"
  std::optional<double> rtt_ms;      ///< median send -> first byte of small GETs (/v1/models) on an open
                                     ///< connection, before the first cell: the network's part of every TTFT
  int64_t rtt_requests = 0;          ///< requests that median is of
};

/// One offered request rate of a sweep (`speedmatrix sweep`; docs/METRICS.md, "Request-rate
/// sweeps"). Latencies are timed from each request's intended start, not from when it was sent.
struct SweepPoint {
  double rate_rps = 0;            ///< arrivals per second asked for
  bool search = false;            ///< measured by `--rates auto` while looking for the saturation rate
  CellStatus status = CellStatus::Valid;  ///< Valid, Error or Interrupted (partial numbers)
  double window_s = 0;            ///< arrival window: arrivals were scheduled over [0, window_s)
  int64_t requests = 0;           ///< requests scheduled and sent
  int64_t completed = 0;          ///< of those, ended without error
  int64_t failed = 0;             ///< of those, ended by an error (or cut by the drain timeout)
  double offered_rps = 0;         ///< requests ÷ window_s
  std::optional<double> achieved_rps;           ///< completed ÷ max(window, last completion − window start)
  std::optional<double> steady_completion_rps;  ///< completions in the window's second half ÷ its length
  std::optional<double> output_tok_s;           ///< achieved_rps × mean output tokens of a completion
  std::optional<double> input_tokens_mean;      ///< mean usage.prompt_tokens the server reported
  std::optional<double> output_tokens_mean;     ///< mean output tokens per completed request
  std::optional<Percentiles> ttft_ms;           ///< intended start → first token
  std::optional<Percentiles> tpot_ms;           ///< (last token − first token) ÷ (output tokens − 1)
  std::optional<Percentiles> e2e_ms;            ///< intended start → last byte (completed requests)
  std::optional<Percentiles> send_lag_ms;       ///< intended start → handed to the HTTP client
  std::optional<double> queue_growth_ms;        ///< median TTFT of the last third of arrivals − the first's
  std::optional<double> in_flight_growth;       ///< mean requests in flight at the last third's arrivals −
                                                ///< at the middle third's
  std::optional<double> slo_met_fraction;       ///< requests that completed within both SLOs ÷ requests
  std::optional<double> goodput_rps;            ///< achieved_rps × share of completions within both SLOs
  std::optional<OutputCheckSummary> output_check;  ///< the rate's requests' output checked; absent in files before it
  bool saturated = false;                       ///< the server did not keep up with this rate
  std::string saturation_reason;                ///< why, in words
  std::string error;                            ///< status Error: why
};

/// A request-rate sweep (`speedmatrix sweep`): its settings, every rate, and what was found.
struct SweepInfo {
  std::string arrivals = "poisson";       ///< "poisson" or "constant"
  std::string rates = "auto";             ///< --rates as given: "auto" or "1,2,4"
  double input_len_mean = 0;              ///< prompt tokens per request (mean)
  double input_len_sd = 0;                ///< standard deviation (0 = fixed); normal, clipped to ≥ 1
  double output_len_mean = 0;             ///< output tokens asked per request (mean)
  double output_len_sd = 0;
  double window_s = 0;                    ///< arrival window per rate (--duration, or --requests ÷ rate)
  std::optional<int64_t> requests_per_rate;  ///< --requests: arrivals per rate instead of a duration
  std::optional<double> slo_ttft_ms;      ///< --slo-ttft
  std::optional<double> slo_tpot_ms;      ///< --slo-tpot
  double slo_fraction = 0.9;              ///< share of requests that must meet the SLOs at a rate
  std::optional<double> saturation_rps;   ///< --rates auto: the estimated saturation rate
  std::optional<double> max_rate_within_slo_rps;  ///< highest measured rate where slo_met_fraction ≥ slo_fraction
  std::vector<SweepPoint> points;         ///< in the order measured
  std::vector<double> skipped_rates_rps;  ///< rates not measured because a lower rate saturated the server
};

/// How a context's retrieval check ended (docs/METRICS.md, "Long-context retrieval check").
enum class RetrievalVerdict : uint8_t {
  Exact,          ///< the answer holds the passkey
  NearMiss,       ///< no passkey, but a number one or two digit edits from it (a transposition counts one)
  Wrong,          ///< an answer without the passkey or a near miss
  Truncated,      ///< the server cut the prompt (usage.prompt_tokens < 90 % of it) or said nothing
                  ///< before max_tokens ran out
  NotApplicable,  ///< a synthetic model (random weights): nothing to read back; no request sent
  Error,          ///< the request failed (HTTP error, timeout): the check did not run
};

/// "exact", "near_miss", "wrong", "truncated", "not_applicable", "error".
std::string_view to_string(RetrievalVerdict verdict);
/// The inverse of to_string; std::nullopt for anything else.
std::optional<RetrievalVerdict> parse_retrieval_verdict(std::string_view text);
/// True for the verdicts that say the server did not read the context back (near_miss, wrong,
/// truncated): each cell at that context then carries kRetrievalFailedWarning.
bool retrieval_failed(RetrievalVerdict verdict);

/// The warning every decode cell at a context whose retrieval check failed carries.
inline constexpr std::string_view kRetrievalFailedWarning =
    "the server did not read this context back: its retrieval check failed";

/// One context's retrieval check: an unmeasured request whose prompt hides a passkey at `depth`.
struct RetrievalCheck {
  int64_t context = 0;          ///< the prompt's tokens (the matrix's context)
  double depth = 0;             ///< where the needle starts, as a fraction of the prompt: 0.25 = a quarter in
  RetrievalVerdict verdict = RetrievalVerdict::Error;
  std::optional<int64_t> prompt_tokens;  ///< the server's usage.prompt_tokens for the check's prompt
  std::optional<bool> fact_found;        ///< the answer also named the needle's fact (the vault's city)
  std::string finish_reason;    ///< the server's finish_reason ("stop", "length"); empty when it gave none
  std::string excerpt;          ///< the answer's first 200 bytes (UTF-8 kept whole; redacted like all text);
                                ///< error: why the request failed
};

/// Where a run's wall time went, in seconds (docs/METRICS.md, "Where the time went"). Summed over
/// every session of a resumed run; what no phase claims (reports, saves, the client self-test) is
/// total_s minus the rest.
struct RunTiming {
  double total_s = 0;        ///< from the start of the run to its last save
  double setup_s = 0;        ///< the client self-test, launching, connecting, probing, calibrating the token count
  double prompts_s = 0;      ///< building the prompts (tokenize requests)
  double idle_wait_s = 0;    ///< waiting for the server to be idle (or the quiet period) before a row or cell
  double prefill_s = 0;      ///< the prefill rows' requests
  double warmup_s = 0;       ///< warm-up requests before decode cells (burst cells' too)
  double ramp_s = 0;         ///< from a cell's first send to its window's opening
  double windows_s = 0;      ///< the decode windows themselves (a burst cell's whole batch)
  double wind_down_s = 0;    ///< from a window's close to the loop's return (cutting the streams)
  double accounted_s() const {
    return setup_s + prompts_s + idle_wait_s + prefill_s + warmup_s + ramp_s + windows_s + wind_down_s;
  }
  /// Adds another session's phases (a resumed run sums its sessions).
  RunTiming& operator+=(const RunTiming& o) {
    total_s += o.total_s;
    setup_s += o.setup_s;
    prompts_s += o.prompts_s;
    idle_wait_s += o.idle_wait_s;
    prefill_s += o.prefill_s;
    warmup_s += o.warmup_s;
    ramp_s += o.ramp_s;
    windows_s += o.windows_s;
    wind_down_s += o.wind_down_s;
    return *this;
  }
};

/// The whole run.
/// Users served at a speed (docs/METRICS.md, "Users at a speed floor"): at one context, the most
/// simultaneous requests whose per-request rate stays at or above a floor.
struct CapacityPoint {
  int64_t context = 0;
  double floor_tok_s = 0;              ///< tok/s each user sees at least (per-request median)
  int64_t users = 0;                   ///< simultaneous requests served at that speed; 0 = not even one
  std::optional<double> total_tok_s;   ///< the box's output tok/s there (interpolated with users)
  /// "measured" (a measured concurrency, the next one falls below), "interpolated" (between two
  /// measured concurrencies), "at_least" (every measured concurrency met the floor: more were not
  /// measured), "none" (the lowest, one request, falls below the floor).
  std::string basis;
  std::optional<double> j_per_output_token;  ///< served energy per output token there (idle share included)
  std::optional<double> cost_per_mtok;       ///< cost per million output tokens there (with prices given)
};

struct RunResult {
  int schema_version = kResultSchemaVersion;
  std::string tool_version;    ///< speedmatrix version
  std::string tool_commit;
  std::string tool_build_type; ///< "Release", "RelWithDebInfo", "Debug"
  std::string run_id;          ///< unique id, e.g. "20261202T143448Z-3f9a2c1e"
  std::string kind = "measured";  ///< "measured", "simulated" (against sim) or "predicted" (calc)
  std::string started_at;      ///< ISO-8601 UTC
  std::string finished_at;     ///< ISO-8601 UTC; empty while running
  std::string target_url;      ///< base URL of the server (empty for predictions)
  std::string launch_command;  ///< exact command that started the server, when known
  std::string submitted_by;    ///< optional user label
  std::string notes;           ///< free text (e.g. "untuned baseline")
  int64_t resumes = 0;         ///< how many times the run was continued with --resume
  EngineInfo engine;
  HardwareInfo hardware;       ///< the machine that ran the server (see hardware.source)
  std::optional<HardwareInfo> client_hardware;  ///< the machine that measured, when the server ran elsewhere
  RunSettings settings;
  std::optional<ClientCeiling> client_ceiling;
  std::optional<TelemetryInfo> telemetry;  ///< nullopt: not sampled (--no-telemetry, predictions, older files)
  std::optional<ConnectionInfo> connection;  ///< nullopt: no server contacted (predictions, older files)
  std::vector<PrefillRow> prefill;
  std::vector<DecodeCell> decode;
  /// Users at each speed floor and context, from the decode cells (metrics/capacity.h); written
  /// with every save, empty in files before it (printers work it out from the cells then).
  std::vector<CapacityPoint> capacity;
  std::vector<std::string> warnings;  ///< run-level warnings
  std::optional<SweepInfo> sweep;     ///< a request-rate sweep (`speedmatrix sweep`); then prefill and decode are empty
  std::optional<RunTiming> timing;    ///< where the wall time went (matrix runs; nullopt in older files and predictions)
  std::vector<RetrievalCheck> retrieval;  ///< the retrieval check of each context checked, ascending context
  std::vector<SloSearch> slo_search;      ///< run --slo: each context's search, ascending context
  std::vector<MixedPrefillRow> mixed_prefill;  ///< run --mixed-prefill: each length's row, ascending context
  std::optional<SessionsResult> sessions;      ///< run --sessions / --trace, once measured
};

}  // namespace sm
