#include "cli/gpu_figure_flags.h"

#include <fmt/format.h>

namespace sm::cli {

void add_gpu_figure_flags(CLI::App* cmd, GpuFigureFlags& f) {
  cmd->add_option("--gpu-bandwidth", f.bandwidth_gb_s,
                  "A GPU the catalog lacks, by its figures: memory bandwidth in GB/s (with --gpu-tflops and "
                  "--gpu-memory; --gpu then names it)");
  cmd->add_option("--gpu-tflops", f.tflops, "Its dense 16-bit (FP16/BF16) tensor TFLOPS");
  cmd->add_option("--gpu-memory", f.memory_gb, "Its memory as sold, in GB (24 for a 24 GB card)");
  cmd->add_option("--gpu-class", f.class_name,
                  "Its class for the calculator's error bands: geforce, workstation, datacenter or apple; default "
                  "from its figures (HBM-class bandwidth: datacenter; over 32 GB: workstation; else geforce)");
}

Result<void> apply_gpu_figure_flags(const GpuFigureFlags& f, calc::Catalog& catalog, std::string& gpu) {
  const bool any = f.bandwidth_gb_s || f.tflops || f.memory_gb || !f.class_name.empty();
  if (!any) return {};
  if (!f.bandwidth_gb_s || !f.tflops || !f.memory_gb)
    return fail(ErrorCode::InvalidArgument,
                "a GPU by its figures needs all three of --gpu-bandwidth GB/s, --gpu-tflops TFLOPS and --gpu-memory GB");
  if (!f.class_name.empty() && !calc::is_gpu_class(f.class_name))
    return fail(ErrorCode::InvalidArgument,
                fmt::format("--gpu-class must be geforce, workstation, datacenter or apple (got '{}')", f.class_name));
  auto id = catalog.add_gpu_figures(gpu.empty() ? "Custom GPU" : gpu, *f.memory_gb, *f.bandwidth_gb_s, *f.tflops,
                                    f.class_name);
  if (!id) return std::unexpected(id.error());
  gpu = *id;
  return {};
}

}  // namespace sm::cli
