#include "shmtrain/comm/collective_tag.hpp"

#include <fmt/format.h>

namespace shmtrain::comm {
namespace {
constexpr std::uint64_t kCountMask = (std::uint64_t{1} << 40) - 1;
}

std::uint64_t make_tag(Collective collective, std::size_t count, ReduceOp op, int root) {
  return (static_cast<std::uint64_t>(collective) << 56) | (static_cast<std::uint64_t>(op) << 52) |
         ((static_cast<std::uint64_t>(root) & 0xfff) << 40) | (static_cast<std::uint64_t>(count) & kCountMask);
}

std::string describe_tag(std::uint64_t tag) {
  const auto collective = static_cast<Collective>(tag >> 56);
  const auto op = static_cast<ReduceOp>((tag >> 52) & 0xf);
  const auto root = static_cast<int>((tag >> 40) & 0xfff);
  const auto count = tag & kCountMask;
  switch (collective) {
    case Collective::barrier: return "barrier()";
    case Collective::allreduce: return fmt::format("allreduce(count {}, {})", count, to_string(op));
    case Collective::broadcast: return fmt::format("broadcast(count {}, root {})", count, root);
    case Collective::allgather: return fmt::format("allgather(count {})", count);
    case Collective::reduce_scatter: return fmt::format("reduce_scatter(count {}, {})", count, to_string(op));
    case Collective::allreduce_bf16: return fmt::format("allreduce_bf16(count {}, {})", count, to_string(op));
  }
  return fmt::format("unknown collective (tag {:#x})", tag);
}

}  // namespace shmtrain::comm
