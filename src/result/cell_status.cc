#include "result/cell_status.h"

#include <fmt/format.h>

namespace sm {

std::string_view to_string(CellStatus status) {
  switch (status) {
    case CellStatus::Valid: return "valid";
    case CellStatus::OverCapacity: return "over_capacity";
    case CellStatus::BeyondModel: return "beyond_model";
    case CellStatus::Error: return "error";
    case CellStatus::Interrupted: return "interrupted";
    case CellStatus::Pending: return "pending";
  }
  return "unknown";
}

Result<CellStatus> parse_cell_status(std::string_view text) {
  if (text == "too_long") return CellStatus::BeyondModel;  // its name in files before profiles
  for (CellStatus s : {CellStatus::Valid, CellStatus::OverCapacity, CellStatus::BeyondModel, CellStatus::Error,
                       CellStatus::Interrupted, CellStatus::Pending}) {
    if (to_string(s) == text) return s;
  }
  return fail(ErrorCode::InvalidArgument, fmt::format("unknown cell status '{}'", text));
}

}  // namespace sm
