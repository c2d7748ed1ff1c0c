#include "gguf/synth_model.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <set>

#include "gguf/ggml_quant.h"
#include "gguf/gguf_reader.h"
#include "support/temp_dir.h"

namespace sm::gguf {
namespace {

SynthOptions tiny_options(const test::TempDir& dir, TensorType type, uint64_t seed = 1) {
  SynthOptions o;
  o.shape = preset_shape("tiny").value();
  o.type = type;
  o.seed = seed;
  o.out_path = dir.file(std::string("tiny-") + std::string(to_string(type)) + "-" + std::to_string(seed) + ".gguf");
  return o;
}

// Decodes a tensor of any type to floats.
std::vector<float> tensor_values(const std::string& path, const GgufFile& f, const TensorInfo& t) {
  auto data = read_tensor_data(path, f, t);
  EXPECT_TRUE(data.has_value());
  std::vector<float> out(t.values());
  switch (t.type) {
    case TensorType::F32:
      std::memcpy(out.data(), data->data(), data->size());
      break;
    case TensorType::F16:
      for (size_t i = 0; i < out.size(); ++i) {
        uint16_t h = 0;
        std::memcpy(&h, data->data() + 2 * i, 2);
        out[i] = f16_to_float(h);
      }
      break;
    case TensorType::Q8_0:
      dequantize_q8_0(*data, out);
      break;
  }
  return out;
}

TEST(SynthVocab, OneTokenPerAsciiCharacter) {
  const SynthVocab v = synth_vocab();
  EXPECT_EQ(v.size(), 101u);
  EXPECT_EQ(v.tokens[v.id_of(' ')], "\xc4\xa0");  // GPT-2 spells a space as U+0120
  EXPECT_EQ(v.tokens[v.id_of('\n')], "\xc4\x8a");  // and newline as U+010A
  EXPECT_EQ(v.tokens[v.id_of('\t')], "\xc4\x89");
  EXPECT_EQ(v.tokens[v.id_of('A')], "A");
  EXPECT_EQ(v.tokens[v.id_of('~')], "~");
  EXPECT_EQ(v.id_of('\x80'), -1);
  EXPECT_EQ(v.id_of('\r'), -1);
  EXPECT_EQ(v.tokens[v.bos_id], "<s>");
  EXPECT_EQ(v.tokens[v.eos_id], "</s>");
  EXPECT_EQ(v.tokens[v.im_start_id], "<|im_start|>");
  EXPECT_EQ(v.tokens[v.im_end_id], "<|im_end|>");
  EXPECT_EQ(v.types[v.id_of('A')], 1);
  EXPECT_EQ(v.types[v.eos_id], 3);
  EXPECT_EQ(std::set<std::string>(v.tokens.begin(), v.tokens.end()).size(), v.size());  // no duplicates
}

TEST(SynthModel, WritesALlamaModelThatReadsBack) {
  test::TempDir dir;
  const SynthOptions o = tiny_options(dir, TensorType::F16);
  auto summary = write_synth_model(o);
  ASSERT_TRUE(summary.has_value()) << summary.error().message;
  auto f = read_gguf(o.out_path);
  ASSERT_TRUE(f.has_value()) << f.error().message;
  EXPECT_EQ(summary->file_size_bytes, f->file_size_bytes);
  EXPECT_EQ(summary->parameters, o.shape.parameter_count(101));
  EXPECT_EQ(summary->vocab_size, 101u);

  EXPECT_EQ(f->get_string("general.architecture"), "llama");
  EXPECT_EQ(f->get_uint("general.alignment"), 32u);
  EXPECT_EQ(f->get_uint("general.file_type"), 1u);
  EXPECT_EQ(f->get_uint("llama.block_count"), 2u);
  EXPECT_EQ(f->get_uint("llama.embedding_length"), 64u);
  EXPECT_EQ(f->get_uint("llama.feed_forward_length"), 192u);
  EXPECT_EQ(f->get_uint("llama.attention.head_count"), 4u);
  EXPECT_EQ(f->get_uint("llama.attention.head_count_kv"), 2u);
  EXPECT_EQ(f->get_uint("llama.rope.dimension_count"), 16u);
  EXPECT_EQ(f->get_uint("llama.context_length"), 32768u);
  EXPECT_EQ(f->get_uint("llama.vocab_size"), 101u);
  EXPECT_EQ(f->find("llama.attention.layer_norm_rms_epsilon")->type, ValueType::F32);
  EXPECT_EQ(f->find("llama.rope.freq_base")->type, ValueType::F32);
  EXPECT_EQ(f->get_string("tokenizer.ggml.model"), "gpt2");
  EXPECT_EQ(f->find("tokenizer.ggml.tokens")->elements.size(), 101u);
  EXPECT_EQ(f->find("tokenizer.ggml.token_type")->elements.size(), 101u);
  EXPECT_EQ(f->find("tokenizer.ggml.token_type")->element_type, ValueType::I32);
  EXPECT_EQ(f->find("tokenizer.ggml.merges")->element_type, ValueType::String);
  EXPECT_EQ(f->get_uint("tokenizer.ggml.bos_token_id"), synth_vocab().bos_id);
  EXPECT_EQ(f->get_uint("tokenizer.ggml.eos_token_id"), synth_vocab().eos_id);
  EXPECT_TRUE(std::get<bool>(f->find("tokenizer.ggml.add_bos_token")->scalar));
  EXPECT_NE(f->get_string("tokenizer.chat_template")->find("<|im_start|>"), std::string::npos);
  EXPECT_EQ(f->get_uint("speedmatrix.synth.seed"), 1u);

  // 3 global tensors + 9 per layer, with llama.cpp's names and ggml (innermost-first) shapes.
  ASSERT_EQ(f->tensors.size(), 3u + 9u * 2u);
  EXPECT_EQ(summary->tensors, f->tensors.size());
  auto dims = [&](const char* name) {
    const TensorInfo* t = f->find_tensor(name);
    EXPECT_NE(t, nullptr) << name;
    return t ? t->dims : std::vector<uint64_t>{};
  };
  using D = std::vector<uint64_t>;
  EXPECT_EQ(dims("token_embd.weight"), (D{64, 101}));
  EXPECT_EQ(dims("output.weight"), (D{64, 101}));
  EXPECT_EQ(dims("output_norm.weight"), (D{64}));
  for (const char* p : {"blk.0.", "blk.1."}) {
    const std::string s(p);
    EXPECT_EQ(dims((s + "attn_norm.weight").c_str()), (D{64}));
    EXPECT_EQ(dims((s + "attn_q.weight").c_str()), (D{64, 64}));
    EXPECT_EQ(dims((s + "attn_k.weight").c_str()), (D{64, 32}));
    EXPECT_EQ(dims((s + "attn_v.weight").c_str()), (D{64, 32}));
    EXPECT_EQ(dims((s + "attn_output.weight").c_str()), (D{64, 64}));
    EXPECT_EQ(dims((s + "ffn_norm.weight").c_str()), (D{64}));
    EXPECT_EQ(dims((s + "ffn_gate.weight").c_str()), (D{64, 192}));
    EXPECT_EQ(dims((s + "ffn_up.weight").c_str()), (D{64, 192}));
    EXPECT_EQ(dims((s + "ffn_down.weight").c_str()), (D{192, 64}));
  }
  for (const auto& t : f->tensors) {
    EXPECT_EQ(t.offset_bytes % 32, 0u) << t.name;
    EXPECT_EQ(t.type, t.dims.size() == 1 ? TensorType::F32 : TensorType::F16) << t.name;
  }
  EXPECT_EQ(f->data_offset_bytes % 32, 0u);
}

TEST(SynthModel, WeightsAreSmallAndNormsAreOne) {
  test::TempDir dir;
  for (TensorType type : {TensorType::F32, TensorType::F16, TensorType::Q8_0}) {
    const SynthOptions o = tiny_options(dir, type);
    ASSERT_TRUE(write_synth_model(o).has_value());
    auto f = read_gguf(o.out_path);
    ASSERT_TRUE(f.has_value()) << f.error().message;
    for (const auto& t : f->tensors) {
      const std::vector<float> v = tensor_values(o.out_path, *f, t);
      if (t.dims.size() == 1) {
        for (float x : v) ASSERT_EQ(x, 1.0f) << t.name;
        continue;
      }
      // Column 0 of the embedding and output matrices is the constant channel (next test).
      const bool skip_column0 = t.name == "token_embd.weight" || t.name == "output.weight";
      double sum_sq = 0;
      size_t n = 0;
      for (size_t i = 0; i < v.size(); ++i) {
        ASSERT_TRUE(std::isfinite(v[i])) << t.name;
        if (skip_column0 && i % t.dims[0] == 0) continue;
        // In q8_0 the channel's value (16) sets the scale of its whole block, whose small values
        // round coarsely; skip that block.
        if (type == TensorType::Q8_0 && t.name == "token_embd.weight" && i % t.dims[0] < 32) continue;
        if (t.name == "output.weight" && i / t.dims[0] >= 97) continue;  // control tokens' rows
        ASSERT_LE(std::fabs(v[i]), 0.035f) << t.name;  // uniform in +-0.02 * sqrt(3)
        sum_sq += double(v[i]) * v[i];
        ++n;
      }
      const bool zero_row0 = t.name.ends_with("attn_output.weight") || t.name.ends_with("ffn_down.weight");
      const double expected_rms = zero_row0 ? 0.02 * std::sqrt(1.0 - 1.0 / double(t.dims[1])) : 0.02;
      EXPECT_NEAR(std::sqrt(sum_sq / n), expected_rms, 0.003) << t.name << " " << to_string(type);
    }
  }
}

TEST(SynthModel, ControlTokensCannotBeSampled) {
  // Hidden dimension 0 is a constant channel: large in every embedding, never written by a
  // layer, and read only by the control tokens' output rows, with a negative weight.
  test::TempDir dir;
  const SynthOptions o = tiny_options(dir, TensorType::F16);
  ASSERT_TRUE(write_synth_model(o).has_value());
  auto f = read_gguf(o.out_path);
  ASSERT_TRUE(f.has_value());
  const SynthVocab vocab = synth_vocab();
  const uint64_t h = o.shape.hidden;
  const std::vector<float> embd = tensor_values(o.out_path, *f, *f->find_tensor("token_embd.weight"));
  for (uint32_t tok = 0; tok < vocab.size(); ++tok) EXPECT_EQ(embd[tok * h], 16.0f) << tok;
  for (const char* name : {"blk.0.attn_output.weight", "blk.1.ffn_down.weight"}) {
    const TensorInfo* t = f->find_tensor(name);
    const std::vector<float> w = tensor_values(o.out_path, *f, *t);
    for (uint64_t i = 0; i < t->dims[0]; ++i) ASSERT_EQ(w[i], 0.0f) << name;  // output feature 0
    EXPECT_NE(w[t->dims[0]], 0.0f) << name;
  }
  const std::vector<float> out = tensor_values(o.out_path, *f, *f->find_tensor("output.weight"));
  for (uint32_t tok = 0; tok < vocab.size(); ++tok) {
    if (vocab.types[tok] == SynthVocab::kControl) {
      EXPECT_EQ(out[tok * h], -4.0f) << tok;
      for (uint64_t i = 1; i < h; ++i) ASSERT_EQ(out[tok * h + i], 0.0f) << tok;
    } else {
      EXPECT_EQ(out[tok * h], 0.0f) << tok;
    }
  }
}

TEST(SynthModel, Q8_0BlocksHaveTheReferenceLayout) {
  test::TempDir dir;
  const SynthOptions o = tiny_options(dir, TensorType::Q8_0);
  ASSERT_TRUE(write_synth_model(o).has_value());
  auto f = read_gguf(o.out_path);
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->get_uint("general.file_type"), 7u);
  const TensorInfo* t = f->find_tensor("blk.0.ffn_down.weight");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->type, TensorType::Q8_0);
  EXPECT_EQ(t->size_bytes(), 192u * 64 / 32 * 34);
  auto data = read_tensor_data(o.out_path, *f, *t);
  ASSERT_TRUE(data.has_value());
  // Each block: its largest |q| is 127 (d = max|x| / 127), and d is a positive f16; the
  // blocks of row 0 (output feature 0, kept zero) have d = 0 and all qs 0.
  const size_t row0_blocks = 192 / 32;
  for (size_t b = 0; b < data->size() / 34; ++b) {
    uint16_t d_bits = 0;
    std::memcpy(&d_bits, data->data() + b * 34, 2);
    const float d = f16_to_float(d_bits);
    if (b < row0_blocks) {
      for (size_t i = 0; i < 34; ++i) ASSERT_EQ((*data)[b * 34 + i], std::byte{0}) << "block " << b;
      continue;
    }
    ASSERT_GT(d, 0.0f);
    ASSERT_LT(d, 0.035f / 127 * 1.01f);
    int max_q = 0;
    for (size_t i = 0; i < 32; ++i) max_q = std::max(max_q, std::abs(int(static_cast<int8_t>((*data)[b * 34 + 2 + i]))));
    ASSERT_EQ(max_q, 127) << "block " << b;
  }
}

TEST(SynthModel, SameSeedSameBytes) {
  test::TempDir dir;
  const SynthOptions a = tiny_options(dir, TensorType::F16, 5);
  SynthOptions b = a;
  b.out_path = dir.file("again.gguf");
  const SynthOptions c = tiny_options(dir, TensorType::F16, 6);
  ASSERT_TRUE(write_synth_model(a).has_value());
  ASSERT_TRUE(write_synth_model(b).has_value());
  ASSERT_TRUE(write_synth_model(c).has_value());
  EXPECT_EQ(test::read_file(a.out_path), test::read_file(b.out_path));
  EXPECT_NE(test::read_file(a.out_path), test::read_file(c.out_path));
}

TEST(SynthModel, BadOptions) {
  test::TempDir dir;
  SynthOptions o = tiny_options(dir, TensorType::F16);
  o.shape.kv_heads = 3;
  auto r = write_synth_model(o);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code, ErrorCode::InvalidArgument);
  EXPECT_EQ(r.error().message, "--kv-heads 3 does not divide --heads 4");

  o = tiny_options(dir, TensorType::F16);
  o.out_path.clear();
  EXPECT_EQ(write_synth_model(o).error().code, ErrorCode::InvalidArgument);

  o.out_path = dir.file("no-such-dir/m.gguf");
  EXPECT_EQ(write_synth_model(o).error().code, ErrorCode::Io);
}

}  // namespace
}  // namespace sm::gguf
