#include "shmtrain/comm/communicator.hpp"

#include <vector>

namespace shmtrain::comm {

void Communicator::allreduce_bf16(std::span<bf16> data, ReduceOp op) {
  std::vector<float> values(data.size());
  convert_to_float(values.data(), data.data(), static_cast<std::int64_t>(data.size()));
  allreduce(values, op);
  convert_to_bf16(data.data(), values.data(), static_cast<std::int64_t>(data.size()));
}

}  // namespace shmtrain::comm
