#include "sim/sim_engine.h"

#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <ctime>

#include "sim/json_text.h"

namespace sm::sim {

namespace {

using Steady = std::chrono::steady_clock;

int64_t steady_now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Steady::now().time_since_epoch()).count();
}

// CPU time of the calling thread: what a step really costs, whatever else the machine runs.
int64_t thread_cpu_ns() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

constexpr int64_t kLateThresholdNs = 1'000'000;  // a step delivered over 1 ms late counts as late

SchedulerConfig scheduler_config(const SimConfig& c) {
  SchedulerConfig s;
  s.kv_capacity_tokens = c.kv_capacity_tokens;
  s.block_size = c.block_size;
  s.max_num_seqs = c.max_num_seqs;
  s.max_num_batched_tokens = c.max_num_batched_tokens;
  s.enable_prefix_caching = c.enable_prefix_caching;
  s.spec_tokens = c.spec_tokens;
  s.spec_accept_rate = c.spec_accept_rate;
  return s;
}

ModelLimits model_limits(const SimConfig& c) {
  ModelLimits l;
  l.model_id = c.model_id();
  if (l.model_id != c.model_name) l.model_alias = c.model_name;
  l.max_model_len = c.max_model_len;
  l.block_size = c.block_size;
  l.natural_length_min = c.natural_length_min;
  l.natural_length_max = c.natural_length_max;
  l.attention_window = c.attention_window_tokens;
  return l;
}

// Prometheus label values escape backslash, quote and newline.
std::string label(std::string_view v) {
  std::string out;
  for (char c : v) {
    if (c == '\\') out += "\\\\";
    else if (c == '"') out += "\\\"";
    else if (c == '\n') out += "\\n";
    else out += c;
  }
  return out;
}

// Numbers the way Python's prometheus_client writes them (vLLM's exporter): 2 -> "2.0".
std::string number(double v) {
  if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 1e15) return fmt::format("{:.1f}", v);
  return fmt::format("{}", v);
}

}  // namespace

SimEngine::SimEngine(boost::asio::io_context& io, SimConfig config)
    : config_(std::move(config)),
      limits_(model_limits(config_)),
      formatter_(config_.model_id(), static_cast<uint64_t>(steady_now_ns())),
      scheduler_(scheduler_config(config_), *config_.cost_model),
      timer_(io),
      arrival_timer_(io) {}

RequestId SimEngine::submit(SimRequestSpec spec, RequestSink* sink) {
  const double cpu_s = config_.cost_model->request_cpu_time_s(spec.prompt_tokens);
  if (cpu_s <= 0) {
    RequestId id = scheduler_.add(std::move(spec), sink);
    // An idle engine picks the request up at once; a busy one at the next step boundary.
    if (!scheduler_.step_in_flight() && !stopping_) start_step(steady_now_ns());
    return id;
  }
  RequestId id = scheduler_.add(std::move(spec), sink, /*held=*/true);
  const int64_t start_ns = std::max(steady_now_ns(), api_free_ns_);
  api_free_ns_ = start_ns + std::llround(cpu_s * 1e9);
  arrivals_.push_back(Arrival{api_free_ns_, id});
  if (arrivals_.size() == 1) arm_arrival_timer();
  return id;
}

void SimEngine::arm_arrival_timer() {
  arrival_timer_.expires_at(Steady::time_point(std::chrono::nanoseconds(arrivals_.front().due_ns)));
  arrival_timer_.async_wait([this](const boost::system::error_code& ec) {
    if (!ec && !stopping_) on_arrivals_due();
  });
}

void SimEngine::on_arrivals_due() {
  const int64_t now = steady_now_ns();
  int64_t last_due = 0;
  while (!arrivals_.empty() && arrivals_.front().due_ns <= now) {
    last_due = arrivals_.front().due_ns;
    scheduler_.release(arrivals_.front().id);  // ignored when the client already left
    arrivals_.pop_front();
  }
  // An idle engine starts when the request was due, so a late timer does not shift the timeline.
  if (last_due > 0 && !scheduler_.step_in_flight() && scheduler_.has_work())
    start_step(std::max(last_due, step_due_ns_));
  if (!arrivals_.empty()) arm_arrival_timer();
}

void SimEngine::shutdown() {
  stopping_ = true;
  scheduler_.abort_all();
  arrivals_.clear();
  timer_.cancel();
  arrival_timer_.cancel();
}

void SimEngine::start_step(int64_t start_ns) {
  const int64_t cpu_start = thread_cpu_ns();
  std::optional<double> step_s = scheduler_.begin_step();
  stats_.step_cpu_s += static_cast<double>(thread_cpu_ns() - cpu_start) * 1e-9;
  if (!step_s) return;  // nothing runnable: idle until the next submit
  step_due_ns_ = start_ns + std::llround(std::max(0.0, *step_s) * 1e9);
  timer_.expires_at(Steady::time_point(std::chrono::nanoseconds(step_due_ns_)));
  timer_.async_wait([this](const boost::system::error_code& ec) {
    if (!ec && !stopping_) on_step_due();
  });
}

void SimEngine::on_step_due() {
  const int64_t now = steady_now_ns();
  const int64_t lag = now - step_due_ns_;
  if (lag > kLateThresholdNs) {
    ++stats_.late_steps;
    stats_.lag_s += static_cast<double>(lag) * 1e-9;
  }
  const int64_t cpu_start = thread_cpu_ns();
  scheduler_.finish_step();  // delivers the step's tokens to the sessions (socket writes included)
  stats_.step_cpu_s += static_cast<double>(thread_cpu_ns() - cpu_start) * 1e-9;
  if (!scheduler_.has_work()) return;
  int64_t next_start = step_due_ns_;
  if (static_cast<double>(lag) > config_.max_lag_s * 1e9) {
    next_start = now;
    ++stats_.clock_resyncs;
  }
  start_step(next_start);
}

SimStats SimEngine::stats() const {
  SimStats s = stats_;
  s.scheduler = scheduler_.stats();
  return s;
}

std::string SimEngine::metrics_text() const {
  const SimStats s = stats();
  const SchedulerStats& e = s.scheduler;
  const std::string model = label(limits_.model_id);
  const std::string labels = fmt::format(R"(engine="0",model_name="{}")", model);
  std::string out;
  auto metric = [&](std::string_view name, std::string_view type, std::string_view help, double value,
                    std::string_view extra_labels = {}) {
    out += fmt::format("# HELP {} {}\n# TYPE {} {}\n", name, help, name, type);
    out += fmt::format("{}{{{}{}{}}} {}\n", name, extra_labels, extra_labels.empty() ? "" : ",", labels, number(value));
  };

  const int64_t usable_tokens = static_cast<int64_t>(e.num_blocks) * config_.block_size;
  out += "# HELP vllm:cache_config_info Information of the LLMEngine CacheConfig\n";
  out += "# TYPE vllm:cache_config_info gauge\n";
  out += fmt::format(
      R"(vllm:cache_config_info{{block_size="{}",cache_dtype="auto",calculate_kv_scales="False",)"
      R"(cpu_offload_gb="0",enable_prefix_caching="{}",engine="0",gpu_memory_utilization="{}",)"
      R"(is_attention_free="False",kv_cache_max_concurrency="{:.2f}",kv_cache_size_tokens="{}",)"
      R"(num_cpu_blocks="None",num_gpu_blocks="{}",num_gpu_blocks_override="None",)"
      R"(prefix_caching_hash_algo="builtin",sliding_window="None",swap_space="4",swap_space_bytes="4294967296"}} 1.0)"
      "\n",
      config_.block_size, config_.enable_prefix_caching ? "True" : "False", config_.gpu_memory_utilization,
      static_cast<double>(usable_tokens) / static_cast<double>(config_.max_model_len), usable_tokens, e.num_blocks);

  metric("vllm:num_requests_running", "gauge", "Number of requests in model execution batches.", e.running);
  metric("vllm:num_requests_waiting", "gauge", "Number of requests waiting to be processed.", e.waiting);
  metric("vllm:kv_cache_usage_perc", "gauge", "KV-cache usage. 1 means 100 percent usage.", e.kv_usage);
  metric("vllm:prefix_cache_queries_total", "counter",
         "Prefix cache queries, in terms of number of queried tokens.", static_cast<double>(e.prefix_cache_queries));
  metric("vllm:prefix_cache_hits_total", "counter", "Prefix cache hits, in terms of number of cached tokens.",
         static_cast<double>(e.prefix_cache_hits));
  metric("vllm:num_preemptions_total", "counter", "Cumulative number of preemption from the engine.",
         static_cast<double>(e.preemptions));
  metric("vllm:prompt_tokens_total", "counter", "Number of prefill tokens processed.", static_cast<double>(e.prompt_tokens));
  metric("vllm:generation_tokens_total", "counter", "Number of generation tokens processed.",
         static_cast<double>(e.generation_tokens));
  if (config_.spec_tokens > 0) {  // vLLM's speculative-decoding counters
    metric("vllm:spec_decode_num_drafts_total", "counter", "Number of spec decoding drafts.",
           static_cast<double>(e.spec_drafts));
    metric("vllm:spec_decode_num_draft_tokens_total", "counter", "Number of draft tokens.",
           static_cast<double>(e.spec_draft_tokens));
    metric("vllm:spec_decode_num_accepted_tokens_total", "counter", "Number of accepted tokens.",
           static_cast<double>(e.spec_accepted_tokens));
  }
  out += "# HELP vllm:request_success_total Count of successfully processed requests.\n";
  out += "# TYPE vllm:request_success_total counter\n";
  for (auto [reason, count] : {std::pair<const char*, int64_t>{"stop", e.requests_finished_stop},
                               {"length", e.requests_finished_length}, {"abort", e.requests_aborted}})
    out += fmt::format("vllm:request_success_total{{{},finished_reason=\"{}\"}} {}\n", labels, reason,
                       number(static_cast<double>(count)));

  out += "# HELP speedmatrix_sim_info This server is speedmatrix's simulated engine, not a real one.\n";
  out += "# TYPE speedmatrix_sim_info gauge\n";
  out += fmt::format(R"(speedmatrix_sim_info{{simulated="true",engine="vllm",engine_version="{}",gpu="{}",model="{}",cost_model="{}"}} 1.0)"
                     "\n",
                     label(config_.engine_version), label(config_.gpu_name), label(config_.model_name),
                     label(config_.cost_model->describe()));
  metric("speedmatrix_sim_steps_total", "counter", "Engine steps completed.", static_cast<double>(e.steps));
  metric("speedmatrix_sim_busy_seconds_total", "counter", "Sum of the modelled durations of completed steps.", e.busy_s);
  metric("speedmatrix_sim_late_steps_total", "counter",
         "Steps whose tokens went out more than 1 ms after their modelled time (the CPU fell behind).",
         static_cast<double>(s.late_steps));
  metric("speedmatrix_sim_lag_seconds_total", "counter", "Sum of the lateness of late steps.", s.lag_s);
  metric("speedmatrix_sim_clock_resyncs_total", "counter",
         "Times the step clock fell too far behind and restarted from now.", static_cast<double>(s.clock_resyncs));
  metric("speedmatrix_sim_step_cpu_seconds_total", "counter",
         "CPU time the server thread spent composing and completing steps (chunk formatting and socket writes included).", s.step_cpu_s);
  metric("speedmatrix_sim_prefill_tokens_computed_total", "counter",
         "Prompt tokens actually computed (prefix-cache hits excluded, recomputation included).",
         static_cast<double>(e.prefill_tokens_computed));
  metric("speedmatrix_sim_max_running", "gauge", "Most requests running at once since start.", e.max_running);
  metric("speedmatrix_sim_max_waiting", "gauge", "Most requests waiting at once (after a step's admissions) since start.",
         e.max_waiting);
  metric("speedmatrix_sim_kv_free_blocks", "gauge", "KV blocks no request holds (cached ones included).", e.free_blocks);
  metric("speedmatrix_sim_connections_open", "gauge", "Open client connections.", s.connections_open);
  return out;
}

}  // namespace sm::sim
