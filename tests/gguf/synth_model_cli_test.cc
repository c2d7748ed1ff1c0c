// The synth-model subcommand end to end: flags in, file out, clear errors for bad flags.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <string>
#include <sys/wait.h>

#include "gguf/gguf_reader.h"
#include "support/run_binary.h"
#include "support/temp_dir.h"

namespace sm::gguf {
namespace {

using CliRun = test::BinaryOutcome;

CliRun run_synth(const std::string& args) { return test::run_binary("synth-model " + args); }

TEST(SynthModelCli, WritesThePresetWithOverrides) {
  test::TempDir dir;
  const std::string path = dir.file("m.gguf");
  CliRun r = run_synth("--shape small --layers 3 --ctx 8K --type q8_0 --seed 9 --out " + path);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("wrote " + path), std::string::npos);
  EXPECT_NE(r.output.find("shape custom, 3 layers, hidden 256"), std::string::npos) << r.output;
  auto f = read_gguf(path);
  ASSERT_TRUE(f.has_value()) << f.error().message;
  EXPECT_EQ(f->get_uint("llama.block_count"), 3u);
  EXPECT_EQ(f->get_uint("llama.embedding_length"), 256u);
  EXPECT_EQ(f->get_uint("llama.context_length"), 8192u);
  EXPECT_EQ(f->get_uint("general.file_type"), 7u);
  EXPECT_EQ(f->get_uint("speedmatrix.synth.seed"), 9u);
}

TEST(SynthModelCli, BadFlagsAreUsageErrors) {
  test::TempDir dir;
  const std::string out = " --out " + dir.file("m.gguf");
  struct Case {
    std::string args;
    std::string message;
  };
  for (const Case& c : {
           Case{"--hidden 100 --heads 3", "--hidden 100 is not divisible by --heads 3"},
           Case{"--kv-heads 3", "--kv-heads 3 does not divide --heads 4"},
           Case{"--layers 0", "--layers must be at least 1"},
           Case{"--type q4_k", "--type: unknown weight type 'q4_k' (use f32, f16 or q8_0)"},
           Case{"--shape huge", "--shape: unknown shape 'huge' (use tiny, small, medium)"},
           Case{"--ctx 12X", "--ctx:"},
       }) {
    CliRun r = run_synth(c.args + out);
    EXPECT_EQ(r.exit_code, 2) << c.args << ": " << r.output;
    EXPECT_NE(r.output.find(c.message), std::string::npos) << c.args << ": " << r.output;
  }
  EXPECT_FALSE(std::filesystem::exists(dir.file("m.gguf")));
}

}  // namespace
}  // namespace sm::gguf
