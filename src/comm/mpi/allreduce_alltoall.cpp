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
//
// bf16 (--ddp_bf16_grads): the same protocol over 2-byte values, so half the bytes cross;
// step 2 sums in float in rank order and rounds once to bf16 (comm/reduce_kernels.hpp).
#include <algorithm>

#include <fmt/format.h>

#include "shmtrain/comm/mpi/algorithms.hpp"
#include "shmtrain/comm/reduce_kernels.hpp"

namespace shmtrain::comm {
namespace {

MPI_Datatype mpi_type(const float*) { return MPI_FLOAT; }
MPI_Datatype mpi_type(const tensor::bf16*) { return MPI_UINT16_T; }

void reduce_block(float* destination, const float* const* sources, int count, std::size_t n, ReduceOp op,
                  int threads) {
  reduce_into(&destination, 1, sources, count, n, op, threads);
}
void reduce_block(tensor::bf16* destination, const tensor::bf16* const* sources, int count, std::size_t n,
                  ReduceOp op, int) {
  reduce_bf16_into(&destination, 1, sources, count, n, op, static_cast<float>(count));
}

template <typename T>
void allreduce_alltoall(MpiTransport& transport, std::span<T> data, ReduceOp op, std::vector<T>& scratch) {
  const auto H = static_cast<std::size_t>(transport.size());
  const auto b = static_cast<std::size_t>(transport.rank());
  const MPI_Datatype type = mpi_type(data.data());
  std::vector<int> counts(H), displacements(H), own_counts(H), own_displacements(H);
  std::vector<const T*> sources(H);
  std::size_t offset = 0;
  do {
    const std::size_t c = std::min(kMpiChunkFloats, data.size() - offset);
    const std::size_t w = (c + H - 1) / H;
    T* chunk = data.data() + offset;
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
    transport.check(MPI_Ialltoallv(chunk, counts.data(), displacements.data(), type, scratch.data(),
                                   own_counts.data(), own_displacements.data(), type, transport.comm(), &request),
                    "MPI_Ialltoallv");
    transport.count_sent((c - own) * sizeof(T));
    transport.wait(request, fmt::format("the all-reduce's all-to-all ({} values)", c));
    for (std::size_t q = 0; q < H; ++q) sources[q] = scratch.data() + q * own;
    reduce_block(chunk + displacements[b], sources.data(), static_cast<int>(H), own, op,
                 transport.options().threads);
    transport.check(MPI_Iallgatherv(MPI_IN_PLACE, 0, type, chunk, counts.data(), displacements.data(), type,
                                    transport.comm(), &request),
                    "MPI_Iallgatherv");
    transport.count_sent(own * (H - 1) * sizeof(T));
    transport.wait(request, fmt::format("the all-reduce's all-gather ({} values)", c));
    offset += c;
  } while (offset < data.size());
}

}  // namespace

void mpi_allreduce_alltoall(MpiTransport& transport, std::span<float> data, ReduceOp op,
                            std::vector<float>& scratch) {
  allreduce_alltoall(transport, data, op, scratch);
}

void mpi_allreduce_bf16_alltoall(MpiTransport& transport, std::span<tensor::bf16> data, ReduceOp op,
                                 std::vector<tensor::bf16>& scratch) {
  allreduce_alltoall(transport, data, op, scratch);
}

}  // namespace shmtrain::comm
