#pragma once
// Ranks as threads of one process over the same transport and algorithms as worker processes,
// on an anonymous segment: how the exchange is tested under ThreadSanitizer, and a way to run
// collectives without forking.
#include <functional>

#include "shmtrain/comm/communicator.hpp"
#include "shmtrain/comm/shm/segment.hpp"
#include "shmtrain/comm/shm/shm_communicator.hpp"

namespace shmtrain::comm {

// Runs fn(communicator) on config.world_size threads, rank r on thread r, and joins them. When
// a rank throws, the group's abort flag is raised so that the others stop instead of waiting,
// and the first exception that is not a PeerFailure (else the first) is rethrown.
void run_in_threads(const SegmentConfig& config, const ShmOptions& options,
                    const std::function<void(Communicator&)>& fn);

}  // namespace shmtrain::comm
