#include "shmtrain/comm/mpi/mpi_communicator.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "shmtrain/comm/local_communicator.hpp"
#include "shmtrain/comm/mpi/algorithms.hpp"

namespace shmtrain::comm {

void MpiCommunicator::allreduce(std::span<float> data, ReduceOp op) {
  if (size() == 1) {
    LocalCommunicator().allreduce(data, op);
    return;
  }
  mpi_allreduce_alltoall(transport_, data, op, scratch_);
}

void MpiCommunicator::allreduce_bf16(std::span<tensor::bf16> data, ReduceOp op) {
  if (size() == 1) {
    LocalCommunicator().allreduce_bf16(data, op);
    return;
  }
  mpi_allreduce_bf16_alltoall(transport_, data, op, scratch16_);
}

void MpiCommunicator::reduce_scatter(std::span<const float> input, std::span<float> output, ReduceOp op) {
  require_size("reduce_scatter: input", input.size(), output.size() * static_cast<std::size_t>(size()));
  mpi_reduce_scatter_alltoall(transport_, input, output, op, scratch_);
}

// MPI's own broadcast, in chunks (see kMpiChunkFloats).
void MpiCommunicator::broadcast(std::span<float> data, int root) {
  if (root < 0 || root >= size())
    throw Error(fmt::format("broadcast: root {} is not a rank of a group of {}", root, size()));
  std::size_t offset = 0;
  do {
    const std::size_t c = std::min(kMpiChunkFloats, data.size() - offset);
    MPI_Request request = MPI_REQUEST_NULL;
    transport_.check(
        MPI_Ibcast(data.data() + offset, static_cast<int>(c), MPI_FLOAT, root, transport_.comm(), &request),
        "MPI_Ibcast");
    if (rank() == root) transport_.count_sent(c * sizeof(float) * static_cast<std::size_t>(size() - 1));
    transport_.wait(request, fmt::format("a broadcast from rank {} ({} floats)", root, c));
    offset += c;
  } while (offset < data.size());
}

void MpiCommunicator::barrier() {
  MPI_Request request = MPI_REQUEST_NULL;
  transport_.check(MPI_Ibarrier(transport_.comm(), &request), "MPI_Ibarrier");
  transport_.wait(request, "a barrier");
}

// MPI's own all-gather, in slices of every rank's input (see kMpiChunkFloats); in place when
// the input is this rank's block of the output.
void MpiCommunicator::allgather(std::span<const float> input, std::span<float> output) {
  const auto H = static_cast<std::size_t>(size());
  const std::size_t n = input.size();
  require_size("allgather: output", output.size(), n * H);
  const int block = mpi_count(n, "allgather");
  mpi_count(n * H, "allgather");
  const bool in_place = input.data() == output.data() + static_cast<std::size_t>(rank()) * n;
  std::vector<int> counts(H), displacements(H);
  std::size_t offset = 0;
  do {
    const std::size_t c = std::min(kMpiChunkFloats, n - offset);
    for (std::size_t q = 0; q < H; ++q) {
      counts[q] = static_cast<int>(c);
      displacements[q] = static_cast<int>(q) * block;
    }
    MPI_Request request = MPI_REQUEST_NULL;
    transport_.check(MPI_Iallgatherv(in_place ? MPI_IN_PLACE : input.data() + offset, static_cast<int>(c),
                                     MPI_FLOAT, output.data() + offset, counts.data(), displacements.data(),
                                     MPI_FLOAT, transport_.comm(), &request),
                     "MPI_Iallgatherv");
    transport_.count_sent(c * sizeof(float) * (H - 1));
    transport_.wait(request, fmt::format("an all-gather ({} floats per rank)", c));
    offset += c;
  } while (offset < n);
}

std::span<float> MpiCommunicator::allocate(std::size_t count) {
  buffers_.emplace_back(count, 0.0f);
  return buffers_.back();
}

}  // namespace shmtrain::comm
