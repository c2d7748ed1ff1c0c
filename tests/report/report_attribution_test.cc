// What every report says about whose hardware the numbers belong to.
#include <gtest/gtest.h>

#include <algorithm>

#include "report/golden.h"
#include "report/report.h"
#include "report/report_model.h"

namespace sm {
namespace {

// The seed run, as if measured from a laptop across the network.
RunResult remote_seed(HardwareSource source) {
  RunResult r = test::seed_fixture();
  HardwareInfo client;
  client.type = "CPU only";
  client.cpu_model = "Intel(R) Core(TM) i7-1185G7 @ 3.00GHz";
  client.cpu_cores = 4;
  r.client_hardware = client;
  if (source == HardwareSource::Unknown) {
    r.hardware = HardwareInfo{};
    r.hardware.source = HardwareSource::Unknown;
    r.hardware.source_detail = "gpu-box resolves to 10.0.0.7, which is not an address of this machine; no hardware was declared";
  } else {
    r.hardware.source = HardwareSource::Declared;
    r.hardware.source_detail = "--gpu \"RTX 3090\" --gpu-count 1";
  }
  return r;
}

const report::FactGroup* group(const report::ReportModel& m, const std::string& id) {
  auto it = std::find_if(m.facts.begin(), m.facts.end(), [&](const report::FactGroup& g) { return g.id == id; });
  return it == m.facts.end() ? nullptr : &*it;
}

std::string fact(const report::FactGroup* g, const std::string& label) {
  if (!g) return "";
  for (const auto& f : g->facts)
    if (f.label == label) return f.value;
  return "";
}

TEST(ReportAttribution, UnknownHardwareIsSaidPlainlyWithTheFlagsToDeclareIt) {
  RunResult r = remote_seed(HardwareSource::Unknown);
  report::ReportModel m = report::build_report_model(r);
  EXPECT_EQ(m.hardware_name, "unknown hardware");
  EXPECT_EQ(m.title, "Qwen3.5-4B-AWQ-4bit on unknown hardware");
  EXPECT_TRUE(fact(group(m, "hardware"), "Source").starts_with("unknown: gpu-box resolves to 10.0.0.7"));
  EXPECT_EQ(fact(group(m, "hardware"), "CPU"), "");  // never the client's CPU
  EXPECT_EQ(fact(group(m, "client"), "CPU"), "Intel Core i7-1185G7 (4C)");
  auto warning = std::find_if(m.findings.begin(), m.findings.end(), [](const report::Finding& f) {
    return f.text.starts_with("Hardware unknown");
  });
  ASSERT_NE(warning, m.findings.end());
  EXPECT_EQ(warning->severity, report::Severity::Warning);
  for (const char* flag : {"speedmatrix hardware --out", "--server-hardware", "--gpu"})
    EXPECT_NE(warning->text.find(flag), std::string::npos) << flag;

  for (ReportFormat format : {ReportFormat::Term, ReportFormat::Html, ReportFormat::Markdown}) {
    std::string text = render_report(r, format, {false, 100});
    EXPECT_NE(text.find("on unknown hardware"), std::string::npos) << static_cast<int>(format);
    EXPECT_NE(text.find("Hardware unknown"), std::string::npos) << static_cast<int>(format);
    EXPECT_NE(text.find("--server-hardware"), std::string::npos) << static_cast<int>(format);
  }
  EXPECT_NE(render_report(r, ReportFormat::Html, {}).find("<section id=\"client\">"), std::string::npos);
}

TEST(ReportAttribution, DeclaredHardwareIsTitledByItAndMarkedDeclared) {
  RunResult r = remote_seed(HardwareSource::Declared);
  report::ReportModel m = report::build_report_model(r);
  EXPECT_EQ(m.title, "Qwen3.5-4B-AWQ-4bit on RTX 3090 24GB");
  EXPECT_EQ(fact(group(m, "hardware"), "Source"), "declared, not probed: --gpu \"RTX 3090\" --gpu-count 1");
  EXPECT_EQ(fact(group(m, "client"), "Type"), "CPU only");
  auto info = std::find_if(m.findings.begin(), m.findings.end(),
                           [](const report::Finding& f) { return f.text.starts_with("The hardware was declared"); });
  ASSERT_NE(info, m.findings.end());
  EXPECT_EQ(info->severity, report::Severity::Info);
}

TEST(ReportAttribution, ProbedHardwareAddsNothing) {
  RunResult r = test::seed_fixture();
  report::ReportModel m = report::build_report_model(r);
  EXPECT_EQ(fact(group(m, "hardware"), "Source"), "");
  EXPECT_EQ(group(m, "client"), nullptr);
  EXPECT_EQ(m.facts.size(), 3u);
}

}  // namespace
}  // namespace sm
