#include "site/cell_pages.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "core/units.h"
#include "site/page_layout.h"
#include "site/ui_language.h"

namespace sm::site {

std::vector<std::vector<int64_t>> decode_context_pages(const std::vector<const RunResult*>& runs,
                                                       int64_t cells_per_page) {
  // Cells per context row, the largest over the runs.
  std::map<int64_t, int64_t> row_cells;
  for (const RunResult* r : runs) {
    std::map<int64_t, int64_t> mine;
    for (const DecodeCell& c : r->decode) ++mine[c.context];
    for (const auto& [context, n] : mine) row_cells[context] = std::max(row_cells[context], n);
  }
  std::vector<std::vector<int64_t>> pages(1);
  int64_t on_page = 0;
  for (const auto& [context, n] : row_cells) {
    if (!pages.back().empty() && on_page + n > cells_per_page) {
      pages.emplace_back();
      on_page = 0;
    }
    pages.back().push_back(context);
    on_page += n;
  }
  return pages;
}

int64_t cell_page_count(const std::vector<const RunResult*>& runs, int64_t cells_per_page) {
  size_t prefill = 0;
  for (const RunResult* r : runs) prefill = std::max(prefill, r->prefill.size());
  const auto prefill_pages = static_cast<int64_t>((prefill + cells_per_page - 1) / cells_per_page);
  return std::max<int64_t>({1, static_cast<int64_t>(decode_context_pages(runs, cells_per_page).size()), prefill_pages});
}

RunResult cell_page_of(const RunResult& run, const std::vector<std::vector<int64_t>>& pages, int64_t page,
                       int64_t cells_per_page) {
  RunResult out = run;
  const size_t index = static_cast<size_t>(std::max<int64_t>(page, 1) - 1);
  const std::set<int64_t> contexts = index < pages.size() ? std::set<int64_t>(pages[index].begin(), pages[index].end())
                                                          : std::set<int64_t>();
  std::erase_if(out.decode, [&](const DecodeCell& c) { return !contexts.contains(c.context); });
  std::erase_if(out.settings.contexts, [&](int64_t c) { return !contexts.contains(c); });
  const size_t first = index * static_cast<size_t>(cells_per_page);
  if (first >= out.prefill.size()) {
    out.prefill.clear();
  } else {
    const size_t last = std::min(out.prefill.size(), first + static_cast<size_t>(cells_per_page));
    out.prefill = std::vector<PrefillRow>(run.prefill.begin() + static_cast<std::ptrdiff_t>(first),
                                          run.prefill.begin() + static_cast<std::ptrdiff_t>(last));
  }
  std::set<int64_t> prefill_contexts;
  for (const PrefillRow& p : out.prefill) prefill_contexts.insert(p.context);
  std::erase_if(out.settings.prefill_contexts, [&](int64_t c) { return !prefill_contexts.contains(c); });
  return out;
}

std::string cell_pager(std::string_view base, const std::vector<std::vector<int64_t>>& pages, int64_t page,
                       int64_t page_count) {
  if (page_count <= 1) return "";
  std::string out = "<div class=\"pager\" id=\"cell-pager\"><span>" +
                    esc(ui_format("cells.page", ui_number(page), ui_number(page_count)));
  const size_t index = static_cast<size_t>(page - 1);
  if (index < pages.size() && !pages[index].empty())
    out += esc(ui_format("cells.contexts", format_tokens(pages[index].front()), format_tokens(pages[index].back())));
  out += "</span>";
  if (page > 1) out += fmt::format("<a href=\"{}cells={}\">{}</a>", esc(base), page - 1, esc(ui_text("cells.previous")));
  if (page < page_count) out += fmt::format("<a href=\"{}cells={}\">{}</a>", esc(base), page + 1, esc(ui_text("cells.next")));
  out += "</div>\n";
  return out;
}

}  // namespace sm::site
