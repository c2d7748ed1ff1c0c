#include "metrics/output_check_worker.h"

#include <cstring>
#include <utility>

namespace sm {

namespace {

struct ChunkHeader {
  int64_t tokens;
  uint32_t reasoning_bytes;
  uint32_t text_bytes;
};

}  // namespace

void OutputBatch::add(std::string_view reasoning, std::string_view text, int64_t tokens) {
  if (bytes_.capacity() < kOutputBatchBytes) bytes_.reserve(kOutputBatchBytes + 1024);
  const ChunkHeader h{tokens, static_cast<uint32_t>(reasoning.size()), static_cast<uint32_t>(text.size())};
  bytes_.append(reinterpret_cast<const char*>(&h), sizeof h);
  bytes_.append(reasoning);
  bytes_.append(text);
}

void OutputBatch::replay(std::string_view batch, OutputCheck& check) {
  size_t at = 0;
  while (at + sizeof(ChunkHeader) <= batch.size()) {
    ChunkHeader h;
    std::memcpy(&h, batch.data() + at, sizeof h);
    at += sizeof h;
    const std::string_view reasoning = batch.substr(at, h.reasoning_bytes);
    at += h.reasoning_bytes;
    const std::string_view text = batch.substr(at, h.text_bytes);
    at += h.text_bytes;
    check.add(reasoning, text, h.tokens);
  }
}

OutputCheckWorker::OutputCheckWorker() : thread_([this] { loop(); }) {}

OutputCheckWorker::~OutputCheckWorker() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_one();
  thread_.join();
}

void OutputCheckWorker::push(Job job) {
  {
    std::unique_lock lock(mutex_);
    room_.wait(lock, [this] { return queued_bytes_ < kOutputQueueBytes; });
    queued_bytes_ += job.batch.size();
    queue_.push_back(std::move(job));
  }
  wake_.notify_one();
}

void OutputCheckWorker::submit(uint64_t stream, std::string batch) {
  push({Job::Kind::More, stream, std::move(batch), 0});
}

void OutputCheckWorker::finish(uint64_t stream, std::string batch, int64_t tokens) {
  push({Job::Kind::Last, stream, std::move(batch), tokens});
}

void OutputCheckWorker::forget(uint64_t stream) { push({Job::Kind::Forget, stream, {}, 0}); }

std::vector<OutputVerdict> OutputCheckWorker::drain() {
  std::unique_lock lock(mutex_);
  idle_.wait(lock, [this] { return queue_.empty() && !busy_; });
  return std::exchange(verdicts_, {});
}

void OutputCheckWorker::work(Job& job) {
  if (job.kind == Job::Kind::Forget) {
    open_.erase(job.stream);
    return;
  }
  OutputCheck& check = open_[job.stream];
  OutputBatch::replay(job.batch, check);
  if (job.kind == Job::Kind::More) return;
  OutputVerdict v{job.stream, OutputFlaw::None, {}};
  check.finish(job.tokens, v.flaw, v.excerpt);
  open_.erase(job.stream);
  std::lock_guard lock(mutex_);
  verdicts_.push_back(std::move(v));
}

void OutputCheckWorker::loop() {
  std::unique_lock lock(mutex_);
  for (;;) {
    wake_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stopping, with nothing left
    Job job = std::move(queue_.front());
    queue_.pop_front();
    queued_bytes_ -= job.batch.size();
    if (queued_bytes_ < kOutputQueueBytes) room_.notify_all();
    busy_ = true;
    lock.unlock();
    work(job);  // takes the lock itself to hand a verdict over
    job = Job{};  // the batch's memory goes here, off the measuring thread
    lock.lock();
    busy_ = false;
    if (queue_.empty()) idle_.notify_all();
  }
}

}  // namespace sm
