#pragma once
// calc and sim --gpu-bandwidth GB/s --gpu-tflops T --gpu-memory GB [--gpu-class C]: a GPU the
// catalog lacks, by its datasheet figures (docs/calculator.md, "A GPU by its figures").
#include <CLI/CLI.hpp>

#include <optional>
#include <string>

#include "calc/catalog.h"
#include "core/error.h"

namespace sm::cli {

struct GpuFigureFlags {
  std::optional<double> bandwidth_gb_s;  ///< --gpu-bandwidth
  std::optional<double> tflops;          ///< --gpu-tflops (dense 16-bit tensor)
  std::optional<double> memory_gb;       ///< --gpu-memory
  std::string class_name;                ///< --gpu-class
};

void add_gpu_figure_flags(CLI::App* cmd, GpuFigureFlags& flags);

/// With figures given: adds the GPU to `catalog`, named `gpu` (--gpu; "Custom GPU" when empty), and
/// sets `gpu` to its id. Without: nothing. An error naming the flag when one is missing or wrong.
Result<void> apply_gpu_figure_flags(const GpuFigureFlags& flags, calc::Catalog& catalog, std::string& gpu);

}  // namespace sm::cli
