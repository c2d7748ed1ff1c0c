#pragma once
// What the prompts are cut from and how answers end (docs/METRICS.md, "Prompt sources"):
// --prompts random|text|code, --dataset FILE, --natural-eos. A corpus is loaded (and a dataset
// read and checked) when the flags are read, before anything is contacted.
#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "bench/run_config.h"
#include "core/error.h"

namespace sm::cli {

struct PromptFlags {
  std::string prompts = "random";  ///< --prompts
  std::string dataset;             ///< --dataset FILE
  bool natural_eos = false;        ///< --natural-eos
};

void add_prompt_flags(CLI::App* cmd, PromptFlags& flags);

/// The flags into `prompts` and `target.natural_eos` (run's and sweep's); an error naming the flag.
Result<void> apply_prompt_flags(const PromptFlags& flags, PromptSource& prompts, TargetConfig& target);

/// --resume: the interrupted run's prompt source again (the built-in corpus, or the --dataset
/// given now), refused when its text differs from the one the run began with, or when the flags
/// given now ask for another source.
Result<void> resume_prompt_source(const RunSettings& stored, const PromptFlags& flags,
                                  const std::vector<std::string>& given, RunConfig& config);

}  // namespace sm::cli
