#include "report/cell_format.h"

#include <gtest/gtest.h>

namespace sm::report {
namespace {

TEST(CellFormat, SeedPageFormats) {
  EXPECT_EQ(format_prompt_rate(10600.0), "10.6K");
  EXPECT_EQ(format_prompt_rate(9919.0), "9,919");
  EXPECT_EQ(format_prompt_rate(523.4), "523");
  EXPECT_EQ(format_tok_s(9919.0), "9,919.0");
  EXPECT_EQ(format_tok_s(181.7), "181.7");
  EXPECT_EQ(format_tok_s(1081.0), "1,081.0");
  EXPECT_EQ(format_latency_ms(773.0), "773 ms");
  EXPECT_EQ(format_latency_ms(1635.0), "1,635 ms");
  EXPECT_EQ(format_latency_ms(24295.0), "24,295 ms");
  EXPECT_EQ(format_latency_ms(0.84), "0.8 ms");
  EXPECT_EQ(format_gap_ms(5.5), "5.5 ms");
  EXPECT_EQ(format_gap_ms(12.0), "12.0 ms");
  EXPECT_EQ(format_active(1.0), "1.00");
  EXPECT_EQ(format_count(int64_t{5451}), "5,451");
  EXPECT_EQ(format_window_s(30.0), "30.0 s");
  EXPECT_EQ(format_duration_s(30), "30 s");
  EXPECT_EQ(format_duration_s(2.5), "2.5 s");
  EXPECT_EQ(context_label(8192), "8K context");
}

TEST(CellFormat, MissingValuesAreDashes) {
  EXPECT_EQ(format_tok_s(std::nullopt), "—");
  EXPECT_EQ(format_prompt_rate(std::nullopt), "—");
  EXPECT_EQ(format_latency_ms(std::nullopt), "—");
  EXPECT_EQ(format_gap_ms(std::nullopt), "—");
  EXPECT_EQ(format_count(std::nullopt), "—");
  EXPECT_EQ(format_active(std::nullopt), "—");
  EXPECT_EQ(format_window_s(std::nullopt), "—");
}

TEST(CellFormat, StatusesAndOthers) {
  EXPECT_EQ(status_label(CellStatus::Valid), "Valid");
  EXPECT_EQ(status_label(CellStatus::OverCapacity), "Over capacity");
  EXPECT_EQ(status_label(CellStatus::BeyondModel), "Beyond the model");
  EXPECT_EQ(status_label(CellStatus::Error), "Error");
  EXPECT_EQ(status_label(CellStatus::Interrupted), "Interrupted");
  EXPECT_EQ(status_label(CellStatus::Pending), "Pending");
  EXPECT_EQ(status_short(CellStatus::OverCapacity), "over cap");
  EXPECT_TRUE(has_numbers(CellStatus::Interrupted));
  EXPECT_FALSE(has_numbers(CellStatus::Error));
  EXPECT_EQ(format_gb(int64_t{24} << 30), "24 GB");
  EXPECT_EQ(format_gb(int64_t{8} << 29), "4.0 GB");
  EXPECT_EQ(format_ratio(1.123), "1.12×");
  EXPECT_EQ(sentence_case("fixed_duration"), "Fixed duration");
}

TEST(CellFormat, TelemetryFigures) {
  EXPECT_EQ(format_power_w(312.4), "312 W");
  EXPECT_EQ(format_power_w(1400.0), "1,400 W");
  EXPECT_EQ(format_tokens_per_joule(0.6375), "0.64");
  EXPECT_EQ(format_tokens_per_joule(2.857), "2.86");
  EXPECT_EQ(format_tokens_per_joule(9.999), "10.0");
  EXPECT_EQ(format_tokens_per_joule(13.44), "13.4");
  EXPECT_EQ(format_tokens_per_joule(1234.4), "1,234");
  EXPECT_EQ(format_clock_mhz(1695.2), "1,695 MHz");
  EXPECT_EQ(format_temp_c(71.4), "71 °C");
  EXPECT_EQ(format_percent(34.2), "34%");
  EXPECT_EQ(throttle_label("ok"), "OK");
  EXPECT_EQ(throttle_label("power_capped"), "Power capped");
  EXPECT_EQ(throttle_label("thermal"), "Thermal");
  EXPECT_EQ(throttle_label("hw_slowdown"), "Hardware slowdown");
  EXPECT_EQ(throttle_label("clocks_below_max"), "Clocks below max");
  EXPECT_EQ(throttle_label(""), "—");
  for (auto missing : {format_power_w(std::nullopt), format_tokens_per_joule(std::nullopt),
                       format_clock_mhz(std::nullopt), format_temp_c(std::nullopt), format_percent(std::nullopt)})
    EXPECT_EQ(missing, "—");
}

TEST(CellFormat, ElapsedTimeReadsAsAClockWouldSayIt) {
  EXPECT_EQ(format_elapsed_s(0.44), "0.4 s");
  EXPECT_EQ(format_elapsed_s(9.3), "9.3 s");
  EXPECT_EQ(format_elapsed_s(38.2), "38 s");
  EXPECT_EQ(format_elapsed_s(59.6), "1m00s");
  EXPECT_EQ(format_elapsed_s(1521.4), "25m21s");
  EXPECT_EQ(format_elapsed_s(3900), "1h05m");
  EXPECT_EQ(format_elapsed_s(-1), "—");
}

TEST(CellFormat, FiguresFromAnUploadAtAnyMagnitudeStayShortAndSigned) {
  for (double v : {0.0, 1e-9, 1e30, 1.7e308}) {
    for (const std::string& text :
         {format_tok_s(v), format_prompt_rate(v), format_latency_ms(v), format_gap_ms(v), format_power_w(v),
          format_tokens_per_joule(v), format_clock_mhz(v), format_temp_c(v), format_percent(v), format_elapsed_s(v),
          format_duration_s(v)}) {
      EXPECT_EQ(text.find("--"), std::string::npos) << v << " -> " << text;
      EXPECT_LE(text.size(), 20u) << v << " -> " << text;
      EXPECT_NE(text.find_first_of("0123456789"), std::string::npos) << v << " -> " << text;
    }
  }
  EXPECT_EQ(format_tokens_per_joule(1e30), "1.00e+30");
  EXPECT_EQ(format_tokens_per_joule(1e-9), "0.00");
  EXPECT_EQ(format_power_w(1e30), "1.00e+30 W");
  EXPECT_EQ(format_elapsed_s(1e30), "1.00e+30 s");
}

}  // namespace
}  // namespace sm::report
