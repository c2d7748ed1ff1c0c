#include "bench/stream_recording.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <fmt/format.h>

namespace sm {

// Tokens carried by one chunk. Cumulative counts (continuous usage, llama.cpp timings) are
// exact; a request reads them only when its first chunk with output carries one. A count that
// first appears later is a total, not a running count: some servers put the final usage on their
// last content chunk, and llama.cpp puts it on its finishing chunk, which has no output. Such a
// request counts one token per chunk with output, and finalize() reconciles it with that total.
int32_t StreamRecording::tokens_in(const ChunkInfo& c, int64_t tokens_so_far) {
  auto cumulative = [&](TokenSource mode, int64_t value) -> std::optional<int32_t> {
    if (!c.has_choices || value < 0) return std::nullopt;
    if (mode_ != mode) {
      const bool first_output = mode_ == TokenSource::Chunks && tokens_so_far == 0 && c.has_token;
      if (!first_output || value <= 0) return std::nullopt;
      mode_ = mode;
    }
    const int64_t d = value - last_cumulative_;
    last_cumulative_ = std::max(last_cumulative_, value);
    return static_cast<int32_t>(std::max<int64_t>(0, d));
  };
  if (auto n = cumulative(TokenSource::UsageContinuous, c.usage_completion_tokens)) return *n;
  if (auto n = cumulative(TokenSource::Timings, c.timings_predicted_n)) return *n;
  if (c.token_ids >= 0) {
    mode_ = TokenSource::TokenIds;
    return c.token_ids;
  }
  return c.has_token ? 1 : 0;
}

bool StreamRecording::on_chunk(RequestRecord& r, const ChunkInfo& c, int64_t t_ns) {
  switch (c.kind) {
    case ChunkInfo::Kind::Done:
      r.saw_done = true;
      return true;
    case ChunkInfo::Kind::Invalid:
      r.error = c.error_message;
      r.error_code = ErrorCode::Protocol;
      return false;
    case ChunkInfo::Kind::Error:
      r.error = "server error in stream: " + c.error_message;
      r.error_code = ErrorCode::Protocol;
      return false;
    case ChunkInfo::Kind::Data:
      break;
  }
  if (r.server_id.empty() && !c.id.empty()) r.server_id.assign(c.id);
  if (c.usage_prompt_tokens >= 0) r.usage_prompt_tokens = c.usage_prompt_tokens;
  if (c.usage_completion_tokens >= 0) r.usage_completion_tokens = c.usage_completion_tokens;
  if (c.timings_cache_n >= 0) r.cached_prompt_tokens = c.timings_cache_n;
  else if (c.usage_cached_tokens >= 0) r.cached_prompt_tokens = c.usage_cached_tokens;
  if (c.usage_prompt_tokens < 0 && c.timings_prompt_n >= 0 && c.timings_cache_n >= 0 && r.usage_prompt_tokens < 0)
    r.usage_prompt_tokens = c.timings_prompt_n + c.timings_cache_n;
  if (c.timings_predicted_per_second > 0) r.server_tok_s = c.timings_predicted_per_second;
  if (c.finish != FinishReason::None) r.finish = c.finish;
  const int32_t tokens = tokens_in(c, r.tokens);
  if (tokens > 0 || !c.text.empty() || !c.reasoning.empty()) {
    text_.add(c.reasoning, c.text, std::max(tokens, 0));
    if (text_.full()) checks_->submit(r.id, text_.take());
  }
  if (tokens <= 0) return true;
  r.chunks.push_back({t_ns, tokens});
  r.tokens += tokens;
  ++counted_chunks_;
  if (r.first_token_ns < 0) r.first_token_ns = t_ns;
  if (!c.reasoning.empty()) reasoning_seen_ = true;
  if (!c.text.empty() && r.first_answer_ns < 0) {
    r.first_answer_ns = t_ns;
    first_answer_chunk_ = static_cast<int64_t>(r.chunks.size()) - 1;
  }
  if (r.tokens > overrun_limit(r.max_tokens)) {
    r.error = fmt::format("server ignores max_tokens: it sent {} tokens, {} were asked for", r.tokens, r.max_tokens);
    r.error_code = ErrorCode::Protocol;
    return false;
  }
  return true;
}

void StreamRecording::finalize(RequestRecord& r) {
  r.source = mode_;
  if (r.source == TokenSource::Chunks && !r.chunks.empty()) {
    if (r.usage_completion_tokens >= 0) {
      spread_tokens(r, r.usage_completion_tokens);
      r.source = TokenSource::UsageFinal;
    } else if (r.finish == FinishReason::Length && r.max_tokens > 0 && r.tokens <= r.max_tokens) {
      spread_tokens(r, r.max_tokens);
      r.source = TokenSource::FinishLength;
    }
  }
  // Reasoning is streamed before the answer: its tokens are those of the chunks before the first
  // with answer text (all of them when no answer came), counted after the reconciliation above.
  if (reasoning_seen_) {
    const auto before = first_answer_chunk_ < 0 ? r.chunks.size() : static_cast<size_t>(first_answer_chunk_);
    int64_t tokens = 0;
    for (size_t i = 0; i < before && i < r.chunks.size(); ++i) tokens += r.chunks[i].tokens;
    r.reasoning_tokens = tokens;
  }
}

void StreamRecording::on_end(RequestRecord& r, const TransferEnd& end, int64_t t_ns) {
  r.end_ns = t_ns;
  finalize(r);
  checks_->finish(r.id, text_.take(), r.tokens);
  if (end.cancelled) {
    r.end = RequestEnd::Cut;
  } else if (!end.ok) {
    r.end = RequestEnd::Failed;
    if (r.error.empty()) {
      r.error_code = end.error_code;
      r.error = end.error;
      if (!end.error_body.empty()) r.error += ": " + end.error_body.substr(0, 500);
    }
  } else if (r.finish == FinishReason::Length && !counted_exactly(r.source)) {
    r.end = RequestEnd::Finished;
  } else if (r.finish == FinishReason::Stop || r.tokens < r.max_tokens) {
    r.end = r.tokens == 0 && r.finish == FinishReason::None ? RequestEnd::Failed : RequestEnd::EndedEarly;
    if (r.end == RequestEnd::Failed) {
      r.error_code = ErrorCode::Protocol;
      r.error = "stream ended without any output token";
    }
  } else {
    r.end = RequestEnd::Finished;
  }
}

void StreamRecording::scale_uncounted(std::span<RequestRecord* const> records,
                                      std::span<const StreamRecording> recordings) {
  int64_t reconciled_tokens = 0, reconciled_chunks = 0;
  for (size_t i = 0; i < records.size() && i < recordings.size(); ++i) {
    const RequestRecord& r = *records[i];
    if (r.source != TokenSource::UsageFinal && r.source != TokenSource::FinishLength) continue;
    reconciled_tokens += r.tokens;
    reconciled_chunks += recordings[i].counted_chunks_;
  }
  if (reconciled_chunks == 0 || reconciled_tokens == 0) return;
  const double per_chunk = static_cast<double>(reconciled_tokens) / static_cast<double>(reconciled_chunks);
  for (size_t i = 0; i < records.size() && i < recordings.size(); ++i) {
    RequestRecord& r = *records[i];
    if (r.source != TokenSource::Chunks || r.chunks.empty()) continue;
    spread_tokens(r, std::max<int64_t>(1, std::llround(static_cast<double>(recordings[i].counted_chunks_) * per_chunk)));
    r.source = TokenSource::ChunksScaled;
  }
}

}  // namespace sm
