#include "calc/corpus.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

#include <fmt/format.h>

#include "calc/compat.h"
#include "calc/perf_model.h"

namespace sm::calc {

namespace {

// Splits CSV text into records of fields (RFC 4180: quoted fields, "" inside quotes).
std::vector<std::vector<std::string>> split_csv(std::string_view text) {
  std::vector<std::vector<std::string>> records;
  std::vector<std::string> fields;
  std::string field;
  bool quoted = false;
  bool any = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char ch = text[i];
    if (quoted) {
      if (ch == '"') {
        if (i + 1 < text.size() && text[i + 1] == '"') {
          field += '"';
          ++i;
        } else {
          quoted = false;
        }
      } else {
        field += ch;
      }
      continue;
    }
    if (ch == '"') {
      quoted = true;
      any = true;
    } else if (ch == ',') {
      fields.push_back(std::move(field));
      field.clear();
      any = true;
    } else if (ch == '\n' || ch == '\r') {
      if (ch == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
      if (any || !field.empty()) {
        fields.push_back(std::move(field));
        records.push_back(std::move(fields));
      }
      fields.clear();
      field.clear();
      any = false;
    } else {
      field += ch;
      any = true;
    }
  }
  if (any || !field.empty()) {
    fields.push_back(std::move(field));
    records.push_back(std::move(fields));
  }
  return records;
}

bool contains(std::string_view haystack, std::string_view needle) {
  return haystack.find(needle) != std::string_view::npos;
}

// Models the corpus names by the source's name whose notes say they have the shape of a catalog
// entry (Llama 3 and 3.1 share every dimension; 3.1 only extends the position range; Qwen2.5-Coder
// 7B is Qwen2.5 7B's network trained on code).
const std::map<std::string, std::string>& same_shape_models() {
  static const std::map<std::string, std::string> m = {{"Llama-3-8B", "llama-3.1-8b"},
                                                       {"Llama-3-70B", "llama-3.1-70b"},
                                                       {"Qwen2.5-Coder-7B", "qwen2.5-7b"}};
  return m;
}

}  // namespace

std::string_view metric_family(CorpusMetric m) {
  return (m == CorpusMetric::Prefill || m == CorpusMetric::Ttft) ? "prefill" : "decode";
}

Result<std::vector<CorpusRow>> parse_corpus_csv(std::string_view text) {
  auto records = split_csv(text);
  if (records.empty()) return fail(ErrorCode::InvalidArgument, "corpus: empty file");
  const auto& header = records.front();
  std::map<std::string, size_t> col;
  for (size_t i = 0; i < header.size(); ++i) col[header[i]] = i;
  static constexpr const char* kColumns[] = {
      "id",     "source_id",     "gpu",         "gpu_class",  "gpu_count", "interconnect",  "model",         "quant",
      "engine", "engine_version", "metric",     "context_tokens", "concurrency", "prompt_tokens", "output_tokens",
      "batch",  "ubatch",        "tp",          "value",      "unit",      "notes"};
  for (const char* c : kColumns)
    if (!col.count(c)) return fail(ErrorCode::InvalidArgument, fmt::format("corpus: missing column \"{}\"", c));

  std::vector<CorpusRow> rows;
  for (size_t r = 1; r < records.size(); ++r) {
    const auto& f = records[r];
    if (f.size() != header.size())
      return fail(ErrorCode::InvalidArgument,
                  fmt::format("corpus: line {}: {} fields, header has {}", r + 1, f.size(), header.size()));
    auto get = [&](const char* name) -> const std::string& { return f[col.at(name)]; };
    std::string error;
    auto integer = [&](const char* name) -> std::optional<int64_t> {
      const std::string& s = get(name);
      if (s.empty()) return std::nullopt;
      int64_t v = 0;
      auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
      if (ec != std::errc() || p != s.data() + s.size()) {
        error = fmt::format("corpus: line {}: {} \"{}\" is not an integer", r + 1, name, s);
        return std::nullopt;
      }
      return v;
    };
    CorpusRow row;
    row.id = get("id");
    row.source_id = get("source_id");
    row.gpu = get("gpu");
    row.gpu_class = get("gpu_class");
    row.interconnect = get("interconnect");
    row.model = get("model");
    row.quant = get("quant");
    row.engine = get("engine");
    row.engine_version = get("engine_version");
    row.metric = get("metric");
    row.unit = get("unit");
    row.notes = get("notes");
    row.gpu_count = integer("gpu_count");
    row.context_tokens = integer("context_tokens");
    row.concurrency = integer("concurrency");
    row.prompt_tokens = integer("prompt_tokens");
    row.output_tokens = integer("output_tokens");
    row.batch = integer("batch");
    row.ubatch = integer("ubatch");
    row.tp = integer("tp");
    if (col.count("flash_attention")) {  // optional column: older corpora lack it
      const std::string& fa = get("flash_attention");
      if (fa == "on") row.flash_attention = true;
      else if (fa == "off") row.flash_attention = false;
      else if (!fa.empty())
        error = fmt::format("corpus: line {}: flash_attention \"{}\" is not on, off or empty", r + 1, fa);
    }
    if (!error.empty()) return fail(ErrorCode::InvalidArgument, error);
    const std::string& v = get("value");
    char* end = nullptr;
    row.value = std::strtod(v.c_str(), &end);
    if (v.empty() || end != v.c_str() + v.size() || !(row.value > 0))
      return fail(ErrorCode::InvalidArgument, fmt::format("corpus: line {}: value \"{}\" is not a positive number", r + 1, v));
    rows.push_back(std::move(row));
  }
  return rows;
}

Result<std::vector<CorpusRow>> load_corpus_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return fail(ErrorCode::Io, "cannot open corpus " + path);
  std::stringstream ss;
  ss << in.rdbuf();
  auto rows = parse_corpus_csv(ss.str());
  if (!rows) return fail(rows.error().code, path + ": " + rows.error().message);
  return rows;
}

std::vector<CorpusCase> map_corpus(const std::vector<CorpusRow>& rows, const Catalog& catalog) {
  std::vector<CorpusCase> out;
  out.reserve(rows.size());
  for (const CorpusRow& row : rows) {
    CorpusCase c;
    c.row = row;
    auto reject = [&](std::string why) {
      c.usable = false;
      c.why_not = std::move(why);
      out.push_back(c);
    };
    if (row.metric == "decode_tok_s_per_stream") c.metric = CorpusMetric::DecodePerStream;
    else if (row.metric == "decode_tok_s_total") c.metric = CorpusMetric::DecodeTotal;
    else if (row.metric == "tpot_ms") c.metric = CorpusMetric::Tpot;
    else if (row.metric == "prefill_tok_s") c.metric = CorpusMetric::Prefill;
    else if (row.metric == "ttft_ms") c.metric = CorpusMetric::Ttft;
    else { reject("metric not modelled: " + row.metric); continue; }

    auto engine = catalog.find_engine(row.engine);
    if (!engine) { reject("engine not in catalog: " + row.engine); continue; }
    // llama.cpp's parameters describe builds since flash attention (PR 5021, 2024-04-30) and CUDA
    // graphs (PR 6766, 2024-05-08); a 2023 build reached half the bandwidth on A100/H100 and
    // prefilled a third as fast (S01's LLaMA 2 table), an engine the calculator does not predict.
    if (engine->id == "llamacpp" && contains(row.engine_version, "2023")) {
      reject("llama.cpp build from 2023 (before flash attention and CUDA graphs)");
      continue;
    }
    auto gpu = catalog.find_gpu(row.gpu);
    if (!gpu) { reject("gpu not in catalog: " + row.gpu); continue; }
    auto model = catalog.find_model(row.model);
    if (!model) {
      auto same = same_shape_models().find(row.model);
      if (same != same_shape_models().end() && contains(row.notes, "same shape")) model = catalog.find_model(same->second);
    }
    if (!model) { reject("model not in catalog: " + row.model); continue; }
    auto quant = catalog.find_quant(row.quant);
    if (!quant) { reject("quant not in catalog: " + row.quant); continue; }
    if (contains(row.notes, "speculative") || contains(row.notes, "MTP")) { reject("speculative decoding"); continue; }
    if (!row.concurrency) { reject("concurrency not fixed (request rate or offline)"); continue; }
    if (!row.gpu_count) { reject("gpu count not stated"); continue; }

    c.setup.gpu = *gpu;
    c.setup.model = *model;
    c.setup.quant = *quant;
    c.setup.engine = *engine;
    c.setup.flash_attention = row.flash_attention.value_or(true);
    // A run without CUDA graphs says so in its command line.
    c.setup.cuda_graphs = !contains(row.notes, "--enforce-eager") && !contains(row.notes, "--disable-cuda-graph");
    c.concurrency = *row.concurrency;
    c.context = row.context_tokens.value_or(0);
    c.output = row.output_tokens.value_or(0);
    c.prompt = row.prompt_tokens.value_or(0);
    const int64_t count = std::max<int64_t>(1, *row.gpu_count);
    if (engine->id == "llamacpp" && count > 1) {
      c.layer_split = true;  // llama.cpp's default: layers split over the GPUs, run in turn
      c.setup.gpus = 1;
    } else {
      c.setup.gpus = static_cast<int>(row.tp.value_or(count));
    }
    // The engine's own batch settings when the row states them: llama.cpp computes a prompt in
    // micro-batches of -ub tokens (its default is the engine's step), at most -b.
    if (engine->id == "llamacpp" && (row.batch || row.ubatch)) {
      const int64_t ubatch = row.ubatch.value_or(engine->max_batched_tokens);
      c.setup.max_batched_tokens = row.batch ? std::min(*row.batch, ubatch) : ubatch;
    }

    if (c.metric == CorpusMetric::Prefill) {
      if (c.prompt <= 0) { reject("prefill row without a prompt length"); continue; }
      // llama-bench sweeps of -ub below its default (the engine's step, 512) time kernels at
      // micro-batches no server prefills with: each step's launch and per-expert costs dominate,
      // not modelled.
      if (engine->id == "llamacpp" && row.ubatch && *row.ubatch < engine->max_batched_tokens) {
        reject(fmt::format("llama.cpp micro-batch below its default {} (a kernel sweep)", engine->max_batched_tokens));
        continue;
      }
      if (c.concurrency != 1) { reject("prefill under concurrent load not modelled"); continue; }
    }
    if (c.metric == CorpusMetric::Ttft) {
      if (c.concurrency != 1) { reject("TTFT under concurrent load not modelled"); continue; }
      if (c.prompt <= 0) { reject("TTFT row without a prompt length"); continue; }
    }
    // Under load, the prompt and output lengths set how often prefills interrupt decoding: a
    // row without them cannot be predicted (S06's chatbot workload at 64 streams: TPOT 47 ms).
    if (c.metric != CorpusMetric::Prefill && c.metric != CorpusMetric::Ttft && c.concurrency > 1 && c.output <= 0) {
      reject("decode under load without an output length");
      continue;
    }
    // A measured row the combination rules refuse would contradict them: count it, never fit it.
    if (check_compatibility(c.setup, catalog.engines(), catalog.quants()).refused()) {
      reject("combination refused by the catalog rules (engines.json backends / quant_formats)");
      continue;
    }
    // The weights must fit in the GPUs the row used.
    {
      PerfModel pm(c.setup);
      const double cap = static_cast<double>(gpu->usable_memory_bytes) * static_cast<double>(count);
      if (pm.memory().weight_bytes > cap) { reject("weights do not fit the stated GPUs"); continue; }
    }
    c.usable = true;
    out.push_back(std::move(c));
  }
  return out;
}

std::vector<CorpusCase> cases_from_run(const RunResult& run, const Setup& setup) {
  std::vector<CorpusCase> out;
  auto base = [&](const std::string& id) {
    CorpusCase c;
    c.usable = true;
    c.setup = setup;
    c.row.id = id;
    c.row.source_id = run.run_id;
    c.row.gpu = setup.gpu.id;
    c.row.gpu_class = gpu_class(setup.gpu);
    c.row.model = setup.model.id;
    c.row.quant = setup.quant.id;
    c.row.engine = setup.engine.id;
    return c;
  };
  for (const auto& cell : run.decode) {
    if (cell.status != CellStatus::Valid || !cell.total_tok_s || !(*cell.total_tok_s > 0)) continue;
    CorpusCase c = base(fmt::format("C{}xN{}", cell.context, cell.concurrency));
    c.metric = CorpusMetric::DecodeTotal;
    c.row.metric = "decode_tok_s_total";
    c.row.unit = "tok/s";
    c.row.value = *cell.total_tok_s;
    c.concurrency = cell.concurrency;
    c.context = cell.context;
    c.output = run.settings.max_output_tokens;
    c.shared_prefix = true;
    out.push_back(std::move(c));
  }
  for (const auto& row : run.prefill) {
    if (row.status != CellStatus::Valid || !row.ttft_ms || !(*row.ttft_ms > 0) || row.context <= 0) continue;
    CorpusCase c = base(fmt::format("P{}", row.context));
    c.metric = CorpusMetric::Ttft;
    c.row.metric = "ttft_ms";
    c.row.unit = "ms";
    c.row.value = *row.ttft_ms;
    c.prompt = row.context;
    out.push_back(std::move(c));
  }
  return out;
}

double predict_corpus_value(const CorpusCase& c, const EngineParams& engine) {
  Setup s = c.setup;
  s.engine = engine;
  PerfModel pm(s);
  const int64_t n = std::max<int64_t>(1, c.concurrency);
  switch (c.metric) {
    case CorpusMetric::Prefill: {
      const double t = pm.prefill_compute_time_s(c.prompt);
      return static_cast<double>(c.prompt) / t;
    }
    case CorpusMetric::Ttft:
      return 1000.0 * pm.prefill_time_s(c.prompt);
    case CorpusMetric::DecodePerStream:
    case CorpusMetric::DecodeTotal:
    case CorpusMetric::Tpot: {
      const int64_t mid = c.context + c.output / 2;
      std::vector<int64_t> contexts(static_cast<size_t>(n), mid);
      // Serving benchmarks send different prompts; a speedmatrix cell shares one cached prompt.
      const double step = pm.decode_step_time_s(contexts, c.shared_prefix ? c.context : 0);
      double per_token = step;  // seconds per output token of one stream
      // Under load every request also has its prompt prefilled once per cycle of O tokens.
      if (n > 1 && c.output > 0 && c.prompt > 0)
        per_token += static_cast<double>(n) * pm.prefill_compute_time_s(c.prompt) / static_cast<double>(c.output);
      if (c.metric == CorpusMetric::Tpot) return 1000.0 * per_token;
      if (c.metric == CorpusMetric::DecodePerStream) return 1.0 / per_token;
      return static_cast<double>(n) / per_token;
    }
  }
  return 0;
}

}  // namespace sm::calc
