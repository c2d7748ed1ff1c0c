// --cacert, --insecure, --header, --proxy, --http2 as a user types them: the real binary's help,
// its refusals of contradictory or malformed values, and `probe` past a key-checking gateway.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <fstream>

#include "net/connection_options.h"
#include "support/scripted_server.h"
#include "support/temp_dir.h"

namespace sm {
namespace {

struct Outcome {
  int exit_code = -1;
  std::string out;
  std::string err;
};

Outcome run_binary(const test::TempDir& dir, const std::string& args) {
  std::string out = dir.file("stdout.txt"), err = dir.file("stderr.txt");
  std::string cmd = "'" + std::string(SPEEDMATRIX_BINARY) + "' " + args + " >'" + out + "' 2>'" + err + "'";
  int status = std::system(cmd.c_str());
  Outcome r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = test::read_file(out);
  r.err = test::read_file(err);
  return r;
}

std::string q(const std::string& s) { return "'" + s + "'"; }

TEST(ConnectionCli, HelpExplainsEveryOption) {
  test::TempDir dir;
  Outcome run = run_binary(dir, "run --help");
  for (const char* says : {"--cacert", "--insecure", "--header", "--proxy", "--http2", "https_proxy", "no_proxy",
                           "'api-key: KEY'", "values never reach result.json", "one connection per stream"})
    EXPECT_NE(run.out.find(says), std::string::npos) << says;
  for (const char* command : {"probe --help", "upload --help"}) {
    Outcome help = run_binary(dir, command);
    for (const char* flag : {"--cacert", "--insecure", "--header", "--proxy"})
      EXPECT_NE(help.out.find(flag), std::string::npos) << command << ": " << flag;
    EXPECT_EQ(help.out.find("--http2"), std::string::npos) << command << " streams nothing";
  }
}

TEST(ConnectionCli, RefusesWhatCannotWorkBeforeContactingAnything) {
  test::TempDir dir;
  std::ofstream(dir.file("not-a-cert.pem")) << "hello\n";
  std::ofstream(dir.file("ca.pem")) << "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n";
  struct Case {
    std::string args, says;
  };
  const std::vector<Case> cases = {
      {"--cacert " + q(dir.file("missing.pem")), "cannot read the file"},
      {"--cacert " + q(dir.file("not-a-cert.pem")), "no PEM certificate in it"},
      {"--cacert " + q(dir.file("ca.pem")) + " --insecure", "--cacert and --insecure contradict each other"},
      {"--header 'api-key'", "expected 'Name: value'"},
      {"--header 'api key: x'", "the name before ':' must be one word"},
  };
  for (const auto& c : cases) {
    for (const char* command : {"run --url http://127.0.0.1:1 --no-selftest", "probe --url http://127.0.0.1:1"}) {
      Outcome r = run_binary(dir, std::string(command) + " " + c.args);
      EXPECT_EQ(r.exit_code, 2) << command << " " << c.args << "\n" << r.err;
      EXPECT_NE(r.err.find(c.says), std::string::npos) << command << " " << c.args << "\n" << r.err;
    }
  }
}

TEST(ConnectionCli, ProbeNeedsTheGatewaysHeader) {
  test::ScriptedServerOptions opts;
  opts.required_headers = {{"api-key", "probe-key-8842"}};
  test::ScriptedServer server(opts);
  test::TempDir dir;
  Outcome refused = run_binary(dir, "probe --url " + server.url());
  EXPECT_EQ(refused.exit_code, 1) << refused.out;
  EXPECT_NE(refused.err.find("401"), std::string::npos) << refused.err;
  EXPECT_NE(refused.err.find("--header 'Name: value'"), std::string::npos) << refused.err;
  Outcome ok = run_binary(dir, "probe --url " + server.url() + " --header 'api-key: probe-key-8842'");
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_NE(ok.out.find("scripted-model"), std::string::npos) << ok.out;
}

TEST(ConnectionCli, SelftestHttp2OverTlsMeasures) {
  test::TempDir dir;
  Outcome r = run_binary(dir, "selftest --http2 --tls --streams 4 --seconds 0.3 --no-lag --format json");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("\"http_version\": \"2\""), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"tls\": true"), std::string::npos) << r.out;
}

TEST(ConnectionCli, SelftestHttp2MeasuresOrSaysWhichLibcurlItNeeds) {
  test::TempDir dir;
  Outcome r = run_binary(dir, "selftest --http2 --streams 4 --seconds 0.3 --no-lag --format json");
  if (libcurl_reuses_cleartext_http2()) {
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("\"http_version\": \"2\""), std::string::npos) << r.out;
  } else {
    EXPECT_EQ(r.exit_code, 1) << r.out;
    EXPECT_NE(r.err.find("--http2 needs libcurl 8.0.0 or later: this one (" + libcurl_version() + ")"),
              std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find("add --tls"), std::string::npos) << r.err;
  }
}

}  // namespace
}  // namespace sm
