#pragma once
// Every prefill row and decode cell of a result carries one of these.
#include <cstdint>
#include <string_view>

#include "core/error.h"

namespace sm {

/// Status of a prefill row or decode cell. Planning assigns Valid/OverCapacity/BeyondModel;
/// running can turn Valid into Error or Interrupted.
enum class CellStatus : uint8_t {
  Valid,         ///< runs (or ran) and its numbers hold
  OverCapacity,  ///< not run: concurrency × (context + max output) > KV capacity
  BeyondModel,   ///< not run: context + max output > the model's context length ("beyond_model";
                 ///< files before profiles said "too_long", still read)
  Error,         ///< ran and failed; the reason is kept
  Interrupted,   ///< stopped by Ctrl-C while running; its numbers are partial
  Pending,       ///< planned as valid but not measured yet (a resumable run)
};

std::string_view to_string(CellStatus status);
Result<CellStatus> parse_cell_status(std::string_view text);

}  // namespace sm
