#include "result/sweep_json.h"

#include <fmt/format.h>

#include "result/json_fields.h"
#include "result/output_check_json.h"

namespace sm {

using nlohmann::json;

namespace {

using json_fields::opt;
using json_fields::read;
using json_fields::percentiles_to_json;
using json_fields::read_opt;
using json_fields::read_percentiles;


json point_to_json(const SweepPoint& p) {
  json out = {{"rate_rps", p.rate_rps},
          {"search", p.search},
          {"status", std::string(to_string(p.status))},
          {"window_s", p.window_s},
          {"requests", p.requests},
          {"completed", p.completed},
          {"failed", p.failed},
          {"offered_rps", p.offered_rps},
          {"achieved_rps", opt(p.achieved_rps)},
          {"steady_completion_rps", opt(p.steady_completion_rps)},
          {"output_tok_s", opt(p.output_tok_s)},
          {"input_tokens_mean", opt(p.input_tokens_mean)},
          {"output_tokens_mean", opt(p.output_tokens_mean)},
          {"ttft_ms", percentiles_to_json(p.ttft_ms)},
          {"tpot_ms", percentiles_to_json(p.tpot_ms)},
          {"e2e_ms", percentiles_to_json(p.e2e_ms)},
          {"send_lag_ms", percentiles_to_json(p.send_lag_ms)},
          {"queue_growth_ms", opt(p.queue_growth_ms)},
          {"in_flight_growth", opt(p.in_flight_growth)},
          {"slo_met_fraction", opt(p.slo_met_fraction)},
          {"goodput_rps", opt(p.goodput_rps)},
          {"saturated", p.saturated},
          {"saturation_reason", p.saturation_reason},
          {"error", p.error}};
  output_check_to_json(p.output_check, out);
  return out;
}

Result<SweepPoint> point_from_json(const json& j) {
  if (!j.is_object()) return fail(ErrorCode::InvalidArgument, "sweep.points: an entry is not an object");
  SweepPoint p;
  read(j, "rate_rps", p.rate_rps);
  read(j, "search", p.search);
  if (auto it = j.find("status"); it != j.end() && it->is_string()) {
    auto status = parse_cell_status(it->get<std::string>());
    if (!status) return fail(status.error().code, "sweep.points: " + status.error().message);
    p.status = *status;
  }
  read(j, "window_s", p.window_s);
  read(j, "requests", p.requests);
  read(j, "completed", p.completed);
  read(j, "failed", p.failed);
  read(j, "offered_rps", p.offered_rps);
  read_opt(j, "achieved_rps", p.achieved_rps);
  read_opt(j, "steady_completion_rps", p.steady_completion_rps);
  read_opt(j, "output_tok_s", p.output_tok_s);
  read_opt(j, "input_tokens_mean", p.input_tokens_mean);
  read_opt(j, "output_tokens_mean", p.output_tokens_mean);
  read_percentiles(j, "ttft_ms", p.ttft_ms);
  read_percentiles(j, "tpot_ms", p.tpot_ms);
  read_percentiles(j, "e2e_ms", p.e2e_ms);
  read_percentiles(j, "send_lag_ms", p.send_lag_ms);
  read_opt(j, "queue_growth_ms", p.queue_growth_ms);
  read_opt(j, "in_flight_growth", p.in_flight_growth);
  read_opt(j, "slo_met_fraction", p.slo_met_fraction);
  read_opt(j, "goodput_rps", p.goodput_rps);
  read(j, "saturated", p.saturated);
  read(j, "saturation_reason", p.saturation_reason);
  read(j, "error", p.error);
  output_check_from_json(j, p.output_check);
  return p;
}

}  // namespace

json sweep_to_json(const SweepInfo& s) {
  json points = json::array();
  for (const auto& p : s.points) points.push_back(point_to_json(p));
  return {{"arrivals", s.arrivals},
          {"rates", s.rates},
          {"input_len_mean", s.input_len_mean},
          {"input_len_sd", s.input_len_sd},
          {"output_len_mean", s.output_len_mean},
          {"output_len_sd", s.output_len_sd},
          {"window_s", s.window_s},
          {"requests_per_rate", opt(s.requests_per_rate)},
          {"slo_ttft_ms", opt(s.slo_ttft_ms)},
          {"slo_tpot_ms", opt(s.slo_tpot_ms)},
          {"slo_fraction", s.slo_fraction},
          {"saturation_rps", opt(s.saturation_rps)},
          {"max_rate_within_slo_rps", opt(s.max_rate_within_slo_rps)},
          {"points", points},
          {"skipped_rates_rps", s.skipped_rates_rps}};
}

Result<SweepInfo> sweep_from_json(const json& j) {
  try {
    if (!j.is_object()) return fail(ErrorCode::InvalidArgument, "sweep is not an object");
    SweepInfo s;
    read(j, "arrivals", s.arrivals);
    read(j, "rates", s.rates);
    read(j, "input_len_mean", s.input_len_mean);
    read(j, "input_len_sd", s.input_len_sd);
    read(j, "output_len_mean", s.output_len_mean);
    read(j, "output_len_sd", s.output_len_sd);
    read(j, "window_s", s.window_s);
    read_opt(j, "requests_per_rate", s.requests_per_rate);
    read_opt(j, "slo_ttft_ms", s.slo_ttft_ms);
    read_opt(j, "slo_tpot_ms", s.slo_tpot_ms);
    read(j, "slo_fraction", s.slo_fraction);
    read_opt(j, "saturation_rps", s.saturation_rps);
    read_opt(j, "max_rate_within_slo_rps", s.max_rate_within_slo_rps);
    if (auto it = j.find("skipped_rates_rps"); it != j.end() && it->is_array())
      for (const auto& r : *it) s.skipped_rates_rps.push_back(r.get<double>());
    if (auto it = j.find("points"); it != j.end() && it->is_array()) {
      for (const auto& pj : *it) {
        auto p = point_from_json(pj);
        if (!p) return std::unexpected(p.error());
        s.points.push_back(std::move(*p));
      }
    }
    return s;
  } catch (const json::exception& e) {
    return fail(ErrorCode::InvalidArgument, fmt::format("sweep has a field of the wrong type: {}", e.what()));
  }
}

}  // namespace sm
