#include "telemetry/telemetry_recorder.h"

#include <algorithm>

#include <fmt/format.h>

#include <cerrno>
#include <cstring>

namespace sm {

TelemetryRecorder::TelemetryRecorder(TelemetrySources sources, const Clock& clock, RecorderOptions options,
                                     std::function<void(const std::string&)> note)
    : sources_(std::move(sources)), clock_(clock), options_(std::move(options)), note_(std::move(note)) {
  series_.interval_s = static_cast<double>(options_.interval_ns) / 1e9;
}

TelemetryRecorder::~TelemetryRecorder() { stop(); }

void TelemetryRecorder::start(int64_t unix_ms) {
  if (sources_.gpu) gpu_info_ = sources_.gpu->static_info();
  const int64_t now_ns = clock_.now_ns();
  {
    std::lock_guard lock(data_mu_);
    series_.start_t_ns = now_ns;
    series_.start_unix_ms = unix_ms;
    if (!options_.jsonl_path.empty()) {
      file_ = std::fopen(options_.jsonl_path.c_str(), "a");
      if (!file_) {
        file_failed_ = true;
        if (note_)
          note_(fmt::format("telemetry: cannot write {}: {} (the samples are kept in memory for the cells)",
                            options_.jsonl_path, std::strerror(errno)));
      }
    }
  }
  write_line(start_line(now_ns, unix_ms, series_.interval_s));
  if (options_.sampler_thread) thread_.start(options_.interval_ns, [this] { tick(false); });
}

void TelemetryRecorder::stop() {
  thread_.stop();
  std::lock_guard lock(data_mu_);
  if (file_) {
    std::fclose(file_);
    file_ = nullptr;
  }
}

void TelemetryRecorder::sample_now() { tick(true); }

void TelemetryRecorder::tick(bool force_server) {
  std::lock_guard sample_lock(sample_mu_);
  std::vector<std::string> lines;
  if (sources_.gpu) {
    GpuSample s;
    sources_.gpu->read(scratch_);
    s.t_ns = clock_.now_ns();
    s.gpus = scratch_;
    lines.push_back(to_jsonl(s));
    std::lock_guard lock(data_mu_);
    series_.gpu.push_back(std::move(s));
  }
  if (sources_.host) {
    HostSample s{0, sources_.host->read()};
    s.t_ns = clock_.now_ns();
    lines.push_back(to_jsonl(s));
    std::lock_guard lock(data_mu_);
    series_.host.push_back(s);
  }
  if (sources_.server) {
    const int64_t now_ns = clock_.now_ns();
    // Every server_interval (a tick's jitter allowed), or whenever a sample is asked for.
    if (force_server || now_ns - last_server_ns_ >= options_.server_interval_ns - options_.interval_ns / 4) {
      auto reading = sources_.server();
      // Stamped halfway through the request: the server's state is from somewhere inside it.
      const int64_t t_ns = now_ns + (clock_.now_ns() - now_ns) / 2;
      last_server_ns_ = now_ns;
      if (reading) {
        ServerSample s{t_ns, *reading};
        lines.push_back(to_jsonl(s));
        std::lock_guard lock(data_mu_);
        series_.server.push_back(s);
      }
    }
  }
  for (const auto& line : lines) write_line(line);
}

void TelemetryRecorder::write_line(const std::string& line) {
  std::lock_guard lock(data_mu_);
  if (!file_) return;
  if (std::fputs(line.c_str(), file_) < 0 || std::fputc('\n', file_) == EOF || std::fflush(file_) != 0) {
    const int err = errno;
    std::fclose(file_);
    file_ = nullptr;
    if (!file_failed_ && note_)
      note_(fmt::format("telemetry: writing {} failed ({}); later samples are kept in memory only",
                        options_.jsonl_path, std::strerror(err)));
    file_failed_ = true;
  }
}

void TelemetryRecorder::mark(const WindowMark& window) {
  {
    std::lock_guard lock(data_mu_);
    series_.windows.push_back(window);
  }
  write_line(to_jsonl(window));
}

CellTelemetry TelemetryRecorder::summarize(int64_t begin_ns, int64_t end_ns, std::optional<int64_t> tokens,
                                           bool gpu_figures) const {
  std::lock_guard lock(data_mu_);
  return summarize_window(series_, begin_ns, end_ns, tokens,
                          {.gpu = gpu_figures, .gpus = gpu_info_, .server_gpus = options_.server_gpus});
}

LiveTelemetry TelemetryRecorder::live() const {
  std::lock_guard lock(data_mu_);
  LiveTelemetry l;
  if (series_.gpu.empty()) return l;
  double clock_sum = 0;
  int clocks = 0;
  const auto& counted = options_.server_gpus;
  for (const auto& g : series_.gpu.back().gpus) {
    if (!counted.empty() && std::find(counted.begin(), counted.end(), g.index) == counted.end()) continue;
    if (g.power_w) l.gpu_power_w = l.gpu_power_w.value_or(0) + *g.power_w;
    if (g.sm_clock_mhz) {
      clock_sum += *g.sm_clock_mhz;
      ++clocks;
    }
  }
  if (clocks > 0) l.gpu_sm_clock_mhz = clock_sum / clocks;
  return l;
}

std::vector<GpuStaticInfo> TelemetryRecorder::gpus() const { return gpu_info_; }

std::vector<GpuReading> TelemetryRecorder::first_gpu_reading() const {
  std::lock_guard lock(data_mu_);
  return series_.gpu.empty() ? std::vector<GpuReading>{} : series_.gpu.front().gpus;
}

TelemetrySeries TelemetryRecorder::series() const {
  std::lock_guard lock(data_mu_);
  return series_;
}

}  // namespace sm
