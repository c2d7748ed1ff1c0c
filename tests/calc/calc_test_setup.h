#pragma once
// Setups the calculator tests share, built from the built-in catalogs.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "calc/catalog.h"
#include "calc/fit.h"
#include "calc/setup.h"

namespace sm::calc::test {

/// GPU × model × quantisation × engine from the built-in catalogs; fails the test when a name is unknown.
inline Setup make_setup(const std::string& gpu, const std::string& model, const std::string& quant,
                        const std::string& engine) {
  Setup s;
  auto c = Catalog::builtin();
  EXPECT_TRUE(c) << (c ? "" : c.error().message);
  if (!c) return s;
  auto g = c->find_gpu(gpu);
  auto m = c->find_model(model);
  auto q = c->find_quant(quant);
  auto e = c->find_engine(engine);
  EXPECT_TRUE(g && m && q && e) << gpu << " " << model << " " << quant << " " << engine;
  if (!(g && m && q && e)) return s;
  s.gpu = *g;
  s.model = *m;
  s.quant = *q;
  s.engine = *e;
  return s;
}

/// The seed page's setup: RTX 3090, Qwen3.5-4B AWQ 4-bit, vLLM, 0.94 memory utilisation, 128 sequences.
inline Setup seed_setup() {
  Setup s = make_setup("rtx3090", "qwen3.5-4b", "awq-4bit", "vllm");
  s.gpu_mem_util = 0.94;
  s.max_num_seqs = 128;
  return s;
}

/// The engines of data/measurements/cv-start-engines.json: those whose shipped values were fitted to
/// the corpus, which cross-validation refits per left-out source (as `calc fit --cross-validate`).
inline std::set<std::string> cv_start_engine_ids() {
  auto ids = engine_ids_in_file(std::string(SPEEDMATRIX_SOURCE_DIR) + "/data/measurements/cv-start-engines.json");
  EXPECT_TRUE(ids) << (ids ? "" : ids.error().message);
  return ids ? *ids : std::set<std::string>{};
}

}  // namespace sm::calc::test
