#pragma once
// Reductions over the MPI transport in a fixed order, one per file named
// <collective>_<algorithm>.cpp in src/comm/mpi/, each opening with its protocol: element i of a result is
// ((x_0[i] op x_1[i]) op x_2[i]) ..., x_q being rank q's data, on every rank and in every run.
// `scratch` is memory the caller keeps between calls.
//
// Only built with MPI (SHMTRAIN_HAVE_MPI).
#include <span>
#include <vector>

#include "shmtrain/comm/communicator.hpp"
#include "shmtrain/comm/mpi/mpi_transport.hpp"

namespace shmtrain::comm {

void mpi_allreduce_alltoall(MpiTransport& transport, std::span<float> data, ReduceOp op,
                            std::vector<float>& scratch);
// The same over bf16 values: half the bytes; sums in float in rank order, rounded once.
void mpi_allreduce_bf16_alltoall(MpiTransport& transport, std::span<tensor::bf16> data, ReduceOp op,
                                 std::vector<tensor::bf16>& scratch);
void mpi_reduce_scatter_alltoall(MpiTransport& transport, std::span<const float> input,
                                 std::span<float> output, ReduceOp op, std::vector<float>& scratch);

}  // namespace shmtrain::comm
