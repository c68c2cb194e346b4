#pragma once
// The collective interface every worker trains through. One implementation per transport,
// each in its folder with its algorithms:
//   LocalCommunicator         one worker, nothing to exchange (comm/local_communicator.hpp)
//   ShmCommunicator           processes or threads on one machine, through a shared segment
//                             (comm/shm/)
//   MpiCommunicator           one rank per host between hosts, over MPI (comm/mpi/; built
//                             with MPI only)
//   HierarchicalCommunicator  ranks on several hosts: shared memory inside a host, another
//                             communicator (MPI) between hosts (comm/hierarchical/)
//
// Contract for every collective: all ranks call the same collectives in the same order with
// the same sizes (and root / op); a mismatch is detected where the transport can see it and
// reported as CommError, otherwise the call times out. Results are bit-identical on every
// rank and from run to run for the same inputs: reductions add rank 0's value first, then
// rank 1's, and so on, element by element.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "shmtrain/common/error.hpp"
#include "shmtrain/tensor/bf16.hpp"

namespace shmtrain::comm {

enum class ReduceOp { sum, avg, max };  // avg = sum / size, as DDP averages gradients

std::string_view to_string(ReduceOp op);

// A collective could not complete: a size mismatch between ranks, or a timeout (between hosts).
class CommError : public Error {
 public:
  using Error::Error;
};

// A collective stopped because of another process: a peer died, stalled (its heartbeat stood
// still), left without the collective, or the job was aborted. The launcher reports the peer's
// failure as the cause, not this one.
class PeerFailure : public CommError {
 public:
  using CommError::CommError;
};

class Communicator {
 public:
  virtual ~Communicator() = default;

  virtual int rank() const = 0;
  virtual int size() const = 0;

  // In place: data becomes op over every rank's data.
  virtual void allreduce(std::span<float> data, ReduceOp op) = 0;
  // The same for bf16 values (--ddp_bf16_grads: half the bytes to move): summed in float, in
  // rank order, rounded once to bf16. This default moves floats (widens, allreduce(),
  // rounds); a transport that can move bf16 overrides it (shm, MPI, hierarchical).
  virtual void allreduce_bf16(std::span<tensor::bf16> data, ReduceOp op);
  // values all-reduced with bf16 on the wire: rounded into `wire`, allreduce_bf16(wire), and
  // widened back into values. REQUIRES: wire.size() == values.size(). The only place the
  // exchange converts between the two.
  void allreduce_through_bf16(std::span<float> values, std::span<tensor::bf16> wire, ReduceOp op);
  // data on every rank becomes root's data. REQUIRES: 0 <= root < size().
  virtual void broadcast(std::span<float> data, int root) = 0;
  virtual void barrier() = 0;
  // output[q * n .. (q+1) * n) = rank q's input, n = input.size().
  // REQUIRES: output.size() == input.size() * size(). input may be this rank's own part of
  // output (in place); no other overlap.
  virtual void allgather(std::span<const float> input, std::span<float> output) = 0;
  // output = op over every rank's input[rank * n .. (rank+1) * n), n = output.size().
  // REQUIRES: input.size() == output.size() * size().
  virtual void reduce_scatter(std::span<const float> input, std::span<float> output, ReduceOp op) = 0;

  // A zero-filled float buffer for collectives. Where the transport can, it lives where peers
  // read it directly (no copy in or out): the gradient arena is allocated here. Collective: all
  // ranks allocate the same counts in the same order. Valid as long as the communicator.
  virtual std::span<float> allocate(std::size_t count) = 0;

  // The payload bytes this rank has sent over a network transport (MPI, between hosts) since
  // it was made; 0 where everything moves through shared memory.
  virtual std::uint64_t network_bytes_sent() const { return 0; }
};

}  // namespace shmtrain::comm
