// The report's telemetry content: the tokens-per-joule matrix, the All-measurements columns, the
// findings' wording, the machine facts, the CSV columns; and that a run without telemetry reads
// as before.
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

#include "report/golden.h"
#include "report/report.h"
#include "report/report_model.h"

namespace sm {
namespace {

using report::Finding;
using report::ReportModel;
using report::Severity;

std::vector<std::string> texts(const std::vector<Finding>& findings, Severity severity) {
  std::vector<std::string> out;
  for (const auto& f : findings)
    if (f.severity == severity) out.push_back(f.text);
  return out;
}

bool has(const std::vector<std::string>& v, const std::string& s) { return std::find(v.begin(), v.end(), s) != v.end(); }

const report::FactGroup* group(const ReportModel& m, const std::string& id) {
  for (const auto& g : m.facts)
    if (g.id == id) return &g;
  return nullptr;
}

std::string fact(const ReportModel& m, const std::string& id, const std::string& label) {
  if (const auto* g = group(m, id))
    for (const auto& f : g->facts)
      if (f.label == label) return f.value;
  return "";
}

DecodeCell& cell(RunResult& r, int64_t context, int64_t concurrency) {
  for (auto& c : r.decode)
    if (c.context == context && c.concurrency == concurrency) return c;
  ADD_FAILURE() << "no cell " << context << " × " << concurrency;
  return r.decode.front();
}

// Every cell and row of `r` without telemetry figures (the telemetry info stays).
void strip_cell_telemetry(RunResult& r) {
  for (auto& p : r.prefill) p.telemetry = {};
  for (auto& c : r.decode) {
    c.telemetry = {};
    c.server_running_mean.reset();
    c.server_waiting_mean.reset();
  }
}

TEST(ReportTelemetry, TokensPerJouleMatrixHasValidCellsWithPowerUnder) {
  ReportModel m = report::build_report_model(test::telemetry_fixture());
  const report::Matrix& e = m.decode_efficiency;
  ASSERT_EQ(e.contexts, (std::vector<int64_t>{0, 16384}));
  ASSERT_EQ(e.concurrency, (std::vector<int64_t>{1, 8, 64}));
  EXPECT_EQ(e.title, "Tokens per joule");
  EXPECT_EQ(e.cells[0][0].value, "0.79");
  EXPECT_EQ(e.cells[0][0].detail, "231 W");
  EXPECT_EQ(report::detail_text(e, e.cells[0][0]), "231 W");
  EXPECT_EQ(e.cells[0][2].value, "9.38");
  EXPECT_NE(e.cells[0][2].note.find("GPU throttled: Power capped"), std::string::npos);
  EXPECT_EQ(e.cells[1][2].value, "Over capacity");
  EXPECT_FALSE(e.cells[1][2].value_num);
  // Heat: the most efficient cell is the hottest.
  EXPECT_DOUBLE_EQ(*e.cells[0][2].heat, 1.0);
}

TEST(ReportTelemetry, TokensPerJouleMatrixOnlyValidCellsAndOnlyWhenAnyHasTheFigure) {
  RunResult r = test::telemetry_fixture();
  cell(r, 0, 8).status = CellStatus::Interrupted;  // keeps its figures, but is not valid
  ReportModel m = report::build_report_model(r);
  EXPECT_EQ(m.decode_efficiency.cells[0][1].value, "Interrupted");
  EXPECT_FALSE(m.decode_efficiency.cells[0][1].value_num);
  cell(r, 0, 1).telemetry.tokens_per_joule.reset();
  m = report::build_report_model(r);
  EXPECT_EQ(m.decode_efficiency.cells[0][0].value, "—");

  for (auto& c : r.decode) c.telemetry.tokens_per_joule.reset();
  EXPECT_TRUE(report::build_report_model(r).decode_efficiency.cells.empty());
  EXPECT_TRUE(report::build_report_model(test::seed_fixture()).decode_efficiency.cells.empty());
}

TEST(ReportTelemetry, MeasurementsTableGetsTheColumnsSomeRowHas) {
  ReportModel m = report::build_report_model(test::telemetry_fixture());
  const std::vector<std::string> added(m.measurements.header.begin() + 12, m.measurements.header.end());
  EXPECT_EQ(added, (std::vector<std::string>{"GPU power", "SM clock", "GPU temperature", "Throttle", "Tokens per joule",
                                             "Host CPU", "Server running", "Server waiting (max)", "KV cache (max)",
                                             "Preemptions"}));
  ASSERT_EQ(m.measurements.align.size(), m.measurements.header.size());
  for (const auto& row : m.measurements.rows) EXPECT_EQ(row.cells.size(), m.measurements.header.size());
  // Prefill 16K: its own figures; the server's running count is a decode figure.
  const auto& prefill = m.measurements.rows[1].cells;
  EXPECT_EQ(std::vector<std::string>(prefill.begin() + 12, prefill.end()),
            (std::vector<std::string>{"341 W", "1,410 MHz", "59 °C", "Clocks below max", "29.4", "6%", "—", "0", "3%",
                                      "0"}));
  const auto& thermal = m.measurements.rows[6].cells;  // 16K × 8
  EXPECT_EQ(std::vector<std::string>(thermal.begin() + 12, thermal.end()),
            (std::vector<std::string>{"333 W", "1,755 MHz", "84 °C", "Thermal", "2.44", "13%", "7.9", "1", "29%", "2"}));
  const auto& over = m.measurements.rows[7].cells;  // over capacity: dashes
  EXPECT_TRUE(std::all_of(over.begin() + 12, over.end(), [](const std::string& c) { return c == "—"; }));

  // Only power was sampled: only its column.
  RunResult r = test::telemetry_fixture();
  strip_cell_telemetry(r);
  cell(r, 0, 1).telemetry.gpu_power_w = 250.0;
  m = report::build_report_model(r);
  ASSERT_EQ(m.measurements.header.size(), 13u);
  EXPECT_EQ(m.measurements.header.back(), "GPU power");

  // Without telemetry the seed's twelve columns, unchanged.
  m = report::build_report_model(test::seed_fixture());
  EXPECT_EQ(m.measurements.header.size(), 12u);
  EXPECT_EQ(m.measurements.header.back(), "Measured for");
}

TEST(ReportTelemetry, ThrottledCellsAreNamedInOneWarningGroupedByVerdict) {
  ReportModel m = report::build_report_model(test::telemetry_fixture());
  auto warnings = texts(m.findings, Severity::Warning);
  EXPECT_TRUE(has(warnings, "GPU throttled in 3 measurements, which ran below the GPU's full speed: thermal (Decode "
                            "16K × 8); power capped (Decode 0 × 64); clocks below max (Prefill 16K)."))
      << ::testing::PrintToString(warnings);
  EXPECT_TRUE(m.checks_passed.empty());

  RunResult r = test::telemetry_fixture();
  cell(r, 0, 8).telemetry.throttle = "power_capped";
  cell(r, 16384, 1).telemetry.throttle = "hw_slowdown";
  r.prefill[0].telemetry.throttle = "some_new_reason";
  warnings = texts(report::build_report_model(r).findings, Severity::Warning);
  EXPECT_TRUE(has(warnings, "GPU throttled in 6 measurements, which ran below the GPU's full speed: thermal (Decode "
                            "16K × 8); hardware slowdown (Decode 16K × 1); power capped (Decode 0 × 8, Decode 0 × 64); "
                            "clocks below max (Prefill 16K); some new reason (Prefill 8K)."))
      << ::testing::PrintToString(warnings);

  cell(r, 0, 8).telemetry.throttle = "ok";
  cell(r, 16384, 1).telemetry.throttle = "ok";
  r.prefill[0].telemetry.throttle = "ok";
  r.prefill[1].telemetry.throttle = "ok";
  cell(r, 16384, 8).telemetry.throttle = "ok";
  cell(r, 0, 64).telemetry.throttle = "thermal";
  warnings = texts(report::build_report_model(r).findings, Severity::Warning);
  EXPECT_TRUE(has(warnings, "GPU throttled in 1 measurement, which ran below the GPU's full speed: thermal (Decode "
                            "0 × 64)."))
      << ::testing::PrintToString(warnings);
}

TEST(ReportTelemetry, NoThrottleIsACheckThatPassed) {
  RunResult r = test::telemetry_fixture();
  for (auto& p : r.prefill) p.telemetry.throttle = "ok";
  for (auto& c : r.decode)
    if (!c.telemetry.throttle.empty()) c.telemetry.throttle = "ok";
  ReportModel m = report::build_report_model(r);
  EXPECT_TRUE(texts(m.findings, Severity::Warning).empty());
  EXPECT_TRUE(has(m.checks_passed, "The GPU was not throttled in any measurement (power cap, temperature, hardware "
                                   "slowdown or clocks below their maximum)."));
  // No verdicts at all (no GPU telemetry): nothing claimed.
  for (const auto& c : report::build_report_model(test::seed_fixture()).checks_passed)
    EXPECT_EQ(c.find("throttled"), std::string::npos) << c;
}

TEST(ReportTelemetry, NoGpuTelemetryIsANoteThatSaysWhy) {
  RunResult r = test::telemetry_fixture();
  r.telemetry->gpu_source.clear();
  r.telemetry->gpus.clear();
  r.telemetry->gpu_unavailable = "libnvidia-ml.so.1 not found (install the NVIDIA driver or pass --nvml-lib)";
  auto notes = texts(report::build_report_model(r).findings, Severity::Info);
  EXPECT_TRUE(has(notes, "No GPU telemetry (power, clocks, tokens per joule): libnvidia-ml.so.1 not found (install "
                         "the NVIDIA driver or pass --nvml-lib)."))
      << ::testing::PrintToString(notes);
  r.telemetry->gpu_unavailable = "no NVIDIA GPU.";
  EXPECT_TRUE(has(texts(report::build_report_model(r).findings, Severity::Info),
                  "No GPU telemetry (power, clocks, tokens per joule): no NVIDIA GPU."));
  r.telemetry->gpu_unavailable.clear();
  EXPECT_TRUE(has(texts(report::build_report_model(r).findings, Severity::Info),
                  "No GPU telemetry (power, clocks, tokens per joule): no reason was recorded."));

  // GPU telemetry there, or no telemetry at all (--no-telemetry, older files): no such note.
  for (const RunResult& quiet : {test::telemetry_fixture(), test::seed_fixture()})
    for (const auto& f : report::build_report_model(quiet).findings)
      EXPECT_EQ(f.text.find("No GPU telemetry"), std::string::npos) << f.text;
}

TEST(ReportTelemetry, ClientSideReadingsAreSaidAndFiledUnderTheClient) {
  RunResult r = test::telemetry_fixture();
  r.telemetry->client_side_only = true;
  ReportModel m = report::build_report_model(r);
  EXPECT_TRUE(has(texts(m.findings, Severity::Info),
                  "GPU and host telemetry is of the client's machine; the server ran elsewhere."));
  // The GPUs' facts are the client's: not under the server's Hardware.
  EXPECT_EQ(fact(m, "hardware", "Max SM clock"), "");
  EXPECT_EQ(fact(m, "hardware", "PCIe"), "Gen4 x16");  // nvidia-smi's, as recorded
  EXPECT_EQ(fact(m, "client", "Max SM clock"), "2,100 MHz");

  r.client_hardware = r.hardware;
  r.client_hardware->gpus.clear();
  m = report::build_report_model(r);
  ASSERT_NE(group(m, "client"), nullptr);
  EXPECT_EQ(fact(m, "client", "CPU"), "AMD Ryzen 9 7900X (12C)");
  EXPECT_EQ(fact(m, "client", "Power limit"), "350 W");
  EXPECT_EQ(std::count_if(m.facts.begin(), m.facts.end(), [](const auto& g) { return g.id == "client"; }), 1);
}

TEST(ReportTelemetry, MachineFactsFromTheTelemetry) {
  ReportModel m = report::build_report_model(test::telemetry_fixture());
  EXPECT_EQ(fact(m, "hardware", "Power limit"), "350 W");
  EXPECT_EQ(fact(m, "hardware", "PCIe"), "Gen4 x16 (max Gen4 x16)");
  EXPECT_EQ(fact(m, "hardware", "Max SM clock"), "2,100 MHz");
  EXPECT_EQ(fact(m, "hardware", "Max memory clock"), "9,751 MHz");
  EXPECT_EQ(fact(m, "run", "Telemetry"),
            "GPU (NVML) and host CPU every 1 s; server metrics; series in telemetry.jsonl");
  // Before the kernel and the source, where the Hardware section keeps its own facts.
  const auto& facts = group(m, "hardware")->facts;
  ASSERT_GE(facts.size(), 2u);
  EXPECT_EQ(facts.back().label, "Max memory clock");

  RunResult two = test::telemetry_fixture();
  two.telemetry->gpus.push_back(two.telemetry->gpus.front());
  two.telemetry->gpus.back().index = 1;
  m = report::build_report_model(two);
  EXPECT_EQ(fact(m, "hardware", "Power limit"), "350 W each");
  two.telemetry->gpus.back().power_limit_w = 300.0;
  two.telemetry->gpus.back().sm_clock_max_mhz.reset();
  m = report::build_report_model(two);
  EXPECT_EQ(fact(m, "hardware", "Power limit"), "GPU 0: 350 W, GPU 1: 300 W");
  EXPECT_EQ(fact(m, "hardware", "Max SM clock"), "GPU 0: 2,100 MHz, GPU 1: —");

  RunResult host_only = test::telemetry_fixture();
  host_only.telemetry->gpu_source.clear();
  host_only.telemetry->gpus.clear();
  host_only.telemetry->server = false;
  host_only.telemetry->series_file.clear();
  m = report::build_report_model(host_only);
  EXPECT_EQ(fact(m, "run", "Telemetry"), "host CPU every 1 s");
  EXPECT_EQ(fact(m, "hardware", "PCIe"), "Gen4 x16");

  m = report::build_report_model(test::seed_fixture());
  EXPECT_EQ(fact(m, "run", "Telemetry"), "");
  EXPECT_EQ(fact(m, "hardware", "Max SM clock"), "");
}

TEST(ReportTelemetry, DefinitionsOnlyWithTelemetry) {
  auto terms = [](const RunResult& r) {
    std::vector<std::string> out;
    for (const auto& d : report::build_report_model(r).definitions) out.push_back(d.term);
    return out;
  };
  auto with = terms(test::telemetry_fixture());
  auto without = terms(test::seed_fixture());
  for (const char* term : {"GPU power", "Tokens per joule", "SM clock", "Throttle"}) {
    EXPECT_TRUE(has(with, term)) << term;
    EXPECT_FALSE(has(without, term)) << term;
  }
}

std::vector<std::string> csv_lines(const std::string& csv) {
  std::vector<std::string> lines;
  std::istringstream in(csv);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// Fields of a CSV line without quoted commas (the fixture's lines have none).
std::vector<std::string> fields(const std::string& line) {
  std::vector<std::string> out(1);
  for (char c : line) {
    if (c == ',') out.emplace_back();
    else out.back() += c;
  }
  return out;
}

TEST(ReportTelemetry, CsvHasEveryTelemetryFieldForEveryRun) {
  const std::vector<std::string> telemetry_columns = {
      "gpu_power_w",         "gpu_energy_j",        "tokens_per_joule",   "gpu_sm_clock_mhz",
      "gpu_temp_max_c",      "throttle",            "host_cpu_util_pct",  "server_running_mean",
      "server_waiting_mean", "server_waiting_max",  "server_kv_usage_max", "server_preemptions"};
  for (const RunResult& r : {test::telemetry_fixture(), test::seed_fixture()}) {
    auto lines = csv_lines(render_report(r, ReportFormat::Csv, {}));
    auto header = fields(lines.front());
    ASSERT_EQ(header.size(), 82u);  // then the intervals (2), the burst latencies (6), adaptive windows (3), SLO (7),
                                    // energy (7), speculation (3), answer lengths (4), reasoning (5)
    EXPECT_EQ(header[32], "warnings");  // the older columns keep their places
    EXPECT_EQ(std::vector<std::string>(header.begin() + 33, header.begin() + 45), telemetry_columns);
    EXPECT_EQ(header[45], "total_tok_s_ci");
  }
  auto lines = csv_lines(render_report(test::telemetry_fixture(), ReportFormat::Csv, {}));
  ASSERT_EQ(lines.size(), 9u);
  auto prefill = fields(lines[2]);  // prefill 16K
  EXPECT_EQ(std::vector<std::string>(prefill.begin() + 33, prefill.begin() + 45),
            (std::vector<std::string>{"341", "557.5", "29.3865", "1410", "59", "clocks_below_max", "6.3", "", "", "0",
                                      "0.031", "0"}));
  auto thermal = fields(lines[7]);  // 16K × 8
  EXPECT_EQ(std::vector<std::string>(thermal.begin() + 33, thermal.begin() + 45),
            (std::vector<std::string>{"333", "3330", "2.4384", "1755", "84", "thermal", "12.6", "7.9", "0.1", "1", "0.29",
                                      "2"}));
  auto over = fields(lines[8]);  // over capacity: empty
  EXPECT_TRUE(std::all_of(over.begin() + 33, over.end(), [](const std::string& f) { return f.empty(); }));
}

}  // namespace
}  // namespace sm
