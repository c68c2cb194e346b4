#include "shmtrain/comm/shm/shm_communicator.hpp"

#include <fmt/format.h>

#include "shmtrain/comm/shm/algorithms.hpp"
#include "shmtrain/comm/collective_tag.hpp"
#include "shmtrain/comm/local_communicator.hpp"

namespace shmtrain::comm {

ShmCommunicator::ShmCommunicator(std::span<std::byte> segment, int rank, ShmOptions options)
    : transport_(segment, rank, options.transport), options_(options) {}

void ShmCommunicator::allreduce(std::span<float> data, ReduceOp op) {
  if (data.size() * sizeof(float) <= options_.one_shot_bytes && data.size() <= transport_.slot_floats()) {
    allreduce_one_shot(transport_, data, op);
  } else {
    allreduce_reduce_scatter(transport_, data, op);
  }
}

void ShmCommunicator::allreduce_bf16(std::span<tensor::bf16> data, ReduceOp op) {
  if (!allreduce_bf16_reduce_scatter(transport_, data, op)) Communicator::allreduce_bf16(data, op);
}

void ShmCommunicator::broadcast(std::span<float> data, int root) {
  if (root < 0 || root >= size()) throw Error(fmt::format("broadcast: root {} is not a rank of a group of {}", root, size()));
  broadcast_staged(transport_, data, root);
}

void ShmCommunicator::barrier() { transport_.step(make_tag(Collective::barrier, 0)); }

void ShmCommunicator::allgather(std::span<const float> input, std::span<float> output) {
  require_size("allgather: output", output.size(), input.size() * static_cast<std::size_t>(size()));
  allgather_staged(transport_, input, output);
}

void ShmCommunicator::reduce_scatter(std::span<const float> input, std::span<float> output, ReduceOp op) {
  require_size("reduce_scatter: input", input.size(), output.size() * static_cast<std::size_t>(size()));
  reduce_scatter_staged(transport_, input, output, op);
}

}  // namespace shmtrain::comm
