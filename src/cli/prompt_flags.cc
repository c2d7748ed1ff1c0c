#include "cli/prompt_flags.h"

#include <algorithm>
#include <fmt/format.h>

#include "workload/dataset.h"

namespace sm::cli {

void add_prompt_flags(CLI::App* cmd, PromptFlags& flags) {
  cmd->add_option("--prompts", flags.prompts,
                  "What prompts are cut from, to each context's exact token count: random (seeded common words, "
                  "the default and the profiles'), text (a built-in public-domain novel, News from Nowhere) or "
                  "code (the built-in source code: speedmatrix's own C++). Speculative decoding accepts drafts on "
                  "real text and hardly on random words (docs/METRICS.md, \"Prompt sources\")")
      ->capture_default_str();
  cmd->add_option("--dataset", flags.dataset,
                  "Cut the prompts from your own prompts instead: a ShareGPT-style JSON file, a JSON array of "
                  "prompts, or JSON Lines of prompts ({\"prompt\": ...}, {\"text\": ...}) or of conversations "
                  "({\"messages\": [...]}); the user turns are joined and cut to each context's exact length");
  cmd->add_flag("--natural-eos", flags.natural_eos,
                "Let answers end where the model ends them (no ignore_eos or min_tokens): cells then mix new "
                "requests' prefills into decode, and each reports its answers' lengths (p50/p90/p99)");
}

Result<void> apply_prompt_flags(const PromptFlags& flags, PromptSource& prompts, TargetConfig& target) {
  target.natural_eos = flags.natural_eos;
  if (!flags.dataset.empty()) {
    if (flags.prompts != "random")
      return fail(ErrorCode::InvalidArgument,
                  "--dataset gives the prompts; it cannot go with --prompts " + flags.prompts);
    auto corpus = load_dataset(flags.dataset);
    if (!corpus) return std::unexpected(corpus.error());
    prompts = {"dataset", *corpus};
    return {};
  }
  if (!is_builtin_prompt_source(flags.prompts))
    return fail(ErrorCode::InvalidArgument,
                fmt::format("--prompts {}: expected random, text or code (a file of your own: --dataset FILE)",
                            flags.prompts));
  prompts = {flags.prompts, nullptr};
  if (flags.prompts == "random") return {};
  auto corpus = builtin_corpus(flags.prompts);
  if (!corpus) return std::unexpected(corpus.error());
  prompts.corpus = *corpus;
  return {};
}

Result<void> resume_prompt_source(const RunSettings& stored, const PromptFlags& flags,
                                  const std::vector<std::string>& given, RunConfig& config) {
  auto is_given = [&](std::string_view flag) { return std::find(given.begin(), given.end(), flag) != given.end(); };
  const std::string now = !flags.dataset.empty() ? "dataset" : flags.prompts;
  if ((is_given("--prompts") || is_given("--dataset")) && now != stored.prompts)
    return fail(ErrorCode::InvalidArgument,
                fmt::format("--resume: the interrupted run cut its prompts from '{}', not '{}'; a resumed run must "
                            "measure the same prompts: drop the flag, or start a new run",
                            stored.prompts, now));
  if (is_given("--natural-eos") && !stored.natural_eos)
    return fail(ErrorCode::InvalidArgument,
                "--resume: --natural-eos differs from the interrupted run, whose answers were forced to max output");
  config.target.natural_eos = stored.natural_eos;
  config.prompts = {stored.prompts.empty() ? "random" : stored.prompts, nullptr};
  if (config.prompts.name == "random") return {};
  if (stored.prompts == "dataset" && flags.dataset.empty())
    return fail(ErrorCode::InvalidArgument,
                fmt::format("--resume: the interrupted run cut its prompts from the dataset {}; give it again with "
                            "--dataset FILE",
                            stored.prompt_corpus ? stored.prompt_corpus->name : std::string("it was given")));
  PromptFlags again = flags;
  again.prompts = stored.prompts == "dataset" ? "random" : stored.prompts;
  if (stored.prompts != "dataset") again.dataset.clear();
  if (auto ok = apply_prompt_flags(again, config.prompts, config.target); !ok) return std::unexpected(ok.error());
  config.target.natural_eos = stored.natural_eos;
  const PromptCorpus* now_corpus = config.prompts.corpus.get();
  if (stored.prompt_corpus && now_corpus && stored.prompt_corpus->sha256 != now_corpus->sha256)
    return fail(ErrorCode::InvalidArgument,
                fmt::format("--resume: the prompt corpus ({}) is not the text the interrupted run cut its prompts "
                            "from (sha256 {} then, {} now); resume with the same {}, or start a new run",
                            now_corpus->name, stored.prompt_corpus->sha256.substr(0, 12), now_corpus->sha256.substr(0, 12),
                            stored.prompts == "dataset" ? "file" : "speedmatrix build"));
  return {};
}

}  // namespace sm::cli
