// `report` and `compare` read result files through load_result: a file written before
// redaction existed renders without its secrets.
#include <gtest/gtest.h>

#include "report/report.h"
#include "report/result_input.h"
#include "result/result_json.h"
#include "support/temp_dir.h"

namespace sm {
namespace {

TEST(ReportRedaction, OldResultFilesRenderWithoutSecrets) {
  const std::string key = "sk-oldreport0123456789abcdef";
  RunResult old;
  old.run_id = "old";
  old.target_url = "http://dave:pw-31c7@gpu1:8000?token=" + key;
  old.launch_command = "HF_TOKEN=hf_abcdefghijklmnopqrstuvwxyzAB vllm serve Qwen/Qwen3-4B --api-key " + key;
  test::TempDir dir;
  ASSERT_TRUE(write_result_file(dir.file("result.json"), old));

  auto loaded = report::load_result(dir.path().string());
  ASSERT_TRUE(loaded.has_value()) << loaded.error().message;
  EXPECT_EQ(loaded->launch_command, "HF_TOKEN=<redacted> vllm serve Qwen/Qwen3-4B --api-key <redacted>");
  EXPECT_EQ(loaded->target_url, "http://<redacted>@gpu1:8000?token=<redacted>");
  for (ReportFormat format : {ReportFormat::Term, ReportFormat::Html, ReportFormat::Markdown}) {
    const std::string text = render_report(*loaded, format, {});
    EXPECT_EQ(text.find(key), std::string::npos) << text;
    EXPECT_EQ(text.find("pw-31c7"), std::string::npos) << text;
    EXPECT_EQ(text.find("hf_abcdefghijklmnopqrstuvwxyzAB"), std::string::npos) << text;
  }
}

}  // namespace
}  // namespace sm
