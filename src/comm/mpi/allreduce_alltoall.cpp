// allreduce over MPI: reduce-scatter by all-to-all, then all-gather, in rank order.
//
// Terms: H ranks; a buffer of n floats, taken in chunks of at most kMpiChunkFloats; a chunk of
// c floats is cut into H blocks, block b = [b * w, min((b + 1) * w, c)) with w = ceil(c / H).
// Protocol, per chunk:
//   1. all-to-all: rank q sends block b of its chunk to rank b; rank b receives block b of
//      every rank, rank 0's first, into scratch;
//   2. rank b reduces them in rank order into block b of its chunk;
//   3. all-gather in place: every rank receives every block.
// Each rank sends and receives (H - 1) / H of the chunk in each of steps 1 and 3, the traffic of
// a ring all-reduce, and all ranks get the same bits.
#include <algorithm>

#include <fmt/format.h>

#include "shmtrain/comm/mpi/algorithms.hpp"
#include "shmtrain/comm/reduce_kernels.hpp"

namespace shmtrain::comm {

void mpi_allreduce_alltoall(MpiTransport& transport, std::span<float> data, ReduceOp op,
                            std::vector<float>& scratch) {
  const auto H = static_cast<std::size_t>(transport.size());
  const auto b = static_cast<std::size_t>(transport.rank());
  std::vector<int> counts(H), displacements(H), own_counts(H), own_displacements(H);
  std::vector<const float*> sources(H);
  std::size_t offset = 0;
  do {
    const std::size_t c = std::min(kMpiChunkFloats, data.size() - offset);
    const std::size_t w = (c + H - 1) / H;
    float* chunk = data.data() + offset;
    for (std::size_t q = 0; q < H; ++q) {
      const std::size_t begin = std::min(c, q * w);
      counts[q] = static_cast<int>(std::min(c, begin + w) - begin);
      displacements[q] = static_cast<int>(begin);
    }
    const auto own = static_cast<std::size_t>(counts[b]);
    scratch.resize(std::max(scratch.size(), H * own));
    for (std::size_t q = 0; q < H; ++q) {
      own_counts[q] = static_cast<int>(own);
      own_displacements[q] = static_cast<int>(q * own);
    }
    MPI_Request request = MPI_REQUEST_NULL;
    transport.check(
        MPI_Ialltoallv(chunk, counts.data(), displacements.data(), MPI_FLOAT, scratch.data(),
                       own_counts.data(), own_displacements.data(), MPI_FLOAT, transport.comm(), &request),
        "MPI_Ialltoallv");
    transport.wait(request, fmt::format("the all-reduce's all-to-all ({} floats)", c));
    for (std::size_t q = 0; q < H; ++q) sources[q] = scratch.data() + q * own;
    float* destination = chunk + displacements[b];
    reduce_into(&destination, 1, sources.data(), static_cast<int>(H), own, op, transport.options().threads);
    transport.check(MPI_Iallgatherv(MPI_IN_PLACE, 0, MPI_FLOAT, chunk, counts.data(), displacements.data(),
                                    MPI_FLOAT, transport.comm(), &request),
                    "MPI_Iallgatherv");
    transport.wait(request, fmt::format("the all-reduce's all-gather ({} floats)", c));
    offset += c;
  } while (offset < data.size());
}

}  // namespace shmtrain::comm
