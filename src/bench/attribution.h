#pragma once
// Which machine a run's numbers belong to (docs/METRICS.md, Attribution). A server on this
// machine (--launch, the embedded engine, a URL whose host is this machine) is probed; a server
// elsewhere gets the hardware the user declared (--server-hardware FILE, --gpu NAME
// --gpu-count N), else "unknown" — and the measuring machine is then recorded as the client.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "bench/run_config.h"
#include "core/error.h"
#include "result/redact.h"
#include "result/result.h"
#include "system/target_locality.h"

namespace sm {

/// What the user declared about the server's machine (flags of `run`).
struct HardwareDeclaration {
  std::string server_hardware_path;  ///< --server-hardware FILE (written by `speedmatrix hardware --out`)
  std::string gpu;                   ///< --gpu NAME, e.g. "RTX 3090"
  std::optional<int64_t> gpu_count;  ///< --gpu-count N (needs --gpu; default 1)
};

/// The declared hardware, marked declared; std::nullopt when nothing was declared. Errors name
/// the flag: an unreadable or invalid file, --gpu-count without --gpu or below 1, both forms at
/// once. A --gpu name the calculator's catalog knows gets its full name, type and memory; other
/// names are kept as given.
Result<std::optional<HardwareInfo>> declared_hardware(const HardwareDeclaration& declaration);

/// declared_hardware, checked against the rest of `config` and stored in config.server_hardware.
/// Refused with --launch and with the embedded engine (their server runs here and is probed),
/// and with --resume (`resuming`: a resumed run keeps the hardware its result.json records).
Result<void> declare_server_hardware(RunConfig& config, const HardwareDeclaration& declaration, bool resuming);

/// Where the server of `config` runs: here with --launch or the embedded engine; not known here
/// when requests go through a proxy (--proxy, or the environment's, NO_PROXY respected);
/// otherwise by the host of `base_url` (classify_url).
TargetLocality locate_target(const RunConfig& config, std::string_view base_url, const HostLookup& lookup);

/// What a new run records about hardware.
struct Attribution {
  HardwareInfo hardware;                        ///< the server's machine: probed, declared or unknown
  std::optional<HardwareInfo> client_hardware;  ///< this machine, when it is not (known to be) the server
  std::vector<std::string> warnings;            ///< for the result's run-level warnings
};

/// Declared hardware wins (a tunnel or forwarded port can make a remote server look local);
/// otherwise a local server is this machine, probed, and a remote one is unknown.
Attribution attribute(const TargetLocality& where, const std::optional<HardwareInfo>& declared,
                      const HardwareInfo& this_machine);

/// What `run` calls once: probes this machine, takes config.target_locality (or locates the
/// target with this machine's interfaces and resolver) and config.server_hardware, and fills
/// result.hardware, result.client_hardware and result.warnings.
void attribute_hardware(RunResult& result, const RunConfig& config, std::string_view base_url);

/// A run of the built-in engine: the machine "measured" is the simulated one, so its GPUs (and the
/// engine's quantisation and backend) come from the calculator's seed setup; this machine's CPU is
/// kept. Leaves `result` alone when the catalog has no such setup.
void attribute_simulated_hardware(RunResult& result);

/// What `run` says on stderr before it starts about a server on another machine (or declared
/// hardware); empty when the server is local and nothing was declared.
/// Keeps, of a probed machine's GPUs, the server's own (`server_gpus`: indices into `machine_gpus`,
/// the GPUs as telemetry numbers them, which nvidia-smi's list follows): "8× H100" becomes the
/// one H100 a one-GPU server uses, with machine_gpu_count = 8. Nothing changes for declared or
/// unknown hardware, or where the two lists do not line up (nvidia-smi missing).
void keep_server_gpus(HardwareInfo& hardware, const std::vector<int>& server_gpus, std::span<const int> machine_gpus);

std::string attribution_note(const TargetLocality& where, const std::optional<HardwareInfo>& declared);

/// How that note is redacted before it is printed (redact_attribution): secrets always; with
/// --redact-host also the target's host, the declared machine's hostname and every address.
RedactOptions attribution_redaction(const RunConfig& config);

}  // namespace sm
