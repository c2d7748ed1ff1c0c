#pragma once
// Markdown building blocks shared by the report and compare printers.
#include <string>
#include <string_view>

#include "report/report_model.h"

namespace sm::report {

/// Escapes text for a Markdown paragraph or table cell: Markdown punctuation gets a backslash,
/// '<' and '>' become entities (so "<script>" shows as text), and newlines become spaces.
std::string md_escape(std::string_view text);

/// A GitHub-flavoured pipe table; cells are escaped here.
std::string md_table(const Table& table);

/// A fenced code block whose fence is longer than any backtick run inside `code`.
std::string md_code_block(std::string_view code, std::string_view language);

}  // namespace sm::report
