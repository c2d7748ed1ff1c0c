#include "bench/runner.h"

#include <cstdio>

namespace sm {

int run_matrix(const RunConfig& config) {
  std::fprintf(stderr, "speedmatrix run: measuring %s is not implemented yet\n", config.target.base_url.c_str());
  return 1;
}

}  // namespace sm
