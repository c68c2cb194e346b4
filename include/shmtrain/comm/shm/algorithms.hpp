#pragma once
// Collective algorithms over the shared-memory transport, one per file in src/comm/shm/ named
// <collective>_<algorithm>.cpp; each file opens with its protocol. They see only the transport
// (rank, size, steps, slots, peers' buffers), not the communicator: ShmCommunicator runs them
// for one host, and the hierarchical all-reduce runs the reduce-scatter passes inside each
// host with a stage between hosts (comm/hierarchical/).
// REQUIRES for all: every rank calls the same function with the same sizes (checked by tags).
#include <functional>
#include <span>

#include "shmtrain/comm/communicator.hpp"
#include "shmtrain/comm/shm/shm_transport.hpp"

namespace shmtrain::comm {

// Whole buffer in one step; for messages that fit a slot.
void allreduce_one_shot(ShmTransport& transport, std::span<float> data, ReduceOp op);
// Work on rank r's block of a reduction between the reduce-scatter and the all-gather: the
// hierarchical all-reduce reduces it across hosts here. Called only for a non-empty block; the
// block's bounds depend only on the buffer size, the group size and r.
using BlockStage = std::function<void(std::span<float> block)>;

// Reduce-scatter + all-gather: in place in the arena when every rank's buffer lives there,
// through the slots in slices otherwise; with a stage, the stage runs on each rank's block in
// between (once per slice through the slots).
void allreduce_reduce_scatter(ShmTransport& transport, std::span<float> data, ReduceOp op,
                              const BlockStage& stage = {});
// The same pass over bf16 buffers, summed in float and rounded once. REQUIRES: every rank's
// buffer lives in the arena (the zero-copy case); returns false, having moved nothing, when
// one does not (the caller then falls back to moving floats). With a stage, rank r's reduced
// block (rounded to bf16) goes through the stage before every rank's buffer receives it;
// avg_divisor > 0 replaces the group's size as avg's divisor (the hierarchical all-reduce
// divides by the whole world's size before its block leaves the host).
using Bf16BlockStage = std::function<void(std::span<tensor::bf16> block)>;
bool allreduce_bf16_reduce_scatter(ShmTransport& transport, std::span<tensor::bf16> data, ReduceOp op,
                                   const Bf16BlockStage& stage = {}, int avg_divisor = 0);
void broadcast_staged(ShmTransport& transport, std::span<float> data, int root);
void allgather_staged(ShmTransport& transport, std::span<const float> input, std::span<float> output);
void reduce_scatter_staged(ShmTransport& transport, std::span<const float> input, std::span<float> output, ReduceOp op);

}  // namespace shmtrain::comm
