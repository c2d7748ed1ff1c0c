#pragma once
// The output checks (metrics/output_check.h) off the measuring thread. The measuring thread only
// copies each chunk's text into its stream's OutputBatch (a memcpy into a buffer reserved once:
// no allocation per token); a full batch (kOutputBatchBytes) and a stream's last batch go to the
// OutputCheckWorker, whose own thread runs every stream's OutputCheck. Memory is bounded: a
// stream holds at most one batch, the worker one OutputCheck (the loop detector's tail) per
// unfinished stream, and the queue at most kOutputQueueBytes of batches it has not reached yet — the
// checks run at tens of millions of chunks a second (bench/output_check_bench), far above any stream rate.
// drain() waits for the queue, outside any measuring window (a cell's end, a sweep rate's end).
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <vector>

#include "metrics/output_check.h"

namespace sm {

/// Text a stream collects before it is handed to the worker.
inline constexpr size_t kOutputBatchBytes = 16 * 1024;
/// Batches waiting for the worker, at most: past it a hand-off waits for room (a worker starved of
/// CPU slows the client rather than growing without bound; it checks far faster than any client
/// receives, so a run never gets near it).
inline constexpr size_t kOutputQueueBytes = 64 * 1024 * 1024;

/// One stream's text since its last hand-off: each chunk as (tokens, reasoning bytes, text
/// bytes) then the bytes themselves.
class OutputBatch {
 public:
  void add(std::string_view reasoning, std::string_view text, int64_t tokens);
  bool full() const { return bytes_.size() >= kOutputBatchBytes; }
  bool empty() const { return bytes_.empty(); }
  /// The batch so far; the stream starts a fresh one (reserved at its next chunk).
  std::string take() {
    std::string out;
    out.swap(bytes_);
    return out;
  }
  /// Replays the batch's chunks into `check`.
  static void replay(std::string_view batch, OutputCheck& check);

 private:
  std::string bytes_;
};

/// What the checks found in one finished stream.
struct OutputVerdict {
  uint64_t stream = 0;
  OutputFlaw flaw = OutputFlaw::None;
  std::string excerpt;
};

class OutputCheckWorker {
 public:
  OutputCheckWorker();
  ~OutputCheckWorker();
  OutputCheckWorker(const OutputCheckWorker&) = delete;
  OutputCheckWorker& operator=(const OutputCheckWorker&) = delete;

  /// More of a stream's text (a full batch).
  void submit(uint64_t stream, std::string batch);
  /// A stream's last text, and its output tokens in all (the reconciled count): a verdict is owed.
  void finish(uint64_t stream, std::string batch, int64_t tokens);
  /// Forgets a stream without a verdict (the self-test's streams, which never end).
  void forget(uint64_t stream);
  /// Waits until everything handed over so far is checked; the verdicts of the streams finished
  /// since the last drain.
  std::vector<OutputVerdict> drain();

 private:
  struct Job {
    enum class Kind : uint8_t { More, Last, Forget } kind = Kind::More;
    uint64_t stream = 0;
    std::string batch;
    int64_t tokens = 0;
  };
  void push(Job job);
  void loop();
  void work(Job& job);

  std::mutex mutex_;
  std::condition_variable wake_;     ///< a job came, or the worker is told to stop
  std::condition_variable idle_;     ///< the queue is empty and no job is in hand
  std::condition_variable room_;     ///< the queue fell under kOutputQueueBytes
  size_t queued_bytes_ = 0;
  std::deque<Job> queue_;
  bool busy_ = false;
  bool stopping_ = false;
  std::vector<OutputVerdict> verdicts_;            ///< guarded by mutex_
  std::unordered_map<uint64_t, OutputCheck> open_;  ///< the worker thread's only
  std::thread thread_;
};

}  // namespace sm
