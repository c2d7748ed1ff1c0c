#include "site/json_schema.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>

namespace sm::site {

namespace {

using nlohmann::json;

constexpr int kMaxRefDepth = 64;  // a schema whose $refs loop fails instead of recursing forever

bool has_type(const json& value, std::string_view type) {
  if (type == "object") return value.is_object();
  if (type == "array") return value.is_array();
  if (type == "string") return value.is_string();
  if (type == "boolean") return value.is_boolean();
  if (type == "null") return value.is_null();
  if (type == "number") return value.is_number();
  if (type == "integer") {
    if (value.is_number_integer()) return true;
    if (value.is_number_float()) {
      double d = value.get<double>();
      return std::isfinite(d) && d == std::floor(d);
    }
    return false;
  }
  return false;
}

bool known_type(std::string_view t) {
  return t == "object" || t == "array" || t == "string" || t == "boolean" || t == "null" || t == "number" ||
         t == "integer";
}

std::string type_name(const json& value) {
  if (value.is_number_integer()) return "integer";
  if (value.is_number()) return "number";
  return value.type_name();
}

// A short rendering of a value for an error message.
std::string preview(const json& value) {
  std::string s = value.dump();
  if (s.size() > 60) s = s.substr(0, 57) + "...";
  return s;
}

std::string join_path(const std::string& path, const std::string& key) {
  bool plain = !key.empty();
  for (char c : key)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) plain = false;
  return plain ? path + "." + key : path + "[" + json(key).dump() + "]";
}

}  // namespace

Result<JsonSchema> JsonSchema::parse(std::string_view text) {
  json root = json::parse(text, nullptr, false);
  if (root.is_discarded() || !root.is_object()) return fail(ErrorCode::Internal, "JSON schema: not a JSON object");
  JsonSchema schema;
  schema.root_ = std::make_shared<const json>(std::move(root));
  schema.patterns_ = std::make_shared<std::map<std::string, std::regex>>();
  if (auto ok = schema.check_node(*schema.root_, "#"); !ok) return std::unexpected(ok.error());
  return schema;
}

// Compiles every pattern and checks every type name and $ref once, so validate() cannot fail
// for reasons of the schema itself.
Result<void> JsonSchema::check_node(const json& s, std::string_view where) {
  if (!s.is_object()) return {};
  if (auto it = s.find("$ref"); it != s.end()) {
    if (!it->is_string() || !resolve(s)) return fail(ErrorCode::Internal, fmt::format("JSON schema {}: bad $ref", where));
  }
  if (auto it = s.find("type"); it != s.end()) {
    auto check = [&](const json& t) { return t.is_string() && known_type(t.get<std::string>()); };
    bool ok = it->is_array() ? std::all_of(it->begin(), it->end(), check) : check(*it);
    if (!ok) return fail(ErrorCode::Internal, fmt::format("JSON schema {}: unknown type {}", where, it->dump()));
  }
  if (auto it = s.find("pattern"); it != s.end() && it->is_string()) {
    try {
      patterns_->emplace(it->get<std::string>(), std::regex(it->get<std::string>(), std::regex::ECMAScript));
    } catch (const std::regex_error&) {
      return fail(ErrorCode::Internal, fmt::format("JSON schema {}: bad pattern", where));
    }
  }
  for (const char* key : {"properties", "$defs", "definitions"})
    if (auto it = s.find(key); it != s.end() && it->is_object())
      for (const auto& [name, sub] : it->items())
        if (auto ok = check_node(sub, fmt::format("{}/{}/{}", where, key, name)); !ok) return ok;
  for (const char* key : {"items", "additionalProperties"})
    if (auto it = s.find(key); it != s.end())
      if (auto ok = check_node(*it, fmt::format("{}/{}", where, key)); !ok) return ok;
  return {};
}

const json* JsonSchema::resolve(const json& s) const {
  auto it = s.find("$ref");
  if (it == s.end() || !it->is_string()) return &s;
  std::string ref = it->get<std::string>();
  if (!ref.starts_with("#/")) return nullptr;
  try {
    const json& target = root_->at(json::json_pointer(ref.substr(1)));
    return &target;
  } catch (const json::exception&) {
    return nullptr;
  }
}

Result<void> JsonSchema::validate(const json& document) const { return validate_node(*root_, document, "$", 0); }

Result<void> JsonSchema::validate_node(const json& schema_in, const json& v, const std::string& path, int depth) const {
  if (depth > kMaxRefDepth) return fail(ErrorCode::InvalidArgument, fmt::format("{}: nested too deeply", path));
  if (schema_in.is_boolean()) {
    if (schema_in.get<bool>()) return {};
    return fail(ErrorCode::InvalidArgument, fmt::format("{}: not allowed", path));
  }
  if (!schema_in.is_object()) return {};
  if (schema_in.contains("$ref")) {
    // The referenced schema applies, and so do the keywords beside "$ref" (JSON Schema 2020-12):
    // {"type": ["object", "null"], "$ref": "#/$defs/hardware"} is that object, or null.
    const json* target = resolve(schema_in);
    if (!target) return {};
    if (auto ok = validate_node(*target, v, path, depth + 1); !ok) return ok;
  }
  const json& s = schema_in;
  auto bad = [&](std::string message) { return fail(ErrorCode::InvalidArgument, path + ": " + message); };

  // JSON text cannot carry NaN or infinity, but a document built in memory can: no schema
  // admits one (a figure that is not a number would be stored as null).
  if (v.is_number_float() && !std::isfinite(v.get<double>())) return bad("not a finite number");
  if (auto it = s.find("type"); it != s.end()) {
    bool ok = false;
    std::string wanted;
    if (it->is_array()) {
      for (const auto& t : *it) {
        ok = ok || has_type(v, t.get<std::string>());
        wanted += (wanted.empty() ? "" : " or ") + t.get<std::string>();
      }
    } else {
      ok = has_type(v, it->get<std::string>());
      wanted = it->get<std::string>();
    }
    if (!ok) return bad(fmt::format("expected {}, got {} {}", wanted, type_name(v), preview(v)));
  }
  if (auto it = s.find("const"); it != s.end() && v != *it)
    return bad(fmt::format("must be {}, got {}", it->dump(), preview(v)));
  if (auto it = s.find("enum"); it != s.end() && it->is_array()) {
    if (std::find(it->begin(), it->end(), v) == it->end()) {
      std::string options;
      bool first = true;
      for (const auto& o : *it) {
        // A string option is shown bare, but the empty string as "" so it is seen.
        const bool bare = o.is_string() && !o.get_ref<const std::string&>().empty();
        options += (first ? "" : ", ") + (bare ? o.get<std::string>() : o.dump());
        first = false;
      }
      return bad(fmt::format("{} is not one of: {}", preview(v), options));
    }
  }
  if (v.is_number()) {
    const double d = v.get<double>();
    if (auto it = s.find("minimum"); it != s.end() && it->is_number() && d < it->get<double>())
      return bad(fmt::format("{} is below the minimum {}", preview(v), it->dump()));
    if (auto it = s.find("maximum"); it != s.end() && it->is_number() && d > it->get<double>())
      return bad(fmt::format("{} is above the maximum {}", preview(v), it->dump()));
    if (auto it = s.find("exclusiveMinimum"); it != s.end() && it->is_number() && d <= it->get<double>())
      return bad(fmt::format("{} must be above {}", preview(v), it->dump()));
    if (auto it = s.find("exclusiveMaximum"); it != s.end() && it->is_number() && d >= it->get<double>())
      return bad(fmt::format("{} must be below {}", preview(v), it->dump()));
  }
  if (v.is_string()) {
    const std::string& str = v.get_ref<const std::string&>();
    if (auto it = s.find("minLength"); it != s.end() && str.size() < it->get<size_t>())
      return bad(fmt::format("shorter than {} characters", it->dump()));
    if (auto it = s.find("maxLength"); it != s.end() && str.size() > it->get<size_t>())
      return bad(fmt::format("longer than {} characters", it->dump()));
    if (auto it = s.find("pattern"); it != s.end() && it->is_string()) {
      const auto& re = patterns_->at(it->get<std::string>());
      if (!std::regex_search(str, re)) return bad(fmt::format("{} does not match {}", preview(v), it->dump()));
    }
  }
  if (v.is_array()) {
    if (auto it = s.find("minItems"); it != s.end() && v.size() < it->get<size_t>())
      return bad(fmt::format("fewer than {} items", it->dump()));
    if (auto it = s.find("maxItems"); it != s.end() && v.size() > it->get<size_t>())
      return bad(fmt::format("more than {} items", it->dump()));
    if (auto it = s.find("items"); it != s.end()) {
      for (size_t i = 0; i < v.size(); ++i)
        if (auto ok = validate_node(*it, v[i], fmt::format("{}[{}]", path, i), depth + 1); !ok) return ok;
    }
  }
  if (v.is_object()) {
    if (auto it = s.find("required"); it != s.end() && it->is_array())
      for (const auto& key : *it)
        if (!v.contains(key.get<std::string>()))
          return bad(fmt::format("missing required field \"{}\"", key.get<std::string>()));
    const json* props = nullptr;
    if (auto it = s.find("properties"); it != s.end() && it->is_object()) props = &*it;
    const json* additional = nullptr;
    if (auto it = s.find("additionalProperties"); it != s.end()) additional = &*it;
    for (const auto& [key, value] : v.items()) {
      if (props) {
        if (auto p = props->find(key); p != props->end()) {
          if (auto ok = validate_node(*p, value, join_path(path, key), depth + 1); !ok) return ok;
          continue;
        }
      }
      if (additional) {
        if (additional->is_boolean() && !additional->get<bool>())
          return fail(ErrorCode::InvalidArgument, fmt::format("{}: unknown field", join_path(path, key)));
        if (auto ok = validate_node(*additional, value, join_path(path, key), depth + 1); !ok) return ok;
      }
    }
  }
  return {};
}

}  // namespace sm::site
