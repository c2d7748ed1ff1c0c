#include "site/api_docs_page.h"

#include <algorithm>
#include <cctype>
#include <set>

#include "site/markdown.h"
#include "site/page_layout.h"
#include "site/ui_language.h"

namespace sm::site {

namespace {

using Json = nlohmann::ordered_json;

std::string str(const Json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// "#/components/schemas/RunSummary" → that schema; nullptr when it does not resolve.
const Json* resolve(const Json& doc, const Json& schema) {
  const std::string ref = str(schema, "$ref");
  if (ref.empty()) return &schema;
  if (!ref.starts_with("#/")) return nullptr;
  const Json* at = &doc;
  size_t from = 2;
  while (from <= ref.size()) {
    size_t end = ref.find('/', from);
    if (end == std::string::npos) end = ref.size();
    const std::string part = ref.substr(from, end - from);
    if (!at->is_object() || !at->contains(part)) return nullptr;
    at = &(*at)[part];
    from = end + 1;
  }
  return at;
}

std::string ref_name(const Json& schema) {
  const std::string ref = str(schema, "$ref");
  const size_t slash = ref.rfind('/');
  return slash == std::string::npos ? "" : ref.substr(slash + 1);
}

// "string", "number | null", "array of RunSummary"
std::string type_text(const Json& doc, const Json& schema) {
  if (!ref_name(schema).empty()) return ref_name(schema);
  const Json* s = resolve(doc, schema);
  if (!s || !s->is_object()) return "";
  std::string type;
  if (auto t = s->find("type"); t != s->end()) {
    if (t->is_string()) type = t->get<std::string>();
    else if (t->is_array())
      for (const auto& one : *t)
        if (one.is_string()) type += (type.empty() ? "" : " | ") + one.get<std::string>();
  }
  if (type == "array")
    if (auto items = s->find("items"); items != s->end()) type += " of " + type_text(doc, *items);
  if (auto e = s->find("enum"); e != s->end() && e->is_array()) {
    std::string values;
    for (const auto& v : *e) values += (values.empty() ? "" : ", ") + v.dump();
    type += " (" + values + ")";
  }
  return type;
}

// One row per property, nested objects and arrays of objects under "parent.name" / "name[].".
void field_rows(const Json& doc, const Json& schema, const std::string& prefix, std::set<std::string>& seen, int depth,
                std::string& out) {
  const Json* s = resolve(doc, schema);
  if (!s || !s->is_object() || depth > 4) return;
  const std::string name = ref_name(schema);
  if (!name.empty() && !seen.insert(name).second) return;  // a schema that contains itself
  if (str(*s, "type") == "array") {
    if (auto items = s->find("items"); items != s->end()) field_rows(doc, *items, prefix + "[]", seen, depth + 1, out);
  } else if (auto props = s->find("properties"); props != s->end() && props->is_object()) {
    for (const auto& [field, sub] : props->items()) {
      const std::string path = prefix.empty() ? field : prefix + "." + field;
      const Json* resolved = resolve(doc, sub);
      std::string description = str(sub, "description");
      if (description.empty() && resolved) description = str(*resolved, "description");
      out += "<tr><td class=\"l\"><code>" + esc(path) + "</code></td><td class=\"l\">" + esc(type_text(doc, sub)) +
             "</td><td class=\"l wrap\">" + markdown_inline_html(description) + "</td></tr>\n";
      field_rows(doc, sub, path, seen, depth + 1, out);
    }
  }
  if (!name.empty()) seen.erase(name);
}

std::string response_fields(const Json& doc, const Json& response) {
  auto content = response.find("content");
  if (content == response.end() || !content->is_object()) return "";
  for (const auto& [media, body] : content->items()) {
    if (media.find("json") == std::string::npos || !body.is_object() || !body.contains("schema")) continue;
    std::string rows;
    std::set<std::string> seen;
    field_rows(doc, body["schema"], "", seen, 0, rows);
    if (rows.empty()) return "";
    return "<div class=\"scroll\"><table class=\"data fields\"><thead><tr><th class=\"l\">" + esc(ui_text("api.field")) +
           "</th><th class=\"l\">" + esc(ui_text("api.type")) + "</th><th class=\"l\">" + esc(ui_text("api.meaning")) +
           "</th></tr></thead><tbody>\n" + rows + "</tbody></table></div>\n";
  }
  return "";
}

}  // namespace

std::string api_docs_body(const Json& doc) {
  const Json info = doc.value("info", Json::object());
  std::string body = "<h1>" + esc(ui_text("nav.api_docs")) + "</h1>\n<div class=\"lede markdown\">" +
                     markdown_html(str(info, "description")) + "</div>\n<p>" +
                     ui_format("api.machine_readable.html", fmt::arg("version", esc(str(doc, "openapi")))) + "</p>\n";
  auto paths = doc.find("paths");
  if (paths == doc.end() || !paths->is_object()) return body;
  for (const auto& [path, ops] : paths->items()) {
    if (!ops.is_object()) continue;
    for (const auto& [method, op] : ops.items()) {
      if (!op.is_object()) continue;
      std::string upper = method;
      std::transform(upper.begin(), upper.end(), upper.begin(), [](unsigned char c) { return std::toupper(c); });
      body += "<section class=\"endpoint\">\n<h3><span class=\"method " + esc(method) + "\">" + esc(upper) + "</span>" +
              esc(path) + "</h3>\n";
      body += "<p><strong>" + markdown_inline_html(str(op, "summary")) + "</strong></p>\n";
      if (auto d = str(op, "description"); !d.empty()) body += "<div class=\"note markdown\">" + markdown_html(d) + "</div>\n";
      if (auto ps = op.find("parameters"); ps != op.end() && ps->is_array() && !ps->empty()) {
        body += "<div class=\"scroll\"><table class=\"data fields\"><thead><tr><th class=\"l\">" + esc(ui_text("api.parameter")) +
                "</th><th class=\"l\">" + esc(ui_text("api.in")) + "</th><th class=\"l\">" + esc(ui_text("api.meaning")) +
                "</th></tr></thead><tbody>\n";
        for (const auto& p : *ps)
          body += "<tr><td class=\"l\"><code>" + esc(str(p, "name")) + "</code></td><td class=\"l\">" + esc(str(p, "in")) +
                  "</td><td class=\"l wrap\">" + markdown_inline_html(str(p, "description")) + "</td></tr>\n";
        body += "</tbody></table></div>\n";
      }
      if (auto rb = op.find("requestBody"); rb != op.end() && rb->is_object())
        body += "<p><strong>" + esc(ui_text("api.body")) + "</strong> " + markdown_inline_html(str(*rb, "description")) +
                "</p>\n";
      if (auto rs = op.find("responses"); rs != op.end() && rs->is_object()) {
        body += "<dl class=\"kv responses\">";
        for (const auto& [code, response] : rs->items()) {
          body += "<dt><code>" + esc(code) + "</code></dt><dd>" + markdown_inline_html(str(response, "description"));
          if (code.starts_with("2")) {
            const std::string fields = response_fields(doc, response);
            if (!fields.empty())
              body += "<details class=\"fields\" id=\"fields-" + esc(method) + "-" + esc(path) + "-" + esc(code) +
                      "\" open><summary>" + esc(ui_text("api.response_fields")) + "</summary>" + fields + "</details>";
          }
          body += "</dd>";
        }
        body += "</dl>\n";
      }
      body += "</section>\n";
    }
  }
  return body;
}

}  // namespace sm::site
