// reduce_scatter over MPI by all-to-all, in rank order.
//
// Terms: H ranks; input of H * m floats on every rank, block b = input[b * m, (b + 1) * m);
// rank r's output is block r of input_0 op input_1 op ... op input_{H-1}.
// Protocol, per slice [o, o + c) of the blocks with c <= kMpiChunkFloats:
//   1. all-to-all: rank q sends block b's slice to rank b; rank r receives the slice of block r
//      of every rank, rank 0's first, into scratch;
//   2. rank r reduces them in rank order into output[o, o + c).
// A size-0 reduce_scatter still makes one all-to-all, so every rank takes part in each call.
#include <algorithm>

#include <fmt/format.h>

#include "shmtrain/comm/mpi/algorithms.hpp"
#include "shmtrain/comm/reduce_kernels.hpp"

namespace shmtrain::comm {

void mpi_reduce_scatter_alltoall(MpiTransport& transport, std::span<const float> input,
                                 std::span<float> output, ReduceOp op, std::vector<float>& scratch) {
  const auto H = static_cast<std::size_t>(transport.size());
  const std::size_t m = output.size();
  const int block = mpi_count(m, "reduce_scatter");
  mpi_count(H * m, "reduce_scatter");
  std::vector<int> counts(H), send_displacements(H), receive_displacements(H);
  std::vector<const float*> sources(H);
  std::size_t offset = 0;
  do {
    const std::size_t c = std::min(kMpiChunkFloats, m - offset);
    scratch.resize(std::max(scratch.size(), H * c));
    for (std::size_t q = 0; q < H; ++q) {
      counts[q] = static_cast<int>(c);
      send_displacements[q] = static_cast<int>(q) * block;
      receive_displacements[q] = static_cast<int>(q * c);
    }
    MPI_Request request = MPI_REQUEST_NULL;
    transport.check(MPI_Ialltoallv(input.data() + offset, counts.data(), send_displacements.data(), MPI_FLOAT,
                                   scratch.data(), counts.data(), receive_displacements.data(), MPI_FLOAT,
                                   transport.comm(), &request),
                    "MPI_Ialltoallv");
    transport.count_sent((H - 1) * c * sizeof(float));
    transport.wait(request, fmt::format("the reduce-scatter's all-to-all ({} floats per rank)", c));
    for (std::size_t q = 0; q < H; ++q) sources[q] = scratch.data() + q * c;
    float* destination = output.data() + offset;
    reduce_into(&destination, 1, sources.data(), static_cast<int>(H), c, op, transport.options().threads);
    offset += c;
  } while (offset < m);
}

}  // namespace shmtrain::comm
