#pragma once
// `shmtrain bench allreduce`: latency and bandwidth of Communicator::allreduce, verified, next
// to the limit measured in the same run. Runs inside every worker; rank 0 prints.
//
// Definitions (as nccl-tests): algbw = bytes / time; busbw = algbw * 2(P-1)/P. The limit: an
// all-reduce of S bytes over P workers reads every worker's buffer once and writes the result
// into each, 2P S bytes through memory (or cache), so algbw <= B / (2P), B the c = a + b rate
// of all workers at once at the working set P S (memory_bandwidth.hpp: STREAM's accounting,
// in-cache sets against the rate of a set that fits the same cache level).
#include <cstddef>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "shmtrain/comm/communicator.hpp"

namespace shmtrain::bench {

struct AllreduceBenchOptions {
  std::vector<std::size_t> sizes;  // bytes, each a multiple of 4
  int iterations = 0;              // timed iterations per size; 0: from 200 (small) down to 3 (512 MiB)
  bool copy_in = false;            // buffers in private memory instead of the shared arena
  bool json = false;               // one JSON object per size instead of the table
};

// 4 KiB, 8 KiB, ... 512 MiB.
std::vector<std::size_t> default_sizes();
// "4K,64K,1M,512M" or plain byte counts. Throws InputError.
std::vector<std::size_t> parse_sizes(const std::string& text);

// Collective over `communicator`; `threads` is this worker's compute thread count. Returns
// false when a result was wrong.
bool run_allreduce_bench(comm::Communicator& communicator, const AllreduceBenchOptions& options, int threads);

// Under an MPI launcher (`mpirun -np 4 shmtrain bench allreduce --simulated_hosts 2`): the
// hierarchical all-reduce of `hierarchical` next to `mpi_allreduce` (MPI_Allreduce over the same
// ranks) on the same buffers, both verified. `layout` describes the hosts. Collective.
bool run_hierarchical_allreduce_bench(comm::Communicator& hierarchical,
                                      const std::function<void(std::span<float>)>& mpi_allreduce,
                                      const AllreduceBenchOptions& options, const std::string& layout);

// Medians of `iterations` timed calls of `allreduce` (sum, in place) on `data`, after one
// warm-up, each call timed as its slowest rank; verified against the exact sum. `group` is the
// ranks' communicator: a barrier before each call, and it gathers the timings. Collective.
struct AllreduceTiming {
  double median_us, min_us, max_us;
  double algbw, busbw;  // GB/s of the median
  bool verified;
};
AllreduceTiming time_allreduce(comm::Communicator& group, std::span<float> data, int iterations,
                               const std::function<void(std::span<float>)>& allreduce);
// From 200 iterations for small sizes down to 3 for 512 MiB (about 2 GiB per size).
int default_iterations(std::size_t bytes);
// "4 KiB", "16 MiB".
std::string format_bytes(std::size_t bytes);

}  // namespace shmtrain::bench
