// The production host and server sources are the readers: host telemetry from a fixture tree,
// the server's whole reading (not only its load) from a fixture /metrics.
#include <gtest/gtest.h>

#include <filesystem>

#include "support/temp_dir.h"
#include "telemetry/telemetry_sources_open.h"

namespace sm {
namespace {

namespace fs = std::filesystem;

const fs::path kFixtures = fs::path(SPEEDMATRIX_SOURCE_DIR) / "tests";

TEST(ReaderSources, HostSourceReadsTheTreeAndIsNullWithoutProcStat) {
  auto host = open_host_source((kFixtures / "fixtures/host/amd-zen3").string());
  ASSERT_NE(host, nullptr);
  HostReading r = host->read();
  EXPECT_DOUBLE_EQ(*r.cpu_temp_c, 74.75);
  EXPECT_TRUE(r.cpu_freq_mhz.has_value());

  test::TempDir empty;
  EXPECT_EQ(open_host_source(empty.path().string()), nullptr);
}

TEST(ReaderSources, ServerSourceGivesTheWholeReading) {
  const std::string body = test::read_file(kFixtures / "engines/fixtures/vllm/GET_metrics_v0.9_spec.txt");
  HttpTransport transport = [&](const HttpRequest& req) -> Result<HttpResponse> {
    if (req.url == "http://fixture/metrics") return HttpResponse{200, body, "text/plain"};
    return HttpResponse{404, "", "text/plain"};
  };
  ServerSource server = open_server_source(EngineKind::Vllm, "http://fixture", {}, transport);
  ASSERT_TRUE(static_cast<bool>(server));
  auto r = server();
  ASSERT_TRUE(r.has_value()) << r.error().message;
  EXPECT_EQ(r->running, 12);
  EXPECT_DOUBLE_EQ(*r->kv_usage, 0.8734);
  EXPECT_DOUBLE_EQ(*r->preemptions_total, 7);
  EXPECT_DOUBLE_EQ(*r->spec_accepted_tokens_total, 29000);

  EXPECT_FALSE(static_cast<bool>(open_server_source(EngineKind::Ollama, "http://fixture", {}, transport)));
}

}  // namespace
}  // namespace sm
