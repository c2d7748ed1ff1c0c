#include "result/profile.h"

#include <algorithm>

namespace sm {

namespace {
Profile make_standard() {
  Profile p;
  p.id = "standard/1";
  p.name = "standard";
  p.ranked = true;
  // The seed's standard/1: prefill at 32K and 128K; decode at 1, 8, 16 requests x contexts 0,
  // 64K, 128K; the seed page's 30 s fixed window and 8,192 output tokens.
  p.matrix.prefill_contexts = {32 * kK, 128 * kK};
  p.matrix.contexts = {0, 64 * kK, 128 * kK};
  p.matrix.concurrency = {1, 8, 16};
  p.matrix.max_output_tokens = 8192;
  p.matrix.duration_s = 30;
  p.summary = "prefill 32K,128K; decode contexts 0,64K,128K x 1,8,16 requests; 30 s windows; 8,192 output tokens";
  return p;
}

Profile make_quick() {
  Profile p;
  p.id = "quick/1";
  p.name = "quick";
  p.ranked = false;  // a first look: 2 s windows are too short to rank
  p.matrix.prefill_contexts = {8 * kK, 16 * kK, 32 * kK};
  p.matrix.contexts = {0, 16 * kK, 32 * kK};
  p.matrix.concurrency = {1, 4, 16, 64};
  p.matrix.max_output_tokens = 1024;
  p.matrix.duration_s = 2;
  p.summary = "prefill 8K,16K,32K; decode contexts 0,16K,32K x 1,4,16,64 requests; 2 s windows; 1,024 output tokens";
  return p;
}
}  // namespace

const std::vector<Profile>& profiles() {
  static const std::vector<Profile> all{make_standard(), make_quick()};
  return all;
}

std::optional<Profile> find_profile(std::string_view name) {
  for (const Profile& p : profiles())
    if (p.name == name || p.id == name) return p;
  return std::nullopt;
}

std::string profile_names() {
  std::string out;
  for (const Profile& p : profiles()) {
    if (!out.empty()) out += ", ";
    out += p.name;
  }
  return out;
}

const std::vector<std::string_view>& profile_fixed_flags() {
  static const std::vector<std::string_view> flags{
      "--contexts", "--concurrency",     "--prefill-contexts", "--duration",    "--max-output",
      "--precision", "--min-window", "--precision-audit", "--requests", "--warmup-requests",
      "--temperature", "--api"};
  return flags;
}

}  // namespace sm
