#pragma once
// The communicator of a group of MPI ranks: between hosts, the column of ranks with the same
// local rank (comm/hierarchical/hierarchical_communicator.hpp). Reductions are this project's own, in rank
// order (comm/mpi/algorithms.hpp), not MPI_Allreduce's: MPI leaves the order of additions to
// the library, and a result must not depend on it. allgather, broadcast and barrier are MPI's
// own (nothing to add up). Every wait goes through MpiTransport: deadline and abort flag.
//
// Only built with MPI (SHMTRAIN_HAVE_MPI).
#include <deque>
#include <vector>

#include "shmtrain/comm/communicator.hpp"
#include "shmtrain/comm/mpi/mpi_transport.hpp"

namespace shmtrain::comm {

class MpiCommunicator final : public Communicator {
 public:
  // `comm` must outlive the communicator.
  MpiCommunicator(MPI_Comm comm, MpiTransportOptions options) : transport_(comm, options) {}

  int rank() const override { return transport_.rank(); }
  int size() const override { return transport_.size(); }
  void allreduce(std::span<float> data, ReduceOp op) override;
  // bf16 on the wire: half the bytes of allreduce().
  void allreduce_bf16(std::span<tensor::bf16> data, ReduceOp op) override;
  void broadcast(std::span<float> data, int root) override;
  void barrier() override;
  void allgather(std::span<const float> input, std::span<float> output) override;
  void reduce_scatter(std::span<const float> input, std::span<float> output, ReduceOp op) override;
  // Private memory: MPI reads and writes buffers wherever they are.
  std::span<float> allocate(std::size_t count) override;
  std::uint64_t network_bytes_sent() const override { return transport_.bytes_sent(); }

 private:
  MpiTransport transport_;
  std::vector<float> scratch_;
  std::vector<tensor::bf16> scratch16_;
  std::deque<std::vector<float>> buffers_;
};

}  // namespace shmtrain::comm
