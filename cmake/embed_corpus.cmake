# Embeds the built-in prompt corpora (docs/METRICS.md, "Prompt sources") into speedmatrix_lib:
# the natural text data/corpus/natural-text.txt, and a source-code corpus made of the project's
# own C++ sources (src/, sorted by path, whole files up to 600 KB, each headed by its path). The
# source is generated at build time by cmake/write_corpus.cmake, so editing a source file only
# regenerates this one file. Include it after add_library(speedmatrix_lib ...).
set(_sm_corpus_out ${CMAKE_BINARY_DIR}/generated/workload/embedded_corpus.cc)
file(GLOB_RECURSE _sm_corpus_code CONFIGURE_DEPENDS RELATIVE ${CMAKE_SOURCE_DIR}
     ${CMAKE_SOURCE_DIR}/src/*.h ${CMAKE_SOURCE_DIR}/src/*.cc)
list(SORT _sm_corpus_code)
set(_sm_corpus_code_paths "")
foreach(_sm_f IN LISTS _sm_corpus_code)
  list(APPEND _sm_corpus_code_paths ${CMAKE_SOURCE_DIR}/${_sm_f})
endforeach()
string(REPLACE ";" "|" _sm_corpus_code_arg "${_sm_corpus_code}")
add_custom_command(
  OUTPUT ${_sm_corpus_out}
  COMMAND ${CMAKE_COMMAND} -DSOURCE_DIR=${CMAKE_SOURCE_DIR} -DOUT=${_sm_corpus_out}
          "-DCODE_FILES=${_sm_corpus_code_arg}" -P ${CMAKE_SOURCE_DIR}/cmake/write_corpus.cmake
  DEPENDS ${CMAKE_SOURCE_DIR}/cmake/write_corpus.cmake ${CMAKE_SOURCE_DIR}/data/corpus/natural-text.txt
          ${_sm_corpus_code_paths}
  COMMENT "Embedding the prompt corpora"
  VERBATIM)
target_sources(speedmatrix_lib PRIVATE ${_sm_corpus_out})
set_source_files_properties(${_sm_corpus_out} PROPERTIES SKIP_UNITY_BUILD_INCLUSION ON)
