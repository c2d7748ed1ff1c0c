#include "sim/request_parser.h"

#include <fmt/format.h>

#include "sim/kv_block_pool.h"
#include "sim/sim_tokenizer.h"

namespace sm::sim {

namespace {

using simdjson::dom::array;
using simdjson::dom::element;
using simdjson::dom::element_type;
using simdjson::dom::object;

enum class Field { Absent, Ok, Wrong };

// simdjson's value_unsafe() on a temporary result returns a reference into that temporary:
// range-for loops must iterate a copy of the handle.
array as_array(element e) {
  array a;
  if (e.get_array().get(a) != simdjson::SUCCESS) return {};
  return a;
}

// An optional member; JSON null counts as absent (as pydantic's Optional fields).
Field member(object o, std::string_view key, element& out) {
  if (o[key].get(out) != simdjson::SUCCESS) return Field::Absent;
  return out.type() == element_type::NULL_VALUE ? Field::Absent : Field::Ok;
}

Field get_bool(object o, std::string_view key, bool& out) {
  element e;
  if (member(o, key, e) == Field::Absent) return Field::Absent;
  if (e.type() != element_type::BOOL) return Field::Wrong;
  out = e.get_bool().value_unsafe();
  return Field::Ok;
}

// Integers; a float with an integral value (16.0) is accepted as pydantic does.
bool as_int(element e, int64_t& out) {
  switch (e.type()) {
    case element_type::INT64: out = e.get_int64().value_unsafe(); return true;
    case element_type::UINT64: {
      uint64_t u = e.get_uint64().value_unsafe();
      if (u > static_cast<uint64_t>(INT64_MAX)) return false;
      out = static_cast<int64_t>(u);
      return true;
    }
    case element_type::DOUBLE: {
      double d = e.get_double().value_unsafe();
      if (d != static_cast<double>(static_cast<int64_t>(d))) return false;
      out = static_cast<int64_t>(d);
      return true;
    }
    default: return false;
  }
}

Field get_int(object o, std::string_view key, int64_t& out) {
  element e;
  if (member(o, key, e) == Field::Absent) return Field::Absent;
  return as_int(e, out) ? Field::Ok : Field::Wrong;
}

ApiError type_error(std::string_view field, std::string_view what) {
  return ApiError::bad_request(fmt::format("{}: Input should be {}", field, what), std::string(field));
}

uint64_t hash_tokens(const std::vector<int32_t>& tokens) {
  uint64_t h = 1469598103934665603ull;
  for (int32_t t : tokens) h = (h ^ static_cast<uint32_t>(t)) * 1099511628211ull;
  h ^= h >> 29;
  h *= 0xbf58476d1ce4e5b9ull;
  return h ^ (h >> 32);
}

}  // namespace

std::expected<object, ApiError> RequestParser::parse_object(std::string_view body) {
  padded_.assign(body);
  padded_.append(simdjson::SIMDJSON_PADDING, '\0');
  element root;
  auto err = parser_.parse(padded_.data(), body.size(), false).get(root);
  if (err != simdjson::SUCCESS)
    return std::unexpected(ApiError::bad_request(fmt::format("invalid JSON body: {}", simdjson::error_message(err))));
  if (root.type() != element_type::OBJECT)
    return std::unexpected(ApiError::bad_request("the request body must be a JSON object"));
  return root.get_object().value_unsafe();
}

std::expected<void, ApiError> RequestParser::read_prompt(element prompt) {
  // A one-element list is the same prompt; longer lists are batches, which the simulator does
  // not serve.
  if (prompt.type() == element_type::ARRAY) {
    array a = prompt.get_array().value_unsafe();
    size_t n = a.size();
    if (n == 0) return std::unexpected(ApiError::bad_request("The decoder prompt cannot be empty", "prompt"));
    element first = a.at(0).value_unsafe();
    if (first.type() == element_type::STRING || first.type() == element_type::ARRAY) {
      if (n > 1)
        return std::unexpected(ApiError::bad_request("the simulated engine serves one prompt per request", "prompt"));
      return read_prompt(first);
    }
    tokens_.reserve(n);
    for (element e : a) {
      int64_t id;
      if (!as_int(e, id)) return std::unexpected(type_error("prompt", "a string or a list of token ids"));
      if (id < 0 || id >= SimTokenizer::kVocabSize)
        return std::unexpected(ApiError::bad_request(fmt::format("Token id {} is out of vocabulary", id), "prompt"));
      tokens_.push_back(static_cast<int32_t>(id));
    }
    return {};
  }
  if (prompt.type() != element_type::STRING)
    return std::unexpected(type_error("prompt", "a string or a list of token ids"));
  const std::string_view text = prompt.get_string().value_unsafe();
  segments_.push_back({text, static_cast<int64_t>(tokens_.size())});
  SimTokenizer::encode(text, tokens_);
  return {};
}

std::expected<void, ApiError> RequestParser::read_messages(element messages, bool add_generation_prompt) {
  if (messages.type() != element_type::ARRAY) return std::unexpected(type_error("messages", "a valid list"));
  for (element m : as_array(messages)) {
    if (m.type() != element_type::OBJECT) return std::unexpected(type_error("messages", "a list of objects"));
    object msg = m.get_object().value_unsafe();
    std::string_view role;
    if (msg["role"].get_string().get(role) != simdjson::SUCCESS)
      return std::unexpected(ApiError::bad_request("messages: each message needs a string 'role'", "messages"));
    SimTokenizer::begin_message(role, tokens_);
    element content;
    if (member(msg, "content", content) == Field::Ok) {
      if (content.type() == element_type::STRING) {
        const std::string_view text = content.get_string().value_unsafe();
        segments_.push_back({text, static_cast<int64_t>(tokens_.size())});
        SimTokenizer::encode(text, tokens_);
      } else if (content.type() == element_type::ARRAY) {
        for (element part : as_array(content)) {
          std::string_view type, text;
          if (part.type() != element_type::OBJECT || part["type"].get_string().get(type) != simdjson::SUCCESS)
            return std::unexpected(type_error("messages.content", "a string or a list of content parts"));
          if (type != "text")
            return std::unexpected(ApiError::bad_request(
                fmt::format("the simulated engine accepts text content only, not '{}'", type), "messages"));
          if (part["text"].get_string().get(text) != simdjson::SUCCESS)
            return std::unexpected(type_error("messages.content.text", "a valid string"));
          segments_.push_back({text, static_cast<int64_t>(tokens_.size())});
          SimTokenizer::encode(text, tokens_);
        }
      } else {
        return std::unexpected(type_error("messages.content", "a string or a list of content parts"));
      }
    }
    SimTokenizer::end_message(tokens_);
  }
  if (add_generation_prompt) SimTokenizer::generation_prompt(tokens_);
  return {};
}

std::expected<GenerationRequest, ApiError> RequestParser::parse_generation(std::string_view body, bool chat,
                                                                            const ModelLimits& limits) {
  auto root = parse_object(body);
  if (!root) return std::unexpected(root.error());
  object o = *root;
  GenerationRequest req;

  element e;
  if (member(o, "model", e) == Field::Ok) {
    std::string_view model;
    if (e.get_string().get(model) != simdjson::SUCCESS) return std::unexpected(type_error("model", "a valid string"));
    if (model != limits.model_id && (limits.model_alias.empty() || model != limits.model_alias))
      return std::unexpected(ApiError::not_found(fmt::format("The model `{}` does not exist.", model), "model"));
  }

  tokens_.clear();
  segments_.clear();
  if (chat) {
    if (member(o, "messages", e) == Field::Absent)
      return std::unexpected(ApiError::bad_request("messages: Field required", "messages"));
    bool add_generation_prompt = true;
    if (get_bool(o, "add_generation_prompt", add_generation_prompt) == Field::Wrong)
      return std::unexpected(type_error("add_generation_prompt", "a valid boolean"));
    if (auto ok = read_messages(e, add_generation_prompt); !ok) return std::unexpected(ok.error());
  } else {
    if (member(o, "prompt", e) == Field::Absent)
      return std::unexpected(ApiError::bad_request("prompt: Field required", "prompt"));
    if (auto ok = read_prompt(e); !ok) return std::unexpected(ok.error());
  }
  const int64_t prompt_tokens = static_cast<int64_t>(tokens_.size());
  if (prompt_tokens == 0) return std::unexpected(ApiError::bad_request("The decoder prompt cannot be empty", "prompt"));

  int64_t n = 1;
  if (get_int(o, "n", n) == Field::Wrong) return std::unexpected(type_error("n", "a valid integer"));
  if (n != 1) return std::unexpected(ApiError::bad_request("the simulated engine serves n=1 only", "n"));

  int64_t max_tokens = -1;
  Field got = Field::Absent;
  if (chat) {
    got = get_int(o, "max_completion_tokens", max_tokens);
    if (got == Field::Wrong) return std::unexpected(type_error("max_completion_tokens", "a valid integer"));
  }
  if (got == Field::Absent) {
    got = get_int(o, "max_tokens", max_tokens);
    if (got == Field::Wrong) return std::unexpected(type_error("max_tokens", "a valid integer"));
  }
  if (prompt_tokens >= limits.max_model_len)
    return std::unexpected(ApiError::bad_request(fmt::format(
        "This model's maximum context length is {} tokens. However, your request has {} input tokens. "
        "Please reduce the length of the input messages.",
        limits.max_model_len, prompt_tokens)));
  if (got == Field::Absent) {
    max_tokens = limits.max_model_len - prompt_tokens;  // vLLM's default: the rest of the context
  } else {
    if (max_tokens < 1)
      return std::unexpected(ApiError::bad_request(fmt::format("max_tokens must be at least 1, got {}.", max_tokens),
                                                   chat ? "max_completion_tokens" : "max_tokens"));
    if (prompt_tokens + max_tokens > limits.max_model_len)
      return std::unexpected(ApiError::bad_request(fmt::format(
          "'max_tokens' or 'max_completion_tokens' is too large: {}. This model's maximum context length is {} "
          "tokens and your request has {} input tokens ({} > {} - {}).",
          max_tokens, limits.max_model_len, prompt_tokens, max_tokens, limits.max_model_len, prompt_tokens)));
  }
  int64_t min_tokens = 0;
  if (get_int(o, "min_tokens", min_tokens) == Field::Wrong) return std::unexpected(type_error("min_tokens", "a valid integer"));
  if (min_tokens < 0)
    return std::unexpected(ApiError::bad_request(fmt::format("min_tokens must be greater than or equal to 0, got {}.", min_tokens), "min_tokens"));
  if (min_tokens > max_tokens)
    return std::unexpected(ApiError::bad_request(
        fmt::format("min_tokens must be less than or equal to max_tokens={}, got {}.", max_tokens, min_tokens), "min_tokens"));
  bool ignore_eos = false;
  if (get_bool(o, "ignore_eos", ignore_eos) == Field::Wrong) return std::unexpected(type_error("ignore_eos", "a valid boolean"));
  if (get_bool(o, "stream", req.stream) == Field::Wrong) return std::unexpected(type_error("stream", "a valid boolean"));
  if (get_bool(o, "return_token_ids", req.return_token_ids) == Field::Wrong)
    return std::unexpected(type_error("return_token_ids", "a valid boolean"));
  if (member(o, "stream_options", e) == Field::Ok) {
    if (e.type() != element_type::OBJECT) return std::unexpected(type_error("stream_options", "a valid dictionary"));
    if (!req.stream)
      return std::unexpected(ApiError::bad_request("Stream options can only be defined when `stream=True`.", "stream_options"));
    object so = e.get_object().value_unsafe();
    if (get_bool(so, "include_usage", req.include_usage) == Field::Wrong)
      return std::unexpected(type_error("stream_options.include_usage", "a valid boolean"));
    if (get_bool(so, "continuous_usage_stats", req.continuous_usage) == Field::Wrong)
      return std::unexpected(type_error("stream_options.continuous_usage_stats", "a valid boolean"));
  }
  std::string_view salt;
  if (member(o, "cache_salt", e) == Field::Ok) {
    if (e.get_string().get(salt) != simdjson::SUCCESS) return std::unexpected(type_error("cache_salt", "a valid string"));
    if (salt.empty()) return std::unexpected(ApiError::bad_request("Parameter 'cache_salt' must be a non-empty string if provided.", "cache_salt"));
  }

  req.text_seed = hash_tokens(tokens_);
  req.spec.prompt_tokens = prompt_tokens;
  req.spec.max_tokens = max_tokens;
  req.spec.min_tokens = min_tokens;
  req.spec.ignore_eos = ignore_eos;
  const int64_t span = limits.natural_length_max - limits.natural_length_min;
  req.spec.natural_length =
      limits.natural_length_min + (span > 0 ? static_cast<int64_t>(req.text_seed % static_cast<uint64_t>(span)) : 0);
  // A retrieval question is answered in one sentence, then EOS (unless EOS is ignored).
  req.answer = retrieval_answer(segments_, prompt_tokens, limits.attention_window, req.text_seed);
  if (!req.answer.empty()) req.spec.natural_length = SimTokenizer::count(req.answer) + 1;
  req.spec.prompt_block_hashes.reserve(tokens_.size() / static_cast<size_t>(limits.block_size));
  KvBlockPool::chain_hashes(tokens_, limits.block_size, salt, req.spec.prompt_block_hashes);
  return req;
}

std::expected<const std::vector<int32_t>*, ApiError> RequestParser::parse_tokenize(std::string_view body,
                                                                                    const ModelLimits& limits) {
  auto root = parse_object(body);
  if (!root) return std::unexpected(root.error());
  object o = *root;
  element e;
  if (member(o, "model", e) == Field::Ok) {
    std::string_view model;
    if (e.get_string().get(model) != simdjson::SUCCESS) return std::unexpected(type_error("model", "a valid string"));
    if (model != limits.model_id && (limits.model_alias.empty() || model != limits.model_alias))
      return std::unexpected(ApiError::not_found(fmt::format("The model `{}` does not exist.", model), "model"));
  }
  tokens_.clear();
  segments_.clear();
  if (member(o, "messages", e) == Field::Ok) {
    bool add_generation_prompt = true;
    if (get_bool(o, "add_generation_prompt", add_generation_prompt) == Field::Wrong)
      return std::unexpected(type_error("add_generation_prompt", "a valid boolean"));
    if (auto ok = read_messages(e, add_generation_prompt); !ok) return std::unexpected(ok.error());
  } else if (member(o, "prompt", e) == Field::Ok) {
    if (e.type() == element_type::STRING) {
      SimTokenizer::encode(e.get_string().value_unsafe(), tokens_);
    } else if (auto ok = read_prompt(e); !ok) {
      return std::unexpected(ok.error());
    }
  } else {
    return std::unexpected(ApiError::bad_request("either 'prompt' or 'messages' is required"));
  }
  return &tokens_;
}

std::expected<std::vector<int32_t>, ApiError> RequestParser::parse_detokenize(std::string_view body) {
  auto root = parse_object(body);
  if (!root) return std::unexpected(root.error());
  element e;
  if (member(*root, "tokens", e) != Field::Ok || e.type() != element_type::ARRAY)
    return std::unexpected(type_error("tokens", "a valid list"));
  std::vector<int32_t> out;
  for (element t : as_array(e)) {
    int64_t id;
    if (!as_int(t, id)) return std::unexpected(type_error("tokens", "a list of integers"));
    if (id < 0 || id >= SimTokenizer::kVocabSize)
      return std::unexpected(ApiError::bad_request(fmt::format("Token id {} is out of vocabulary", id), "tokens"));
    out.push_back(static_cast<int32_t>(id));
  }
  return out;
}

}  // namespace sm::sim
