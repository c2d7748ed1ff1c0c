#pragma once
// Run and compare pages show a huge run a page of cells at a time, so one request never renders
// thousands of cells: the decode matrix is cut between context rows (whole rows, at least one a
// page) and the prefill rows in blocks of the same size. `?cells=N` picks the page (1-based).
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "result/result.h"

namespace sm::site {

/// Decode cells (of each run) and prefill rows a page shows at most, unless one context row alone has more.
constexpr int64_t kCellsPerPage = 240;

/// The decode contexts each page shows, over the union of `runs`' cells (sorted, each page's
/// rows holding at most `cells_per_page` cells of any one run, and at least one row). At least
/// one page, maybe empty.
std::vector<std::vector<int64_t>> decode_context_pages(const std::vector<const RunResult*>& runs,
                                                       int64_t cells_per_page = kCellsPerPage);

/// Pages of `runs` in all: the decode pages or the prefill blocks, whichever are more.
int64_t cell_page_count(const std::vector<const RunResult*>& runs, int64_t cells_per_page = kCellsPerPage);

/// `run` cut to page `page` (1-based) of `pages`: the decode cells of its contexts, the
/// page's block of prefill rows, and the settings' lists to match.
RunResult cell_page_of(const RunResult& run, const std::vector<std::vector<int64_t>>& pages, int64_t page,
                       int64_t cells_per_page = kCellsPerPage);

/// "Cells page 2 of 5 (contexts 16K–48K) · ← Previous · Next →" with links `base` + "cells=N"
/// (`base` ends with '?' or '&'); "" when there is one page.
std::string cell_pager(std::string_view base, const std::vector<std::vector<int64_t>>& pages, int64_t page,
                       int64_t page_count);

}  // namespace sm::site
