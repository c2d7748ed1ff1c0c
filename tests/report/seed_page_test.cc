// The seed fixture renders to exactly the seed page's text: tests/fixtures/seed-page.txt is the
// page as a browser copies it (each table row's cells run together), so every row the report
// shows, its cells joined, must equal the page's line.
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

#include "core/units.h"
#include "result/plan.h"
#include "report/golden.h"
#include "report/report_model.h"
#include "result/result_json.h"

namespace sm::report {
namespace {

// Names the report changed on purpose so they mean what other tools mean by them
// (docs/reports.md, "Against the seed page"): the seed's "total tok/s" counts output tokens only
// (vLLM bench serve's "total token throughput" counts prompt tokens too), and a decode cell's TTFT
// is read after a warmed prefix cache. The page's line is compared after these replacements.
const std::vector<std::pair<std::string, std::string>> kRenamed = {
    {"total tok/s · rows are context length", "output tok/s (all requests) · rows are context length"},
    {"StatusTotal tok/sPer request tok/sTTFTTime", "StatusOutput tok/s (all requests)Per request tok/sTTFT (decode: warm prefix)Time"},
    {"Latencies are medians. Total tok/s is output across all simultaneous requests.",
     "Latencies are medians. Output tok/s counts output tokens across all simultaneous requests (a prefill row shows "
     "its prompt tok/s there)."},
};

std::vector<std::string> seed_lines() {
  std::istringstream in(test::read_file(test::tests_path("fixtures/seed-page.txt")));
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) {
    for (const auto& [page, report] : kRenamed)
      if (auto at = line.find(page); at != std::string::npos) line.replace(at, page.size(), report);
    lines.push_back(line);
  }
  return lines;
}

// The paragraph after the first line equal to `heading`: its lines up to the next empty line.
std::vector<std::string> block_after(const std::vector<std::string>& lines, const std::string& heading) {
  auto it = std::find(lines.begin(), lines.end(), heading);
  std::vector<std::string> out;
  if (it == lines.end()) return out;
  for (++it; it != lines.end() && it->empty(); ++it) {
  }
  for (; it != lines.end() && !it->empty(); ++it) out.push_back(*it);
  return out;
}

bool contains(const std::vector<std::string>& lines, const std::string& line) {
  return std::find(lines.begin(), lines.end(), line) != lines.end();
}

class SeedPage : public ::testing::Test {
 protected:
  std::vector<std::string> page_ = seed_lines();
  ReportModel model_ = build_report_model(test::seed_fixture());
};

TEST_F(SeedPage, FixtureIsAValidResultFileAsResultJsonWritesIt) {
  std::string path = test::tests_path("fixtures/seed-rtx3090-qwen3.5-4b.json");
  auto result = read_result_file(path);
  ASSERT_TRUE(result.has_value()) << result.error().message;
  // Every field of the file reads back unchanged (fields added to the schema later are absent
  // from the file and take their defaults).
  auto on_disk = nlohmann::json::parse(test::read_file(path)).flatten();
  auto written = to_json(*result).flatten();
  for (const auto& [pointer, value] : on_disk.items()) {
    ASSERT_TRUE(written.contains(pointer)) << pointer;
    EXPECT_EQ(written[pointer], value) << pointer;
  }
  EXPECT_EQ(result->decode.size(), 48u);
  EXPECT_EQ(result->prefill.size(), 5u);
  // Every cell's status is what the planner gives for the page's KV capacity and settings.
  CapacityLimits limits{result->engine.kv_capacity_tokens, result->engine.max_model_len};
  for (const auto& c : result->decode)
    EXPECT_EQ(c.status, decode_cell_status(c.context, c.concurrency, result->settings.max_output_tokens, limits))
        << c.context << " x " << c.concurrency;
}

TEST_F(SeedPage, TitleAndTheLinesUnderIt) {
  EXPECT_TRUE(contains(page_, model_.title)) << model_.title;
  EXPECT_TRUE(contains(page_, model_.engine_line + model_.matrix_line)) << model_.engine_line + model_.matrix_line;
  EXPECT_EQ(model_.kind_label, "Measured");
  EXPECT_EQ(model_.by_line, "by @Sandberg");
}

TEST_F(SeedPage, HardwareEngineAndRunFacts) {
  auto value_of = [&](const std::string& label) -> std::string {
    for (const auto& g : model_.facts)
      for (const auto& f : g.facts)
        if (f.label == label) return f.value;
    return "<missing>";
  };
  for (const std::string section : {"Hardware", "Engine", "Run"}) {
    auto block = block_after(page_, section);
    ASSERT_FALSE(block.empty()) << section;
    for (size_t i = 0; i + 1 < block.size(); i += 2) {
      // The page's "Revision" has no field in result.json yet (requested: EngineInfo::model_revision).
      if (block[i] == "Revision") continue;
      EXPECT_EQ(value_of(block[i]), block[i + 1]) << section << " / " << block[i];
    }
  }
}

TEST_F(SeedPage, LaunchCommand) {
  auto block = block_after(page_, "Launch command");
  std::string page_command;
  for (const auto& l : block) page_command += (page_command.empty() ? "" : "\n") + l;
  EXPECT_EQ(model_.launch_command, page_command);
}

TEST_F(SeedPage, PrefillLines) {
  auto block = block_after(page_, "Prefill");
  ASSERT_GE(block.size(), 2u);
  EXPECT_EQ(block[0], "prompt tok/s by context length");
  ASSERT_EQ(model_.prefill.size(), block.size() - 1);
  for (size_t i = 0; i < model_.prefill.size(); ++i) {
    const auto& p = model_.prefill[i];
    EXPECT_EQ(p.context_text + p.rate + p.ttft, block[i + 1]);
  }
}

TEST_F(SeedPage, DecodeMatrix) {
  auto block = block_after(page_, "Sustained decode");
  ASSERT_EQ(block.size(), 2 + model_.decode_total.contexts.size());
  EXPECT_EQ(block[0], model_.decode_total.caption);
  std::string header = "Context";
  for (int64_t n : model_.decode_total.concurrency) header += std::to_string(n);
  EXPECT_EQ(block[1], header);
  for (size_t i = 0; i < model_.decode_total.contexts.size(); ++i) {
    std::string row = format_tokens(model_.decode_total.contexts[i]);
    for (const auto& cell : model_.decode_total.cells[i]) row += cell.value + detail_text(model_.decode_total, cell);
    EXPECT_EQ(row, block[i + 2]);
  }
}

TEST_F(SeedPage, Notes) {
  for (const auto& note : model_.decode_notes) {
    // Notes speedmatrix adds beyond the page.
    if (note.starts_with("A cell needs")) continue;
    EXPECT_TRUE(contains(page_, note)) << note;
  }
  EXPECT_TRUE(contains(page_, model_.measurements_caption));
  for (const auto& note : model_.measurement_notes) EXPECT_TRUE(contains(page_, note)) << note;
}

TEST_F(SeedPage, AllMeasurementsRows) {
  auto block = block_after(page_, "All measurements");
  ASSERT_EQ(block.size(), 2 + model_.measurements.rows.size());
  EXPECT_EQ(block[0], model_.measurements_caption);
  std::string header;
  for (const auto& h : model_.measurements.header) header += h;
  EXPECT_EQ(block[1], header);
  const size_t completed = 9;
  ASSERT_EQ(model_.measurements.header[completed], "Completed requests");
  for (size_t i = 0; i < model_.measurements.rows.size(); ++i) {
    std::string row;
    for (size_t j = 0; j < model_.measurements.rows[i].cells.size(); ++j) {
      const std::string& cell = model_.measurements.rows[i].cells[j];
      // The page leaves "Completed requests" empty where none completed; we write 0.
      if (j == completed && cell == "0") continue;
      row += cell;
    }
    EXPECT_EQ(row, block[i + 2]) << "row " << i;
  }
}

}  // namespace
}  // namespace sm::report
