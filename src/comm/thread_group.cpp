#include "shmtrain/comm/thread_group.hpp"

#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include <fmt/format.h>

namespace shmtrain::comm {

void run_in_threads(const SegmentConfig& config, const ShmOptions& options,
                    const std::function<void(Communicator&)>& fn) {
  Segment segment = Segment::create_anonymous(config);
  std::mutex mutex;
  std::exception_ptr first_cause;
  std::exception_ptr first_any;
  auto body = [&](int rank) {
    try {
      ShmCommunicator communicator(segment.bytes(), rank, options);
      fn(communicator);
    } catch (const std::exception& e) {
      raise_abort(segment.header(), fmt::format("rank {} failed: {}", rank, e.what()));
      const bool peer = dynamic_cast<const PeerFailure*>(&e) != nullptr;
      std::lock_guard lock(mutex);
      if (!first_any) first_any = std::current_exception();
      if (!peer && !first_cause) first_cause = std::current_exception();
    }
  };
  std::vector<std::thread> threads;
  threads.reserve(static_cast<std::size_t>(config.world_size));
  for (int rank = 0; rank < config.world_size; ++rank) threads.emplace_back(body, rank);
  for (std::thread& thread : threads) thread.join();
  if (first_cause) std::rethrow_exception(first_cause);
  if (first_any) std::rethrow_exception(first_any);
}

}  // namespace shmtrain::comm
