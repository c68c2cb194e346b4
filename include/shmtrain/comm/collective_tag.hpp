#pragma once
// What a step belongs to, packed in 64 bits so that peers can compare it: a rank that calls a
// different collective, op, size or root than its peers is caught at the first step.
#include <cstdint>
#include <string>

#include "shmtrain/comm/communicator.hpp"

namespace shmtrain::comm {

enum class Collective : std::uint8_t { barrier = 1, allreduce, broadcast, allgather, reduce_scatter, allreduce_bf16 };

// count is kept modulo 2^40, root modulo 2^12: enough to tell real calls apart.
std::uint64_t make_tag(Collective collective, std::size_t count, ReduceOp op = ReduceOp::sum, int root = 0);
// "allreduce(count 7, sum)".
std::string describe_tag(std::uint64_t tag);

}  // namespace shmtrain::comm
