#pragma once
// The built-in prompt corpora, compiled into the binary by cmake/embed_corpus.cmake (definitions
// generated at build time): data/corpus/natural-text.txt, and the project's own C++ sources.
#include <string_view>

namespace sm {

std::string_view embedded_natural_text();
std::string_view embedded_source_code();

}  // namespace sm
