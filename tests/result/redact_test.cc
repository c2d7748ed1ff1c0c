#include "result/redact.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace sm {
namespace {

struct Case {
  std::string in;
  std::string out;
};

// Each secret-bearing form, and its expected redaction.
const std::vector<Case> kCommandCases = {
    // Flags whose name ends in key / token / secret / password.
    {"vllm serve Qwen/Qwen3-4B --api-key sk-local-1 --port 8000",
     "vllm serve Qwen/Qwen3-4B --api-key <redacted> --port 8000"},
    {"vllm serve m --api-key=abc123 --port 8000", "vllm serve m --api-key=<redacted> --port 8000"},
    {"llama-server -m m.gguf --api-key 'my secret' --port 8080", "llama-server -m m.gguf --api-key '<redacted>' --port 8080"},
    {"text-generation-launcher --hf-token hf_x --port 80", "text-generation-launcher --hf-token <redacted> --port 80"},
    {"x --hf_token=\"abc\"", "x --hf_token=\"<redacted>\""},
    {"x --auth-token t0k --client-secret s3cr3t --password hunter2 --db-password=pw",
     "x --auth-token <redacted> --client-secret <redacted> --password <redacted> --db-password=<redacted>"},
    {"x --api-key \\\n  abc --port 1", "x --api-key \\\n  <redacted> --port 1"},
    // Environment assignments.
    {"HF_TOKEN=hf_abc vllm serve m", "HF_TOKEN=<redacted> vllm serve m"},
    {"export OPENAI_API_KEY=abc; python -m sglang.launch_server",
     "export OPENAI_API_KEY=<redacted>; python -m sglang.launch_server"},
    {"VLLM_API_KEY='a b c' AWS_SECRET_ACCESS_KEY=\"xyz\" run", "VLLM_API_KEY='<redacted>' AWS_SECRET_ACCESS_KEY=\"<redacted>\" run"},
    {"DB_PASSWORD_PLAIN=pw MYSQL_ROOT_PASSWORD=pw2 x", "DB_PASSWORD_PLAIN=<redacted> MYSQL_ROOT_PASSWORD=<redacted> x"},
    {"TOKEN=abc KEY=def x", "TOKEN=<redacted> KEY=<redacted> x"},
    // Headers: the name and the scheme word stay.
    {"curl -H 'Authorization: Bearer abc.def' http://h/v1", "curl -H 'Authorization: Bearer <redacted>' http://h/v1"},
    {"curl -H \"authorization: Basic dXNlcjpwYXNz\" x", "curl -H \"authorization: Basic <redacted>\" x"},
    {"Authorization: abc", "Authorization: <redacted>"},
    {"Proxy-Authorization: Bearer xyz", "Proxy-Authorization: Bearer <redacted>"},
    {"-H 'api-key: abc' -H 'x-api-key: def' -H 'X-Auth-Token: ghi'",
     "-H 'api-key: <redacted>' -H 'x-api-key: <redacted>' -H 'X-Auth-Token: <redacted>'"},
    // JSON and YAML keys.
    {R"({"api_key": "abc", "model": "m"})", R"({"api_key": "<redacted>", "model": "m"})"},
    {R"({"Authorization": "Bearer abc"})", R"({"Authorization": "Bearer <redacted>"})"},
    {"hf_token: abc", "hf_token: <redacted>"},
    {"apiKey=abc sessionToken=def", "apiKey=<redacted> sessionToken=<redacted>"},
    // Well-known key shapes anywhere (the prefix stays).
    {"key is hf_abcdefghijklmnopqrstuvwxyzABCDEFGH ok", "key is hf_<redacted> ok"},
    {"(sk-proj-abcdefghijklmnop0123456789)", "(sk-<redacted>)"},
    {"gh ghp_abcdefghijklmnopqrstuvwxyz0123456789 gl glpat-abcdefghij0123456789",
     "gh ghp_<redacted> gl glpat-<redacted>"},
    {"google AIzaSyA1234567890abcdefghijklmnopqrstu", "google AIza<redacted>"},
    // URL user info and key-like query and fragment parameters.
    {"--url http://user:pass@gpu1:8000/v1", "--url http://<redacted>@gpu1:8000/v1"},
    {"see https://h/x?api_key=abc&model=m&KEY=def&Signature=s&x-amz-security-token=t.",
     "see https://h/x?api_key=<redacted>&model=m&KEY=<redacted>&Signature=<redacted>&x-amz-security-token=<redacted>."},
    {"https://h/cb#access_token=abc&state=1", "https://h/cb#access_token=<redacted>&state=1"},
    {"https://h/?sig=abc;token=def", "https://h/?sig=<redacted>;token=<redacted>"},
    {"postgresql://me:p%40ss@db:5432/x?password=pw", "postgresql://<redacted>@db:5432/x?password=<redacted>"},
};

// Ordinary text that must come out exactly as it went in.
const std::vector<std::string> kUnchanged = {
    "vllm serve Qwen/Qwen3-4B --port 8000 --max-model-len 4096 --gpu-memory-utilization 0.9",
    "--max-num-batched-tokens 8192 --max-tokens 100 --num-speculative-tokens 3 --long-prefill-token-threshold 64",
    "--tokenizer Qwen/Qwen3-4B --tokenizer-mode auto --skip-tokenizer-init",
    "--api-key-file keys.txt --ssl-keyfile server.key --enable-prefix-caching",
    "--kv-cache-dtype fp8 --key-value-heads 8",
    "llama-server -m models/qwen.gguf -c 32768 -np 4 --host 0.0.0.0 --port 8080",
    "HF_HUB_ENABLE_HF_TRANSFER=1 CUDA_VISIBLE_DEVICES=0,1 TOKENIZERS_PARALLELISM=false vllm serve m",
    "pip install hf_transfer scikit-learn; task-runner disk-usage asks sk-learn",
    "the task-abcdefghijklmnopqrstuvwxyz finished; desk_hf_abcdefghijklmnopqrstuvwxyz",
    "--api-key $OPENAI_API_KEY --hf-token \"${HF_TOKEN}\"",
    "the server wants an API key (--api-key, SPEEDMATRIX_API_KEY or OPENAI_API_KEY)",
    "2 requests ended before max output (stop); one token per chunk",
    "http://127.0.0.1:8000/v1/completions?stream=true&model=m",
    "/props n_ctx (unified KV cache, from the server log)",
    "Qwen/Qwen3-4B",
    "",
};

TEST(Redact, EverySecretFormIsRedacted) {
  for (const auto& c : kCommandCases) {
    EXPECT_EQ(redact_command(c.in), c.out) << c.in;
    EXPECT_EQ(redact_text(c.in), redact_command(c.in)) << "free text follows the same rules: " << c.in;
  }
}

TEST(Redact, OrdinaryTextIsUnchanged) {
  for (const auto& s : kUnchanged) {
    EXPECT_EQ(redact_command(s), s);
    EXPECT_EQ(redact_text(s), s);
  }
}

TEST(Redact, RedactingTwiceChangesNothing) {
  RedactOptions drop{.drop_host = true, .hosts = {"gpu1"}};
  for (const auto& c : kCommandCases) {
    EXPECT_EQ(redact_command(c.out), c.out);
    const std::string once = redact_command(c.in, drop);
    EXPECT_EQ(redact_command(once, drop), once);
  }
}

TEST(Redact, Urls) {
  EXPECT_EQ(redact_url("http://user:pass@host:8000"), "http://<redacted>@host:8000");
  EXPECT_EQ(redact_url("http://user:p@ss@host/x"), "http://<redacted>@host/x");
  EXPECT_EQ(redact_url("http://h:8000/v1?api-key=a&Access_Token=b&k=v"), "http://h:8000/v1?api-key=<redacted>&Access_Token=<redacted>&k=v");
  EXPECT_EQ(redact_url("https://h/?key=abc"), "https://h/?key=<redacted>");
  EXPECT_EQ(redact_url("http://127.0.0.1:8000"), "http://127.0.0.1:8000");
  EXPECT_EQ(redact_url("http://[::1]:8000/v1"), "http://[::1]:8000/v1");
  EXPECT_EQ(redact_url(""), "");
  RedactOptions drop{.drop_host = true};
  EXPECT_EQ(redact_url("http://u:p@gpu1.lab:8000/v1?token=t", drop), "http://<redacted>@<redacted-host>:8000/v1?token=<redacted>");
  EXPECT_EQ(redact_url("http://[fe80::1]:8000", drop), "http://[<redacted-host>]:8000");
  EXPECT_EQ(redact_url("10.0.0.5:8000", drop), "<redacted-host>:8000");
  EXPECT_EQ(url_host("http://u@gpu1:8000/x"), "gpu1");
  EXPECT_EQ(url_host("http://[::1]:80"), "::1");
  EXPECT_EQ(url_host("https://example.com"), "example.com");
  EXPECT_EQ(url_port("http://u@gpu1:8000/x"), 8000);
  EXPECT_EQ(url_port("http://[::1]:81"), 81);
  EXPECT_EQ(url_port("https://example.com"), 443);
  EXPECT_EQ(url_port("http://example.com?key=1"), 80);
  EXPECT_EQ(url_port("http://h:99999"), 0);
}

TEST(Redact, HostsAndPathsOnlyWithDropHost) {
  const std::string command =
      "CUDA_VISIBLE_DEVICES=0 vllm serve /home/alice/models/Qwen3-4B --download-dir=~/hf/cache "
      "--chat-template ./tmpl.jinja -v /data/models:/models --port 8000";
  EXPECT_EQ(redact_command(command), command);
  RedactOptions drop{.drop_host = true};
  EXPECT_EQ(redact_command(command, drop),
            "CUDA_VISIBLE_DEVICES=0 vllm serve <dir>/Qwen3-4B --download-dir=<dir>/cache "
            "--chat-template ./tmpl.jinja -v <dir>/models:/models --port 8000");
  EXPECT_EQ(redact_text("model_path /home/alice/qwen.gguf.", drop), "model_path <dir>/qwen.gguf.");
  EXPECT_EQ(redact_text("weights at file:///home/alice/m.gguf", drop), "weights at file://<dir>/m.gguf");
  EXPECT_EQ(redact_text("POST /v1/completions: HTTP 500; GET /api/v1/runs", drop),
            "POST /v1/completions: HTTP 500; GET /api/v1/runs");

  drop.hosts = {"gpu-box-17", "10.0.0.5"};
  EXPECT_EQ(redact_text("Failed to connect to 10.0.0.5 port 8000 (gpu-box-17): refused", drop),
            "Failed to connect to <redacted-host> port 8000 (<redacted-host>): refused");
  EXPECT_EQ(redact_text("gpu-box-17.lab.local and 10.0.0.50 and my-gpu-box-17 stay; gpu-box-17:8000 goes", drop),
            "gpu-box-17.lab.local and 10.0.0.50 and my-gpu-box-17 stay; <redacted-host>:8000 goes");
  EXPECT_EQ(redact_text("http://gpu-box-17:8000/v1 is down", drop), "http://<redacted-host>:8000/v1 is down");
}

TEST(Redact, IsRedactedFindsPlaceholders) {
  EXPECT_TRUE(is_redacted("http://<redacted>@h"));
  EXPECT_TRUE(is_redacted("http://<redacted-host>:8000"));
  EXPECT_TRUE(is_redacted("vllm serve <dir>/m"));
  EXPECT_FALSE(is_redacted("echo '<b>' a < b"));
}

}  // namespace
}  // namespace sm
