#include "site/calc_evidence.h"

#include <fmt/format.h>

#include "core/units.h"
#include "site/page_layout.h"
#include "site/ui_language.h"
#include "site/run_marks.h"
#include "site/site_json.h"

namespace sm::site {

namespace {

// The fields of one CSV line (RFC 4180 quoting; a quoted field may hold newlines, so `at` moves
// over the whole text).
std::vector<std::string> csv_record(std::string_view text, size_t& at) {
  std::vector<std::string> fields(1);
  bool quoted = false;
  for (; at < text.size(); ++at) {
    const char c = text[at];
    if (quoted) {
      if (c == '"' && at + 1 < text.size() && text[at + 1] == '"') fields.back() += '"', ++at;
      else if (c == '"') quoted = false;
      else fields.back() += c;
    } else if (c == '"') quoted = true;
    else if (c == ',') fields.emplace_back();
    else if (c == '\n') {
      ++at;
      break;
    } else if (c != '\r') fields.back() += c;
  }
  return fields;
}

// The prediction's figure at a cell: total tok/s of `concurrency` streams at `context`.
std::optional<double> predicted_total(const RunResult& prediction, std::optional<int64_t> context,
                                      std::optional<int64_t> concurrency) {
  if (!context || !concurrency) return std::nullopt;
  for (const DecodeCell& c : prediction.decode)
    if (c.context == *context && c.concurrency == *concurrency && c.status == CellStatus::Valid) return c.total_tok_s;
  return std::nullopt;
}

std::string ratio_text(std::optional<double> measured, std::optional<double> predicted) {
  if (!measured || !predicted || !(*predicted > 0)) return "—";
  return fmt::format("{:.2f}×", *measured / *predicted);
}

const CorpusSource* source_of(const std::vector<std::pair<std::string, CorpusSource>>& sources, const std::string& id) {
  for (const auto& [sid, s] : sources)
    if (sid == id) return &s;
  return nullptr;
}

std::string cell_text(std::optional<int64_t> context, std::optional<int64_t> concurrency) {
  if (!context || !concurrency) return "";
  return fmt::format("{} × {}", format_tokens(*context), *concurrency);
}

}  // namespace

std::vector<std::pair<std::string, CorpusSource>> parse_corpus_sources(std::string_view csv) {
  std::vector<std::pair<std::string, CorpusSource>> out;
  size_t at = 0;
  const auto header = csv_record(csv, at);
  auto column = [&](std::string_view name) -> std::optional<size_t> {
    for (size_t i = 0; i < header.size(); ++i)
      if (header[i] == name) return i;
    return std::nullopt;
  };
  const auto id = column("source_id"), url = column("url"), title = column("title"), date = column("date");
  if (!id || !url) return out;
  while (at < csv.size()) {
    const auto f = csv_record(csv, at);
    if (f.size() != header.size()) continue;
    out.emplace_back(f[*id], CorpusSource{f[*url], title ? f[*title] : "", date ? f[*date] : ""});
  }
  return out;
}

Result<CalcEvidence> find_evidence(store::ResultStore& store, const std::vector<calc::CorpusCase>& corpus,
                                   const calc::Catalog& catalog, const CalcInput& input) {
  CalcEvidence out;
  auto gpu = catalog.find_gpu(input.gpu);
  auto model = catalog.find_model(input.model);
  auto engine = catalog.find_engine(input.engine);
  if (!gpu || !model || !engine) return out;
  out.key = store::SetupKey{gpu->id, input.gpus, model->id, engine->id};
  auto runs = store.list_runs_for_setup(*out.key, kMaxEvidenceRuns);
  if (!runs) return std::unexpected(runs.error());
  out.runs = std::move(*runs);
  for (const calc::CorpusCase& c : corpus)
    if (c.usable && c.setup.gpu.id == gpu->id && c.setup.gpus == input.gpus && c.setup.model.id == model->id &&
        c.setup.engine.id == engine->id)
      out.corpus.push_back(&c);
  return out;
}

std::string evidence_html(const CalcEvidence& e, const RunResult& prediction,
                          const std::vector<std::pair<std::string, CorpusSource>>& sources) {
  std::string out = "<section id=\"evidence\">\n<h2>" + esc(ui_text("evidence.title")) + "</h2>\n";
  if (!e.key) return out + "<p class=\"note\">" + esc(ui_text("evidence.not_in_catalog")) + "</p>\n</section>\n";
  out += "<p class=\"lede\">" + esc(ui_count("evidence.lede", e.key->gpu_count)) + "</p>\n";
  out += "<h3>" + esc(ui_text("evidence.runs")) + "</h3>\n";
  if (e.runs.empty()) {
    out += "<div class=\"empty\" id=\"evidence-runs-none\">" + esc(ui_text("evidence.runs_none")) + "</div>\n";
  } else {
    const std::string predicted = "<th>" + esc(ui_text("evidence.predicted")) + "<span class=\"sub\">" +
                                  esc(ui_text("evidence.same_cell")) + "</span></th><th>" + esc(ui_text("evidence.ratio")) +
                                  "</th>";
    out += "<div class=\"scroll\"><table class=\"data board\" id=\"evidence-runs\"><thead><tr><th class=\"l\">" +
           esc(ui_text("evidence.run")) + "</th><th class=\"l\">" + esc(ui_text("column.quantisation")) + "</th><th>" +
           esc(ui_text("evidence.single_stream")) + "<span class=\"sub\">" + esc(ui_text("evidence.single_stream.sub")) +
           "</span></th>" + predicted + "<th>" + esc(ui_text("evidence.best_total")) + "<span class=\"sub\">" +
           esc(ui_text("evidence.best_total.sub")) + "</span></th>" + predicted + "</tr></thead><tbody>\n";
    // One style per column (NumberColumn), the measured figure and its prediction alike.
    std::vector<std::optional<double>> singles, bests;
    for (const auto& r : e.runs) {
      singles.insert(singles.end(), {r.single_stream_tok_s, predicted_total(prediction, r.single_stream_context, int64_t{1})});
      bests.insert(bests.end(), {r.best_total_tok_s, predicted_total(prediction, r.best_total_context, r.best_total_concurrency)});
    }
    const NumberColumn single_column(singles), best_column(bests);
    for (const auto& r : e.runs) {
      const auto single = predicted_total(prediction, r.single_stream_context, int64_t{1});
      const auto best = predicted_total(prediction, r.best_total_context, r.best_total_concurrency);
      out += "<tr data-run-id=\"" + esc(r.run_id) + "\"><td class=\"l\"><a href=\"" + esc(run_page_path(r.run_id)) + "\">" +
             esc(r.model) + "</a>" + run_badges(r) + "<span class=\"sub\">" + esc(r.engine + " " + r.engine_version) +
             " · " + esc(ui_datetime(r.uploaded_at)) + "</span></td>";
      out += "<td class=\"l\">" + esc(r.quantization.empty() ? "—" : r.quantization) + "</td>";
      out += "<td class=\"metric\">" + column_text(single_column, r.single_stream_tok_s) + "<span class=\"sub\">" +
             esc(cell_text(r.single_stream_context, int64_t{1})) + "</span></td>";
      out += "<td>" + column_text(single_column, single) + "</td><td>" + ratio_text(r.single_stream_tok_s, single) + "</td>";
      out += "<td class=\"metric\">" + column_text(best_column, r.best_total_tok_s) + "<span class=\"sub\">" +
             esc(cell_text(r.best_total_context, r.best_total_concurrency)) + "</span></td>";
      out += "<td>" + column_text(best_column, best) + "</td><td>" + ratio_text(r.best_total_tok_s, best) + "</td></tr>\n";
    }
    out += "</tbody></table></div>\n<p class=\"note\">" + esc(ui_text("evidence.runs_note")) + "</p>\n";
  }
  out += "<h3>" + esc(ui_text("evidence.corpus")) + "</h3>\n";
  if (e.corpus.empty()) {
    out += "<div class=\"empty\" id=\"evidence-corpus-none\">" + esc(ui_text("evidence.corpus_none")) + "</div>\n";
  } else {
    out += "<div class=\"scroll\"><table class=\"data\" id=\"evidence-corpus\"><thead><tr>";
    for (const char* key : {"evidence.row", "evidence.source", "column.quantisation", "evidence.metric"})
      out += "<th class=\"l\">" + esc(ui_text(key)) + "</th>";
    for (const char* key : {"evidence.cell", "evidence.measured", "evidence.predicted", "evidence.ratio"})
      out += "<th>" + esc(ui_text(key)) + "</th>";
    out += "</tr></thead><tbody>\n";
    for (const calc::CorpusCase* c : e.corpus) {
      const double predicted = calc::predict_corpus_value(*c, c->setup.engine);
      const CorpusSource* s = source_of(sources, c->row.source_id);
      std::string source = esc(c->row.source_id);
      if (s) source = "<a href=\"" + esc(s->url) + "\" rel=\"noopener\" title=\"" + esc(s->title) + "\">" + source + "</a>";
      // TPOT and TTFT are times: lower is faster, so the ratio is predicted / measured.
      const bool time = c->row.unit == "ms";
      out += "<tr data-corpus-id=\"" + esc(c->row.id) + "\"><td class=\"l\">" + esc(c->row.id) + "</td><td class=\"l\">" +
             source + "</td><td class=\"l\">" + esc(c->setup.quant.name) + "</td><td class=\"l\">" + esc(c->row.metric) +
             "</td>";
      out += "<td>" + esc(cell_text(c->context, c->concurrency)) + "</td>";
      out += fmt::format("<td class=\"metric\">{:.4g} {}</td><td>{:.4g} {}</td>", c->row.value, esc(c->row.unit),
                         predicted, esc(c->row.unit));
      out += "<td>" + (time ? ratio_text(predicted, c->row.value) : ratio_text(c->row.value, predicted)) + "</td></tr>\n";
    }
    out += "</tbody></table></div>\n<p class=\"note\">" + esc(ui_text("evidence.corpus_note")) + "</p>\n";
  }
  return out + "</section>\n";
}

nlohmann::json evidence_json(const CalcEvidence& e, const RunResult& prediction,
                             const std::vector<std::pair<std::string, CorpusSource>>& sources) {
  nlohmann::json runs = nlohmann::json::array();
  for (const auto& r : e.runs) {
    nlohmann::json j = summary_to_json(r);
    const auto single = predicted_total(prediction, r.single_stream_context, int64_t{1});
    const auto best = predicted_total(prediction, r.best_total_context, r.best_total_concurrency);
    j["predicted_single_stream_tok_s"] = single ? nlohmann::json(*single) : nlohmann::json(nullptr);
    j["predicted_best_total_tok_s"] = best ? nlohmann::json(*best) : nlohmann::json(nullptr);
    runs.push_back(std::move(j));
  }
  nlohmann::json corpus = nlohmann::json::array();
  for (const calc::CorpusCase* c : e.corpus) {
    const CorpusSource* s = source_of(sources, c->row.source_id);
    corpus.push_back({{"id", c->row.id},
                      {"source_id", c->row.source_id},
                      {"source_url", s ? nlohmann::json(s->url) : nlohmann::json(nullptr)},
                      {"gpu", c->row.gpu},
                      {"model", c->row.model},
                      {"quant", c->setup.quant.id},
                      {"engine", c->row.engine},
                      {"engine_version", c->row.engine_version},
                      {"metric", c->row.metric},
                      {"context", c->context},
                      {"concurrency", c->concurrency},
                      {"value", c->row.value},
                      {"unit", c->row.unit},
                      {"predicted", calc::predict_corpus_value(*c, c->setup.engine)}});
  }
  return {{"runs", runs}, {"corpus", corpus}};
}

}  // namespace sm::site
