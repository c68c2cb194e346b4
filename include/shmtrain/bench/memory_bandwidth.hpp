#pragma once
// The limit `shmtrain bench allreduce` holds the exchange against: c = a + b bandwidth measured
// the way STREAM does — every worker's threads at once, each on its own part of its arrays,
// 3 arrays counted per pass (no write-allocate), the best of several runs — at a ladder of
// working sets, from ones that stay in a core's cache to one far larger than any cache. Each
// level runs with ordinary and with streaming stores (the exchange streams its stores when the
// data will not stay in cache) and keeps the faster.
#include <cstddef>
#include <string>
#include <vector>

#include "shmtrain/comm/communicator.hpp"

namespace shmtrain::bench {

struct BandwidthLevel {
  std::size_t working_set = 0;  // bytes of all workers' arrays together
  double gbps = 0;              // c = a + b, all workers together, GB/s (1e9 B)
  bool streaming = false;       // the faster variant streamed its stores
};

struct MemoryBandwidth {
  std::vector<BandwidthLevel> levels;  // ascending working sets; the last is the memory level

  // The level whose rate bounds a pass over `bytes` of data: the largest working set not above
  // `bytes` (a smaller set never runs slower), or the smallest level.
  const BandwidthLevel& level_for(std::size_t bytes) const;
  const BandwidthLevel& memory() const { return levels.back(); }
};

// The ladder's working sets: 192 KiB, 768 KiB, 3 MiB, 12 MiB, 48 MiB, and 768 MiB (as
// membw.c's 3 x 256 MiB), all workers together.
std::vector<std::size_t> bandwidth_ladder();

// One level: every worker holds three arrays of working_set / (3 P) bytes, its `threads`
// threads each own a part and pass over it repeatedly (about 20 ms of passes per run); the
// rate of the slowest worker's run, best of `runs`. Collective; every rank gets the same value.
BandwidthLevel measure_add_bandwidth(comm::Communicator& communicator, int threads, std::size_t working_set,
                                     bool streaming, int runs = 5);

// Every level of the ladder, each the faster of ordinary and streaming stores. Collective.
MemoryBandwidth measure_memory_bandwidth(comm::Communicator& communicator, int threads);

}  // namespace shmtrain::bench
