#include "shmtrain/comm/overlapped_allreduce.hpp"

#include <fmt/format.h>
#include <tbb/task_arena.h>

namespace shmtrain::comm {

OverlappedAllreduce::OverlappedAllreduce(Communicator& comm, std::span<float> buffer, ReduceOp op,
                                         std::size_t min_bucket, std::span<tensor::bf16> wire)
    : comm_(comm),
      buffer_(buffer),
      wire_(wire),
      op_(op),
      min_bucket_(min_bucket),
      handed_from_(buffer.size()) {
  if (!wire.empty() && wire.size() != buffer.size()) {
    throw Error(fmt::format("OverlappedAllreduce: a bf16 wire of {} values for a buffer of {}", wire.size(),
                            buffer.size()));
  }
  thread_ = std::thread([this] { run(); });
}

OverlappedAllreduce::~OverlappedAllreduce() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  work_.notify_one();
  thread_.join();
}

void OverlappedAllreduce::start() {
  std::lock_guard lock(mutex_);
  handed_from_ = buffer_.size();
}

void OverlappedAllreduce::push(std::size_t begin, std::size_t end) {
  queue_.emplace_back(begin, end);
  ++in_flight_;
  handed_from_ = begin;
  work_.notify_one();
}

void OverlappedAllreduce::ready(std::size_t offset) {
  std::lock_guard lock(mutex_);
  if (offset < handed_from_ && handed_from_ - offset >= min_bucket_) push(offset, handed_from_);
}

void OverlappedAllreduce::finish() {
  std::unique_lock lock(mutex_);
  if (handed_from_ > 0) push(0, handed_from_);
  done_.wait(lock, [this] { return in_flight_ == 0; });
  if (error_) {
    std::exception_ptr error = error_;
    error_ = nullptr;
    std::rethrow_exception(error);
  }
}

void OverlappedAllreduce::reduce_bucket(std::size_t begin, std::size_t end) {
  const std::span<float> values = buffer_.subspan(begin, end - begin);
  if (wire_.empty()) {
    comm_.allreduce(values, op_);
    return;
  }
  comm_.allreduce_through_bf16(values, wire_.subspan(begin, end - begin), op_);
}

void OverlappedAllreduce::run() {
  tbb::task_arena arena(1);
  std::unique_lock lock(mutex_);
  for (;;) {
    work_.wait(lock, [this] { return stop_ || !queue_.empty(); });
    if (stop_) return;
    // Plain names, not a structured binding: clang 14 (the fuzzing build) cannot capture one.
    const std::size_t begin = queue_.front().first;
    const std::size_t end = queue_.front().second;
    queue_.pop_front();
    // After a failure the remaining buckets are dropped: the round is lost and finish() says why.
    if (!error_) {
      lock.unlock();
      try {
        arena.execute([&] { reduce_bucket(begin, end); });
      } catch (...) {
        lock.lock();
        error_ = std::current_exception();
        lock.unlock();
      }
      lock.lock();
    }
    if (--in_flight_ == 0) done_.notify_all();
  }
}

}  // namespace shmtrain::comm
