#pragma once
// How the ranks of an MPI job make hosts (see mpi_job.hpp), and the few collectives the job
// takes before its communicators exist, each waited for through MpiTransport (deadline).
#include <mpi.h>

#include <span>
#include <string>
#include <utility>
#include <vector>

#include "shmtrain/comm/mpi/mpi_transport.hpp"

namespace shmtrain::launch {

// An MPI communicator this code created, freed with it (before MPI_Finalize).
class OwnedComm {
 public:
  OwnedComm() = default;
  explicit OwnedComm(MPI_Comm comm) : comm_(comm) {}
  OwnedComm(OwnedComm&& other) noexcept : comm_(std::exchange(other.comm_, MPI_COMM_NULL)) {}
  OwnedComm& operator=(OwnedComm&& other) noexcept {
    std::swap(comm_, other.comm_);
    return *this;
  }
  ~OwnedComm() {
    if (comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
  }
  operator MPI_Comm() const { return comm_; }

 private:
  MPI_Comm comm_ = MPI_COMM_NULL;
};

struct Hosts {
  OwnedComm machine_comm;  // the ranks that share this machine's memory
  OwnedComm host_comm;     // this rank's host: the machine, or a simulated host inside it
  OwnedComm column_comm;   // local rank `local_rank` of every host, in host order
  int machine_rank = 0;
  int machine_size = 1;
  int host = 0;   // this host's index: hosts in the order of their lowest world rank
  int count = 1;  // hosts
  int local_rank = 0;
  int local_size = 1;  // ranks per host, the same on every host
  int simulated = 0;   // simulated hosts asked for; 0: real ones
};

// Collective over `world`: rank 0 prints "shmtrain: error: <message>", then every rank, once
// it has, throws ReportedByRankZero (the CLI exits 1 without printing more).
[[noreturn]] void stop_everywhere(comm::MpiTransport& world, const std::string& message);

// Collective over `world`. Stops every rank (stop_everywhere) when the ranks cannot form hosts
// of equal size (see MpiJob's constructor).
Hosts find_hosts(comm::MpiTransport& world, int simulated_hosts);

void allreduce_ints(comm::MpiTransport& transport, std::span<int> values, MPI_Op op, const char* what);
void broadcast_ints(comm::MpiTransport& transport, std::span<int> values, int root, const char* what);
std::string broadcast_string(comm::MpiTransport& transport, const std::string& text, int root);
// Every rank's text (up to 511 bytes) on rank 0, in rank order; empty elsewhere.
std::vector<std::string> gather_strings(comm::MpiTransport& transport, const std::string& text);

}  // namespace shmtrain::launch
