#include "shmtrain/comm/overlapped_allreduce.hpp"

#include <tbb/task_arena.h>

namespace shmtrain::comm {

OverlappedAllreduce::OverlappedAllreduce(Communicator& comm, std::span<float> buffer, ReduceOp op,
                                         std::size_t min_bucket)
    : comm_(comm), buffer_(buffer), op_(op), min_bucket_(min_bucket), handed_from_(buffer.size()) {
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

void OverlappedAllreduce::run() {
  tbb::task_arena arena(1);
  std::unique_lock lock(mutex_);
  for (;;) {
    work_.wait(lock, [this] { return stop_ || !queue_.empty(); });
    if (stop_) return;
    const auto [begin, end] = queue_.front();
    queue_.pop_front();
    // After a failure the remaining buckets are dropped: the round is lost and finish() says why.
    if (!error_) {
      lock.unlock();
      try {
        arena.execute([&] { comm_.allreduce(buffer_.subspan(begin, end - begin), op_); });
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
