#pragma once
// libcurl's process-wide initialisation, done once before the first handle (thread-safe).

namespace sm {

void ensure_curl_global_init();

}  // namespace sm
