#pragma once
// The calculator's catalogs: GPUs, model shapes, quantisations and engine parameters. The
// built-in ones come from data/*.json compiled into the binary; users add or replace entries
// with their own files (--gpu-file, --model-file, ...).
//
//   auto catalog = sm::calc::Catalog::builtin();
//   if (!catalog) ...;
//   if (auto ok = catalog->add_file("my-gpus.json"); !ok) ...;
//   auto gpu = catalog->find_gpu("RTX 3090");   // ids, aliases, case and punctuation ignored
#include <string>
#include <string_view>
#include <vector>

#include "calc/engine_params.h"
#include "calc/gpu.h"
#include "calc/model_shape.h"
#include "calc/quant.h"
#include "core/error.h"

namespace sm::calc {

class Catalog {
 public:
  /// The catalogs embedded in the binary. Fails only if the embedded data is broken (a bug).
  static Result<Catalog> builtin();

  /// Adds the entries of one JSON document. It may hold any of the keys "gpus", "models",
  /// "quants", "engines" (each an array of entries), be a bare array of entries of kind
  /// `default_kind`, or one entry object of that kind. An entry whose id already exists replaces
  /// it. `origin` names the document in errors (a file path).
  /// Entries are checked: unknown keys, missing or wrong-typed fields, non-positive sizes fail.
  /// `class_from_specs`: a GPU entry without a "class" gets gpu_class_from_specs (users' entries;
  /// the built-in catalog's keep gpu_class's rule by name).
  Result<void> add_json(std::string_view text, std::string_view origin, std::string_view default_kind = "",
                        bool class_from_specs = false);
  /// Reads `path` and adds it (add_json with the path as origin; GPUs classed by their specs).
  Result<void> add_file(const std::string& path, std::string_view default_kind = "");
  /// Adds a GPU known only by its figures (calc/sim --gpu-bandwidth, --gpu-tflops, --gpu-memory,
  /// --gpu-class), named `name`, memory as sold in GB (GiB: a 24 GB card is 24), checked like a
  /// file's entry; its class is `class_name`, else from its specs. Returns its id.
  Result<std::string> add_gpu_figures(const std::string& name, double memory_gb, double bandwidth_gb_s,
                                      double tensor_16bit_tflops, const std::string& class_name);

  /// Looks an entry up by id, display name or alias, ignoring case, spaces and punctuation, and a leading
  /// "org/" of Hugging Face names. Unknown names fail with the closest known ones.
  Result<GpuSpec> find_gpu(std::string_view name) const;
  Result<ModelShape> find_model(std::string_view name) const;
  Result<QuantSpec> find_quant(std::string_view name) const;
  Result<EngineParams> find_engine(std::string_view name) const;

  const std::vector<GpuSpec>& gpus() const { return gpus_; }
  const std::vector<ModelShape>& models() const { return models_; }
  const std::vector<QuantSpec>& quants() const { return quants_; }
  const std::vector<EngineParams>& engines() const { return engines_; }

 private:
  std::vector<GpuSpec> gpus_;
  std::vector<ModelShape> models_;
  std::vector<QuantSpec> quants_;
  std::vector<EngineParams> engines_;
};

/// Lower-cases and keeps only letters, digits and dots: "RTX 3090" -> "rtx3090".
std::string normalize_name(std::string_view name);

/// Up to `limit` of `candidates` closest to `query` (edit distance on normalized names, and
/// substring matches first), best first.
std::vector<std::string> closest_names(std::string_view query, const std::vector<std::string>& candidates,
                                       size_t limit = 5);

}  // namespace sm::calc
