#pragma once
// `shmtrain bench allreduce`: latency and bandwidth of Communicator::allreduce, verified, next
// to the limit measured in the same run. Runs inside every worker; rank 0 prints.
//
// Definitions (as nccl-tests): algbw = bytes / time; busbw = algbw * 2(P-1)/P. The limit: an
// all-reduce reads every worker's buffer once and writes the result into each, 2P buffer
// passes through memory, so algbw <= B / (2P) for the machine's memory bandwidth B, measured as
// c = a + b on every worker's cores at once (STREAM accounting: 3 arrays per pass).
#include <cstddef>
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

// The c = a + b bandwidth in GB/s of all workers together, each on its own threads and its
// own memory. Collective; every rank gets the same value.
double measure_add_bandwidth(comm::Communicator& communicator, int threads);

}  // namespace shmtrain::bench
