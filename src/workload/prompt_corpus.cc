#include "workload/prompt_corpus.h"

#include <cctype>

#include "core/sha256.h"
#include "workload/embedded_corpus.h"

namespace sm {

namespace {

bool is_space(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }

}  // namespace

void index_corpus(PromptCorpus& corpus) {
  corpus.piece_ends.clear();
  const std::string& t = corpus.text;
  size_t i = 0;
  while (i < t.size()) {
    while (i < t.size() && is_space(t[i])) ++i;
    if (i == t.size()) break;  // trailing whitespace belongs to no piece
    while (i < t.size() && !is_space(t[i])) ++i;
    corpus.piece_ends.push_back(static_cast<uint32_t>(i));
  }
  corpus.sha256 = sha256_hex(corpus.text);
}

void record_prompt_source(const PromptSource& source, bool natural_eos, RunSettings& settings) {
  settings.prompts = source.name;
  settings.prompt_corpus.reset();
  if (const PromptCorpus* c = source.corpus.get())
    settings.prompt_corpus =
        PromptCorpusInfo{c->name, c->origin, c->licence, c->texts, static_cast<int64_t>(c->text.size()), c->sha256};
  settings.natural_eos = natural_eos;
}

bool is_builtin_prompt_source(std::string_view name) { return name == "random" || name == "text" || name == "code"; }

Result<std::shared_ptr<const PromptCorpus>> builtin_corpus(std::string_view name) {
  auto corpus = std::make_shared<PromptCorpus>();
  corpus->source = std::string(name);
  if (name == "text") {
    corpus->name = "News from Nowhere (William Morris, 1890)";
    corpus->origin = "Project Gutenberg eBook #3261, the 1908 Longmans, Green and Co. edition; front matter, "
                     "footnotes and the Gutenberg header and licence removed, paragraphs joined to one line each";
    corpus->licence = "public domain";
    corpus->text = std::string(embedded_natural_text());
  } else if (name == "code") {
    corpus->name = "speedmatrix's own C++ sources";
    corpus->origin = "this build's src/ tree, files in path order up to 600 KB, each headed by its path";
    corpus->licence = "speedmatrix's own code, under the project's terms";
    corpus->text = std::string(embedded_source_code());
  } else {
    return fail(ErrorCode::InvalidArgument,
                "--prompts " + std::string(name) + ": not a built-in prompt source (random, text or code; a file of "
                                                   "your own goes to --dataset FILE)");
  }
  index_corpus(*corpus);
  return std::shared_ptr<const PromptCorpus>(std::move(corpus));
}

}  // namespace sm
