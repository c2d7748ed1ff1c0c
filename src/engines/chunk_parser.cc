#include "engines/chunk_parser.h"

#include <cstring>

namespace sm {

namespace {

using simdjson::dom::element;
using simdjson::dom::element_type;
using simdjson::dom::object;

FinishReason finish_from(std::string_view s) {
  if (s == "length") return FinishReason::Length;
  if (s == "stop" || s == "eos" || s == "eos_token" || s == "stop_sequence") return FinishReason::Stop;
  return FinishReason::Other;
}

// An integer some servers send as a float ("12.0"); -1 when absent or not a number.
int64_t read_count(element v) {
  switch (v.type()) {
    case element_type::INT64: return v.get_int64().value_unsafe();
    case element_type::UINT64: return static_cast<int64_t>(v.get_uint64().value_unsafe());
    case element_type::DOUBLE: {
      double d = v.get_double().value_unsafe();
      // Out-of-range (or NaN) doubles cannot be converted: casting them is undefined behaviour.
      if (!(d >= 0 && d < 9.0e18)) return -1;
      return static_cast<int64_t>(d);
    }
    default: return -1;
  }
}

// simdjson's value_unsafe() on a temporary result returns a reference into that temporary:
// copy the array/object handle out before iterating (they are cheap tape references).
simdjson::dom::object as_object(element v) {
  simdjson::dom::object o;
  if (v.get_object().get(o) != simdjson::SUCCESS) return {};
  return o;
}
simdjson::dom::array as_array(element v) {
  simdjson::dom::array a;
  if (v.get_array().get(a) != simdjson::SUCCESS) return {};
  return a;
}

bool nonempty_string(element v) {
  return v.type() == element_type::STRING && v.get_string_length().value_unsafe() > 0;
}

// Keeps a string member's value in `out` (the first non-empty one of its kind).
void keep_text(element v, std::string_view& out) {
  if (out.empty() && v.type() == element_type::STRING) out = v.get_string().value_unsafe();
}

void parse_choice(object choice, ChunkInfo& out) {
  for (auto [key, value] : choice) {
    if (key == "text" || key == "content") {
      if (nonempty_string(value)) out.has_token = true;
      keep_text(value, out.text);
    } else if (key == "delta" || key == "message") {
      if (value.type() != element_type::OBJECT) continue;
      for (auto [dkey, dvalue] : as_object(value)) {
        if (dkey == "content" || dkey == "reasoning_content" || dkey == "reasoning") {
          if (nonempty_string(dvalue)) out.has_token = true;
          keep_text(dvalue, dkey == "content" ? out.text : out.reasoning);
        } else if (dkey == "tool_calls" && dvalue.type() == element_type::ARRAY) {
          out.has_token = true;
        }
      }
    } else if (key == "finish_reason") {
      if (value.type() == element_type::STRING) out.finish = finish_from(value.get_string().value_unsafe());
    } else if (key == "token_ids") {
      if (value.type() != element_type::ARRAY) continue;
      size_t count = as_array(value).size();
      out.token_ids = static_cast<int32_t>(count);
      if (count > 0) out.has_token = true;
    }
  }
}

void parse_root(object root, ChunkInfo& out) {
  for (auto [key, value] : root) {
    const element_type t = value.type();
    if (key == "choices" && t == element_type::ARRAY) {
      bool first = true;
      for (element c : as_array(value)) {
        if (c.type() != element_type::OBJECT) continue;
        out.has_choices = true;
        if (first) parse_choice(as_object(c), out);
        first = false;
      }
    } else if (key == "usage" && t == element_type::OBJECT) {
      for (auto [ukey, uvalue] : as_object(value)) {
        if (ukey == "prompt_tokens") out.usage_prompt_tokens = read_count(uvalue);
        else if (ukey == "completion_tokens") out.usage_completion_tokens = read_count(uvalue);
        else if (ukey == "prompt_tokens_details" && uvalue.type() == element_type::OBJECT) {
          for (auto [dkey, dvalue] : as_object(uvalue))
            if (dkey == "cached_tokens") out.usage_cached_tokens = read_count(dvalue);
        }
      }
    } else if (key == "timings" && t == element_type::OBJECT) {
      for (auto [tkey, tvalue] : as_object(value)) {
        if (tkey == "predicted_n") out.timings_predicted_n = read_count(tvalue);
        else if (tkey == "prompt_n") out.timings_prompt_n = read_count(tvalue);
        else if (tkey == "cache_n") out.timings_cache_n = read_count(tvalue);
        else if (tkey == "predicted_per_second") {
          double d;
          if (tvalue.get_double().get(d) == simdjson::SUCCESS) out.timings_predicted_per_second = d;
        }
      }
    } else if (key == "id" && t == element_type::STRING) {
      out.id = value.get_string().value_unsafe();
    } else if (key == "error" && t != element_type::NULL_VALUE) {
      out.kind = ChunkInfo::Kind::Error;
      if (t == element_type::STRING) {
        out.error_message.assign(value.get_string().value_unsafe());
      } else if (t == element_type::OBJECT) {
        std::string_view msg;
        if (value["message"].get_string().get(msg) == simdjson::SUCCESS) out.error_message.assign(msg);
      }
      if (out.error_message.empty()) out.error_message = "server sent an error object";
    }
  }
}

}  // namespace

ChunkParser::ChunkParser() { padded_.resize(4096 + simdjson::SIMDJSON_PADDING); }

void ChunkParser::parse(std::string_view data, ChunkInfo& out) {
  out = ChunkInfo{};
  std::string_view trimmed = data;
  while (!trimmed.empty() && (trimmed.back() == ' ' || trimmed.back() == '\t')) trimmed.remove_suffix(1);
  if (trimmed == "[DONE]") {  // the sentinel that ends OpenAI-style streams
    out.kind = ChunkInfo::Kind::Done;
    return;
  }
  if (padded_.size() < data.size() + simdjson::SIMDJSON_PADDING)
    padded_.resize(data.size() + simdjson::SIMDJSON_PADDING);
  if (!data.empty()) std::memcpy(padded_.data(), data.data(), data.size());
  std::memset(padded_.data() + data.size(), 0, simdjson::SIMDJSON_PADDING);

  element doc;
  auto error = parser_.parse(padded_.data(), data.size(), false).get(doc);
  if (!error && doc.type() != element_type::OBJECT) error = simdjson::INCORRECT_TYPE;
  if (error) {
    out.kind = ChunkInfo::Kind::Invalid;
    out.error_message = std::string("malformed stream chunk: ") + simdjson::error_message(error);
    return;
  }
  out.kind = ChunkInfo::Kind::Data;
  parse_root(as_object(doc), out);
}

}  // namespace sm
