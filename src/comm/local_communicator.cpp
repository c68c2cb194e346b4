#include "shmtrain/comm/local_communicator.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace shmtrain::comm {

std::string_view to_string(ReduceOp op) {
  switch (op) {
    case ReduceOp::sum: return "sum";
    case ReduceOp::avg: return "avg";
    case ReduceOp::max: return "max";
  }
  return "?";
}

void require_size(std::string_view what, std::size_t actual, std::size_t expected) {
  if (actual != expected) throw Error(fmt::format("{} holds {} floats, needs {}", what, actual, expected));
}

void LocalCommunicator::allreduce(std::span<float>, ReduceOp) {}

void LocalCommunicator::broadcast(std::span<float>, int root) {
  if (root != 0) throw Error(fmt::format("broadcast: root {} is not a rank of a group of 1", root));
}

void LocalCommunicator::allgather(std::span<const float> input, std::span<float> output) {
  require_size("allgather: output", output.size(), input.size());
  if (input.data() != output.data()) std::copy(input.begin(), input.end(), output.begin());
}

void LocalCommunicator::reduce_scatter(std::span<const float> input, std::span<float> output, ReduceOp) {
  require_size("reduce_scatter: input", input.size(), output.size());
  std::copy(input.begin(), input.end(), output.begin());
}

std::span<float> LocalCommunicator::allocate(std::size_t count) {
  buffers_.emplace_back(count, 0.0f);
  return buffers_.back();
}

}  // namespace shmtrain::comm
