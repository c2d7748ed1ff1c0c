#include "sim/calc_sim_config.h"

#include <fmt/format.h>

#include "sim/calc_cost_model.h"

namespace sm::sim {

Result<calc::Setup> calc_setup_for(const SimTarget& target, const calc::Catalog& catalog) {
  calc::Setup s;
  auto gpu = catalog.find_gpu(target.gpu);
  if (!gpu) return fail(ErrorCode::InvalidArgument, fmt::format("--gpu: {}", gpu.error().message));
  auto model = catalog.find_model(target.model);
  if (!model) return fail(ErrorCode::InvalidArgument, fmt::format("--model: {}", model.error().message));
  auto quant = catalog.find_quant(target.quant);
  if (!quant) return fail(ErrorCode::InvalidArgument, fmt::format("--quant: {}", quant.error().message));
  auto engine = catalog.find_engine(target.engine);
  if (!engine) return fail(ErrorCode::InvalidArgument, fmt::format("--engine: {}", engine.error().message));
  if (target.gpus < 1) return fail(ErrorCode::InvalidArgument, "--gpus must be at least 1");
  s.gpu = *gpu;
  s.model = *model;
  s.quant = *quant;
  s.engine = *engine;
  s.gpus = target.gpus;
  s.kv_bytes_per_element = target.kv_bytes_per_element;
  s.gpu_mem_util = target.gpu_mem_util;
  s.max_num_seqs = target.max_num_seqs;
  s.max_batched_tokens = target.max_batched_tokens;
  return s;
}

SimTarget SimTarget::seed() {
  SimTarget t;
  t.gpu_mem_util = 0.94;  // the seed run's --gpu-memory-utilization
  return t;
}

Result<SimConfig> seed_sim_config() {
  auto catalog = calc::Catalog::builtin();
  if (!catalog) return std::unexpected(catalog.error());
  return sim_config_from_calc(SimTarget::seed(), *catalog);
}

Result<SimConfig> sim_config_from_calc(const SimTarget& target, const calc::Catalog& catalog) {
  auto setup = calc_setup_for(target, catalog);
  if (!setup) return std::unexpected(setup.error());
  auto cost = std::make_shared<CalcCostModel>(*setup);
  SimConfig c;
  c.kv_capacity_tokens = target.kv_capacity_tokens.value_or(cost->model().kv_capacity_tokens());
  if (c.kv_capacity_tokens <= 0)
    return fail(ErrorCode::InvalidArgument,
                fmt::format("{} {} does not fit on {} x {} with memory utilisation {}: no KV cache left",
                            setup->model.name, setup->quant.name, setup->gpus, setup->gpu.name, setup->mem_util()));
  const int64_t kv_usable = c.kv_capacity_tokens / c.block_size * c.block_size;
  c.max_model_len = target.max_model_len.value_or(std::min<int64_t>(setup->model.max_position, kv_usable));
  c.max_num_seqs = static_cast<int32_t>(setup->num_seqs());
  c.max_num_batched_tokens = static_cast<int32_t>(setup->batched_tokens());
  c.gpu_memory_utilization = setup->mem_util();
  c.model_name = fmt::format("{}-{}", setup->model.name, setup->quant.id);
  c.gpu_name = setup->gpus > 1 ? fmt::format("{} x {}", setup->gpus, setup->gpu.name) : setup->gpu.name;
  c.cost_model = std::move(cost);
  return c;
}

}  // namespace sm::sim
