#pragma once
// Everything the simulated engine needs, as plain values: the server does not depend on the
// calculator, only on a StepCostModel and the numbers below.
#include <cstdint>
#include <memory>
#include <string>

#include "core/error.h"
#include "sim/step_cost_model.h"

namespace sm::sim {

struct SimConfig {
  std::string listen_host = "127.0.0.1";  ///< numeric address or "localhost"
  uint16_t port = 0;                      ///< 0 = let the OS pick a free port (see SimServer::port())
  std::string model_name = "Qwen3.5-4B-AWQ";  ///< what is simulated; /v1/models `root`
  std::string served_model_name;          ///< model id clients use; empty = model_name + "-simulated"
  std::string engine_version = "0.10.1";  ///< vLLM version imitated; /version says "<this>-sim"
  int64_t kv_capacity_tokens = 532'480;   ///< KV pool in tokens (whole blocks are used)
  int32_t block_size = 16;                ///< tokens per KV block
  int64_t max_model_len = 262'144;        ///< longest prompt + output of one request
  int32_t max_num_seqs = 256;             ///< running requests at most
  int32_t max_num_batched_tokens = 2048;  ///< tokens one step may compute (chunked prefill budget)
  int32_t stream_interval = 1;            ///< output tokens per stream chunk (last chunk may hold fewer)
  bool enable_prefix_caching = true;      ///< share cached prompt blocks between requests
  double gpu_memory_utilization = 0.9;    ///< only reported (cache_config_info label)
  std::string gpu_name;                   ///< only reported (/metrics info label); may be empty
  int64_t natural_length_min = 256;       ///< without ignore_eos, a request's answer ends with EOS
  int64_t natural_length_max = 2048;      ///< after a length in [min, max) chosen from its prompt
  int32_t spec_tokens = 0;                ///< speculative decoding: draft tokens per step (0: none)
  double spec_accept_rate = 0.7;          ///< ... each accepted with this probability (sim/batch_scheduler.h)
  /// The simulated model sees only the last this many tokens of a prompt (0 = all of it): a
  /// retrieval question whose needle lies before them is answered wrongly (sim/retrieval_answer.h).
  /// What it reads changes nothing in its timing.
  int64_t attention_window_tokens = 0;
  double max_lag_s = 0.1;                 ///< behind schedule by more than this, the step clock
                                          ///< restarts from now instead of catching up
  std::shared_ptr<const StepCostModel> cost_model;  ///< step durations; null = LinearCostModel defaults

  /// Served id: served_model_name, else model_name + "-simulated".
  std::string model_id() const { return served_model_name.empty() ? model_name + "-simulated" : served_model_name; }
  /// Checks limits: capacity holds at least one max_model_len request, sizes positive.
  Result<void> validate() const;
};

}  // namespace sm::sim
