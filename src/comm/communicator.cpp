#include "shmtrain/comm/communicator.hpp"

#include <vector>

#include "shmtrain/comm/local_communicator.hpp"

namespace shmtrain::comm {

void Communicator::allreduce_bf16(std::span<tensor::bf16> data, ReduceOp op) {
  std::vector<float> values(data.size());
  tensor::convert_to_float(values.data(), data.data(), static_cast<std::int64_t>(data.size()));
  allreduce(values, op);
  tensor::convert_to_bf16(data.data(), values.data(), static_cast<std::int64_t>(data.size()));
}

void Communicator::allreduce_through_bf16(std::span<float> values, std::span<tensor::bf16> wire,
                                          ReduceOp op) {
  require_size("allreduce_through_bf16: wire", wire.size(), values.size());
  const auto n = static_cast<std::int64_t>(values.size());
  tensor::convert_to_bf16(wire.data(), values.data(), n);
  allreduce_bf16(wire, op);
  tensor::convert_to_float(values.data(), wire.data(), n);
}

}  // namespace shmtrain::comm
