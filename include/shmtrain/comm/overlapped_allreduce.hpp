#pragma once
// All-reduce of one buffer in buckets, on a dedicated exchange thread, while the caller still
// computes the rest of it: how the gradient exchange hides behind backward (DDP's buckets).
//
// Terms:
//   buffer    the span given at construction (the gradient arena), n floats.
//   ready     the caller's promise that buffer[offset, n) is final; offsets only go down
//             within a round, since backward finishes the arena from its end.
//   bucket    a range handed to the exchange thread: from the new ready offset up to the
//             previous one, held back until it spans at least min_bucket floats so tiny
//             layers do not cost one collective each.
//   round     start() .. finish(): every float of the buffer is all-reduced exactly once, in
//             buckets from the end to the start, the same buckets in the same order on every
//             rank (ready offsets are a function of the model, not of timing).
//
// The exchange thread is the only one that calls the communicator during a round; the caller
// must not run collectives between start() and finish(). Its reductions run in their own
// one-thread oneTBB arena, so they neither wait behind nor steal the compute threads' tasks.
// An error in the exchange (a dead peer) is rethrown by finish().
//
// With a bf16 `wire` (--ddp_bf16_grads; n values, ideally from comm.allocate so peers read it
// in place) each bucket is rounded to bf16 there, all-reduced as bf16 (summed in float,
// rounded once) and written back to the buffer as floats.
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <exception>
#include <mutex>
#include <span>
#include <thread>
#include <utility>

#include "shmtrain/comm/communicator.hpp"

namespace shmtrain::comm {

class OverlappedAllreduce {
 public:
  OverlappedAllreduce(Communicator& comm, std::span<float> buffer, ReduceOp op, std::size_t min_bucket,
                      std::span<tensor::bf16> wire = {});
  ~OverlappedAllreduce();  // stops and joins the exchange thread
  OverlappedAllreduce(const OverlappedAllreduce&) = delete;
  OverlappedAllreduce& operator=(const OverlappedAllreduce&) = delete;

  void start();
  // buffer[offset, n) is final. REQUIRES: within a round, offsets do not increase.
  void ready(std::size_t offset);
  // Hands over what is left, waits until every bucket is reduced; rethrows an exchange error.
  void finish();

 private:
  void run();
  void push(std::size_t begin, std::size_t end);  // REQUIRES: mutex_ held
  void reduce_bucket(std::size_t begin, std::size_t end);

  Communicator& comm_;
  std::span<float> buffer_;
  std::span<tensor::bf16> wire_;
  ReduceOp op_;
  std::size_t min_bucket_;
  std::size_t handed_from_ = 0;  // buffer[handed_from_, n) is queued or reduced this round

  std::mutex mutex_;
  std::condition_variable work_;
  std::condition_variable done_;
  std::deque<std::pair<std::size_t, std::size_t>> queue_;
  std::size_t in_flight_ = 0;  // buckets queued or being reduced
  bool stop_ = false;
  std::exception_ptr error_;
  std::thread thread_;
};

}  // namespace shmtrain::comm
