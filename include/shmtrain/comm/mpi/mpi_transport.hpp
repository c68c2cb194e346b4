#pragma once
// The MPI transport under the collectives between hosts: one MPI communicator, and the one
// way this code waits for MPI. Every operation is started nonblocking and polled with MPI_Test
// until it completes, the job is aborted (the host segment's abort flag) or the deadline
// passes: a blocking MPI call would wait forever for a peer that hangs on another host.
//
// Polling spins, then yields, then sleeps. MPI moves a large message only while both sides
// call into it, so a rank that sleeps slows the transfer it waits for: the algorithms cut
// messages into chunks of kMpiChunkFloats, and each wait starts with the spin and yield phases.
//
// Only built with MPI (SHMTRAIN_HAVE_MPI); included only by code built with it.
#include <mpi.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "shmtrain/comm/communicator.hpp"
#include "shmtrain/comm/shm/segment.hpp"

namespace shmtrain::comm {

// Floats per MPI operation: a few MiB keep each wait short and each count far below INT_MAX.
inline constexpr std::size_t kMpiChunkFloats = std::size_t{1} << 20;

struct MpiTransportOptions {
  std::chrono::milliseconds timeout{std::chrono::minutes(10)};  // longest wait for one operation
  int threads = 1;                       // this rank's threads for reductions and copies
  const SegmentHeader* watch = nullptr;  // a segment whose abort flag ends every wait
  // Where `timeout` comes from and what its passing means, for the deadline's error; empty: the
  // fixed deadline of the set-up steps.
  std::string_view timeout_reason{};
};

class MpiTransport {
 public:
  // Uses `comm` (not owned; it must outlive the transport) and makes its errors return codes,
  // which check() turns into CommError.
  MpiTransport(MPI_Comm comm, MpiTransportOptions options);

  int rank() const { return rank_; }
  int size() const { return size_; }
  MPI_Comm comm() const { return comm_; }
  const MpiTransportOptions& options() const { return options_; }

  // Waits for `request`, started on comm(). `what` names the operation in errors. Throws
  // PeerFailure when the watched segment's job is aborted, CommError at the deadline.
  void wait(MPI_Request& request, std::string_view what);
  // Throws CommError with MPI's message unless code is MPI_SUCCESS.
  void check(int code, std::string_view what) const;

  // The payload bytes this rank handed MPI for other ranks, as the algorithms count them (the
  // bytes that cross between hosts; MPI's own headers not included).
  void count_sent(std::size_t bytes) { bytes_sent_ += bytes; }
  std::uint64_t bytes_sent() const { return bytes_sent_; }

 private:
  MPI_Comm comm_;
  MpiTransportOptions options_;
  int rank_ = 0;
  int size_ = 1;
  std::uint64_t bytes_sent_ = 0;
};

// Throws CommError unless `count` fits the int counts and displacements of one MPI call.
int mpi_count(std::size_t count, std::string_view what);

}  // namespace shmtrain::comm
