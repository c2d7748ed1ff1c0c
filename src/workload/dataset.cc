#include "workload/dataset.h"

#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <simdjson.h>
#include <sstream>
#include <vector>

namespace sm {

namespace {

using simdjson::dom::element;
using simdjson::dom::element_type;

constexpr std::string_view kFormats =
    "expected a JSON array (ShareGPT conversations, or prompts) or JSON Lines, each record a string or an object "
    "with \"prompt\", \"text\", \"input\", \"question\" or \"instruction\", or with \"conversations\" "
    "([{\"from\": \"human\", \"value\": ...}]) or \"messages\" ([{\"role\": \"user\", \"content\": ...}])";

std::string_view string_of(element e) {
  std::string_view s;
  if (e.get_string().get(s) != simdjson::SUCCESS) return {};
  return s;
}

// A message's text: a string, or the "text" of its parts (OpenAI's content parts).
std::string content_text(element e) {
  if (e.type() == element_type::STRING) return std::string(string_of(e));
  std::string out;
  simdjson::dom::array parts;
  if (e.get_array().get(parts) != simdjson::SUCCESS) return out;
  for (element part : parts) {
    element text;
    if (part.type() != element_type::OBJECT || part["text"].get(text) != simdjson::SUCCESS) continue;
    if (!out.empty()) out.push_back('\n');
    out.append(string_of(text));
  }
  return out;
}

bool is_user_turn(element turn) {
  for (std::string_view key : {"from", "role"}) {
    element who;
    if (turn[key].get(who) != simdjson::SUCCESS) continue;
    const std::string_view w = string_of(who);
    return w == "human" || w == "user";
  }
  return false;
}

// The user text of one record, appended to `texts`; false when the record holds none.
bool collect(element record, std::vector<std::string>& texts) {
  if (record.type() == element_type::STRING) {
    if (string_of(record).empty()) return false;
    texts.emplace_back(string_of(record));
    return true;
  }
  if (record.type() != element_type::OBJECT) return false;
  for (std::string_view key : {"conversations", "conversation", "messages"}) {
    simdjson::dom::array turns;
    if (record[key].get_array().get(turns) != simdjson::SUCCESS) continue;
    bool any = false;
    for (element turn : turns) {
      if (turn.type() != element_type::OBJECT || !is_user_turn(turn)) continue;
      element body;
      if (turn["value"].get(body) != simdjson::SUCCESS && turn["content"].get(body) != simdjson::SUCCESS) continue;
      std::string text = content_text(body);
      if (text.empty()) continue;
      texts.push_back(std::move(text));
      any = true;
    }
    return any;
  }
  for (std::string_view key : {"prompt", "text", "input", "question", "instruction"}) {
    element value;
    if (record[key].get(value) != simdjson::SUCCESS || value.type() != element_type::STRING) continue;
    if (string_of(value).empty()) return false;
    texts.emplace_back(string_of(value));
    return true;
  }
  return false;
}

}  // namespace

Result<std::shared_ptr<const PromptCorpus>> parse_dataset(std::string_view content, const std::string& name) {
  const size_t first = content.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return fail(ErrorCode::InvalidArgument, "--dataset " + name + ": the file is empty");
  if (content.substr(first).starts_with("\xEF\xBB\xBF")) content.remove_prefix(first + 3);  // a UTF-8 byte order mark
  simdjson::dom::parser parser;
  std::vector<std::string> texts;
  int64_t records = 0, skipped = 0;
  size_t kept_bytes = 0, counted = 0;  // bytes of texts[0, counted), blank-line separators included
  bool capped = false;
  auto take = [&](element record) {
    ++records;
    if (!collect(record, texts)) ++skipped;
    for (; counted < texts.size(); ++counted) kept_bytes += texts[counted].size() + 2;
    capped = kept_bytes >= kDatasetTextLimitBytes;
  };
  if (content[content.find_first_not_of(" \t\r\n")] == '[') {
    element root;
    if (auto err = parser.parse(content.data(), content.size()).get(root); err != simdjson::SUCCESS)
      return fail(ErrorCode::InvalidArgument,
                  fmt::format("--dataset {}: not valid JSON ({}); {}", name, simdjson::error_message(err), kFormats));
    simdjson::dom::array records_array;
    if (root.get_array().get(records_array) != simdjson::SUCCESS)
      return fail(ErrorCode::InvalidArgument, fmt::format("--dataset {}: not a JSON array; {}", name, kFormats));
    for (element record : records_array) {
      take(record);
      if (capped) break;
    }
  } else {
    size_t pos = 0;
    int64_t line_no = 0;
    while (pos < content.size() && !capped) {
      size_t end = content.find('\n', pos);
      if (end == std::string_view::npos) end = content.size();
      std::string_view line = content.substr(pos, end - pos);
      pos = end + 1;
      ++line_no;
      if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
      element record;
      if (auto err = parser.parse(line.data(), line.size()).get(record); err != simdjson::SUCCESS)
        return fail(ErrorCode::InvalidArgument, fmt::format("--dataset {} line {}: not valid JSON ({}); {}", name, line_no,
                                                            simdjson::error_message(err), kFormats));
      take(record);
    }
  }
  if (texts.empty())
    return fail(ErrorCode::InvalidArgument,
                fmt::format("--dataset {}: no prompt found in its {} record{}; {}", name, records, records == 1 ? "" : "s",
                            kFormats));
  auto corpus = std::make_shared<PromptCorpus>();
  corpus->source = "dataset";
  corpus->name = name;
  corpus->origin = fmt::format("{} of {} record{} read{}{}", texts.size() == 1 ? "1 prompt" : fmt::format("{} prompts", texts.size()),
                               records, records == 1 ? "" : "s", skipped > 0 ? fmt::format(", {} without a prompt", skipped) : "",
                               capped ? fmt::format(", the rest left unread past {} MB", kDatasetTextLimitBytes >> 20) : "");
  corpus->licence = "the user's own";
  corpus->texts = static_cast<int64_t>(texts.size());
  for (const auto& t : texts) {
    if (!corpus->text.empty()) corpus->text.append("\n\n");
    corpus->text.append(t);
  }
  index_corpus(*corpus);
  return std::shared_ptr<const PromptCorpus>(std::move(corpus));
}

Result<std::shared_ptr<const PromptCorpus>> load_dataset(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return fail(ErrorCode::Io, "--dataset " + path + ": cannot be read");
  std::ostringstream bytes;
  bytes << in.rdbuf();
  if (in.bad()) return fail(ErrorCode::Io, "--dataset " + path + ": read failed");
  return parse_dataset(bytes.str(), std::filesystem::path(path).filename().string());
}

}  // namespace sm
