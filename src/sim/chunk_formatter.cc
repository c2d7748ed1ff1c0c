#include "sim/chunk_formatter.h"

#include <fmt/format.h>

#include "core/rng.h"
#include "sim/json_text.h"
#include "sim/sim_tokenizer.h"

namespace sm::sim {

std::string_view finish_reason_json(FinishKind finish) {
  switch (finish) {
    case FinishKind::Length: return R"("length")";
    case FinishKind::Stop: return R"("stop")";
    case FinishKind::None: break;
  }
  return "null";
}

ChunkFormatter::ChunkFormatter(std::string_view model_id, uint64_t id_nonce)
    : id_nonce_(id_nonce), vocabulary_(OutputVocabulary::instance()) {
  append_json_escaped(model_escaped_, model_id);
}

void ChunkFormatter::make_head(StreamRequest& request, uint64_t request_number, int64_t created_s, bool stream) const {
  std::string_view object = !request.chat ? "text_completion" : stream ? "chat.completion.chunk" : "chat.completion";
  // vLLM ids are a prefix plus 32 hex digits (a uuid4 without dashes).
  request.head = fmt::format(R"({{"id":"{}-{:016x}{:016x}","object":"{}","created":{},"model":"{}","choices":[)",
                             request.chat ? "chatcmpl" : "cmpl", mix64(request_number ^ id_nonce_),
                             mix64(request_number + 0x9e3779b97f4a7c15ull), object, created_s, model_escaped_);
}

void ChunkFormatter::append_usage(std::string& out, int64_t prompt_tokens, int64_t completion_tokens,
                                  int64_t cached_prompt_tokens) const {
  out.append(R"("usage":{"prompt_tokens":)");
  append_int(out, prompt_tokens);
  out.append(R"(,"total_tokens":)");
  append_int(out, prompt_tokens + completion_tokens);
  out.append(R"(,"completion_tokens":)");
  append_int(out, completion_tokens);
  if (cached_prompt_tokens >= 0) {
    out.append(R"(,"prompt_tokens_details":{"cached_tokens":)");
    append_int(out, cached_prompt_tokens);
    out.push_back('}');
  }
  out.push_back('}');
}

void ChunkFormatter::append_text(std::string& out, const StreamRequest& request, int64_t from, int64_t to, bool eos) const {
  const int64_t text_end = eos ? to - 1 : to;  // EOS detokenizes to nothing
  const auto answered = static_cast<int64_t>(request.answer_escaped.size());
  for (int64_t i = from; i < text_end; ++i)
    out.append(i < answered ? std::string_view(request.answer_escaped[static_cast<size_t>(i)])
                            : vocabulary_.escaped(request.text_seed, i));
}

void ChunkFormatter::set_answer(StreamRequest& request, std::string_view answer) {
  request.answer_escaped.clear();
  request.answer_ids.clear();
  size_t i = 0;
  while (i < answer.size()) {
    while (i < answer.size() && answer[i] == ' ') ++i;
    const size_t start = i;
    while (i < answer.size() && answer[i] != ' ') ++i;
    if (i == start) break;
    const std::string_view word = answer.substr(start, i - start);
    std::string escaped(1, ' ');
    append_json_escaped(escaped, word);
    request.answer_escaped.push_back(std::move(escaped));
    request.answer_ids.push_back(SimTokenizer::piece_id(word));
  }
}

void ChunkFormatter::append_token_ids(std::string& out, const StreamRequest& request, int64_t from, int64_t to,
                                      bool eos) const {
  out.append(R"(,"token_ids":[)");
  for (int64_t i = from; i < to; ++i) {
    if (i > from) out.push_back(',');
    const bool answered = i < static_cast<int64_t>(request.answer_ids.size());
    append_int(out, eos && i == to - 1 ? SimTokenizer::kEosId
                    : answered         ? request.answer_ids[static_cast<size_t>(i)]
                                       : vocabulary_.id(request.text_seed, i));
  }
  out.push_back(']');
}

void ChunkFormatter::append_token_event(std::string& out, const StreamRequest& request, int64_t from, int64_t to,
                                        FinishKind finish, bool eos) const {
  out.append("data: ");
  out.append(request.head);
  if (request.chat) {
    out.append(R"({"index":0,"delta":{"content":")");
    append_text(out, request, from, to, eos);
    out.append(R"("})");
  } else {
    out.append(R"({"index":0,"text":")");
    append_text(out, request, from, to, eos);
    out.push_back('"');
  }
  if (request.return_token_ids) append_token_ids(out, request, from, to, eos);
  out.append(R"(,"logprobs":null,"finish_reason":)");
  out.append(finish_reason_json(finish));
  out.append(R"(,"stop_reason":null}])");
  if (request.continuous_usage) {
    out.push_back(',');
    append_usage(out, request.prompt_tokens, to);
  }
  out.append("}\n\n");
}

void ChunkFormatter::append_role_event(std::string& out, const StreamRequest& request) const {
  out.append("data: ");
  out.append(request.head);
  out.append(R"({"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}])");
  if (request.continuous_usage) {
    out.push_back(',');
    append_usage(out, request.prompt_tokens, 0);
  }
  out.append("}\n\n");
}

void ChunkFormatter::append_usage_event(std::string& out, const StreamRequest& request, int64_t completion_tokens,
                                        int64_t cached_prompt_tokens) const {
  out.append("data: ");
  out.append(request.head);
  out.append("],");
  append_usage(out, request.prompt_tokens, completion_tokens, cached_prompt_tokens);
  out.append("}\n\n");
}

std::string ChunkFormatter::full_body(const StreamRequest& request, int64_t completion_tokens, FinishKind finish,
                                      bool eos) const {
  std::string out = request.head;
  out.reserve(out.size() + 256 + static_cast<size_t>(completion_tokens) * 8);
  if (request.chat) {
    out.append(R"({"index":0,"message":{"role":"assistant","content":")");
    append_text(out, request, 0, completion_tokens, eos);
    out.append(R"(","tool_calls":[]})");
  } else {
    out.append(R"({"index":0,"text":")");
    append_text(out, request, 0, completion_tokens, eos);
    out.push_back('"');
  }
  if (request.return_token_ids) append_token_ids(out, request, 0, completion_tokens, eos);
  out.append(R"(,"logprobs":null,"finish_reason":)");
  out.append(finish_reason_json(finish));
  out.append(R"(,"stop_reason":null}],)");
  append_usage(out, request.prompt_tokens, completion_tokens);
  out.push_back('}');
  return out;
}

}  // namespace sm::sim
