// `mpirun -np 4 shmtrain bench allreduce --simulated_hosts 2`: the hierarchical all-reduce
// (shared memory inside a host, each local rank's block across hosts over MPI) next to
// MPI_Allreduce over all the job's ranks, the call an MPI application makes, on the same
// buffers (the host's shared arena), same sizes, same verification.
#include <algorithm>
#include <cstdio>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "shmtrain/bench/allreduce_bench.hpp"

namespace shmtrain::bench {

bool run_hierarchical_allreduce_bench(comm::Communicator& hierarchical,
                                      const std::function<void(std::span<float>)>& mpi_allreduce,
                                      const AllreduceBenchOptions& options, const std::string& layout) {
  const bool root = hierarchical.rank() == 0;
  const std::size_t largest = *std::max_element(options.sizes.begin(), options.sizes.end());
  const std::span<float> buffer = hierarchical.allocate(largest / sizeof(float));
  if (root && !options.json) {
    fmt::print(
        "all-reduce (sum, float32), {}: hierarchical vs MPI_Allreduce on the same buffers; medians; busbw = "
        "algbw * 2(P-1)/P\n",
        layout);
    fmt::print("{:>9} {:>5} | {:>12} {:>10} | {:>12} {:>10} | {:>8} | {}\n", "size", "iters", "hier. us",
               "busbw GB/s", "MPI us", "busbw GB/s", "hier/MPI", "verified");
    std::fflush(stdout);
  }
  bool all_verified = true;
  for (std::size_t bytes : options.sizes) {
    const int iterations = options.iterations > 0 ? options.iterations : default_iterations(bytes);
    const std::span<float> data = buffer.first(bytes / sizeof(float));
    const AllreduceTiming ours = time_allreduce(hierarchical, data, iterations, [&](std::span<float> d) {
      hierarchical.allreduce(d, comm::ReduceOp::sum);
    });
    const AllreduceTiming peer = time_allreduce(hierarchical, data, iterations, mpi_allreduce);
    all_verified = all_verified && ours.verified && peer.verified;
    if (!root) continue;
    const double speedup = peer.median_us / ours.median_us;
    if (options.json) {
      const nlohmann::json line = {{"bytes", bytes},
                                   {"ranks", hierarchical.size()},
                                   {"layout", layout},
                                   {"iterations", iterations},
                                   {"hierarchical_median_us", ours.median_us},
                                   {"hierarchical_busbw_gbps", ours.busbw},
                                   {"mpi_allreduce_median_us", peer.median_us},
                                   {"mpi_allreduce_busbw_gbps", peer.busbw},
                                   {"speedup", speedup},
                                   {"verified", ours.verified && peer.verified}};
      fmt::print("{}\n", line.dump());
    } else {
      fmt::print("{:>9} {:>5} | {:>12.1f} {:>10.2f} | {:>12.1f} {:>10.2f} | {:>7.2f}x | {}\n",
                 format_bytes(bytes), iterations, ours.median_us, ours.busbw, peer.median_us, peer.busbw,
                 speedup, ours.verified && peer.verified ? "yes" : "NO");
    }
    std::fflush(stdout);
  }
  return all_verified;
}

}  // namespace shmtrain::bench
