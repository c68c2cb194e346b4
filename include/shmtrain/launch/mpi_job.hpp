#pragma once
// A job whose processes an MPI launcher started (`mpirun -n 4 -ppn 2 shmtrain train ...`):
// nothing is forked, each MPI rank is one worker. The ranks that share a machine find each
// other (MPI_Comm_split_type SHARED) and form a host; each host shares one segment (local rank
// 0 creates "shmtrain-<token>-<host>", the token from rank 0 by MPI_Bcast; the others open it;
// its name is removed as soon as all have it mapped, so a killed job leaves nothing in
// /dev/shm); hosts exchange through MPI. The worker's communicator is a
// HierarchicalCommunicator: rank = host * L + local rank, L ranks on every host.
//
// Test mode: simulated_hosts K splits the job into K hosts by rank / (size / K), each with its
// own segment and MPI between them, so the path between hosts runs on one machine.
//
// Failures: steps the ranks take together before training (reading the data, preparing the
// output folder) are agreed on: when any rank fails, rank 0 reports the first failure and
// every rank exits with 1. A rank that fails on its own later (a collective's error, a dead
// peer) prints its error, raises its host's abort flag and calls MPI_Abort, which ends every
// rank of the job; the MPI launcher's own detection does the same for a rank that is killed.
//
// Declared in every build; without MPI (SHMTRAIN_HAVE_MPI unset) constructing one throws.
#include <functional>
#include <memory>
#include <span>
#include <string>

#include "shmtrain/common/error.hpp"
#include "shmtrain/launch/launcher.hpp"
#include "shmtrain/topo/placement.hpp"
#include "shmtrain/topo/topology.hpp"

namespace shmtrain::launch {

// True when an MPI launcher started this process: Open MPI's mpirun (OMPI_COMM_WORLD_SIZE),
// MPICH's and Intel MPI's Hydra (PMI_SIZE), a PMIx launcher such as srun (PMIX_RANK), MVAPICH
// (MV2_COMM_WORLD_SIZE).
bool started_by_mpi_launcher();

// The number of ranks the launcher's environment names (OMPI_COMM_WORLD_SIZE, PMI_SIZE,
// MV2_COMM_WORLD_SIZE), 0 when it names none.
int mpi_launcher_world_size();

// This process's rank in the launcher's environment (OMPI_COMM_WORLD_RANK, PMI_RANK, PMIX_RANK,
// MV2_COMM_WORLD_RANK), 0 when it names none: who prints what every rank would print alike.
int mpi_launcher_rank();

// True when this build has the MPI bridge (CMake found MPI).
bool mpi_built_in();

// Every rank failed the same step of an MpiJob: rank 0 reported why; this rank ends with exit
// code 1 and prints nothing more.
class ReportedByRankZero : public Error {
 public:
  using Error::Error;
};

class MpiJob {
 public:
  // MPI_Init_thread at MPI_THREAD_SERIALIZED (the exchange thread calls MPI, never two threads at
  // once), then the hosts. Collective. When simulated_hosts does not divide the ranks, a
  // simulated host would span machines, or hosts run different numbers of ranks, rank 0 prints
  // why and every rank throws ReportedByRankZero; Error when MPI is not built in.
  explicit MpiJob(int simulated_hosts);
  ~MpiJob();  // MPI_Finalize
  MpiJob(const MpiJob&) = delete;
  MpiJob& operator=(const MpiJob&) = delete;

  int rank() const;  // host * local_size() + local_rank()
  int size() const;
  int hosts() const;
  int local_rank() const;
  int local_size() const;

  // Collective: runs `step` on every rank. When it throws on any rank, rank 0 prints the error of
  // the lowest failing rank ("shmtrain: error: ..."), and once it has, every rank throws
  // ReportedByRankZero (the launcher stops the job at the first non-zero exit, so no rank may
  // leave before the message is out).
  void together(const std::function<void()>& step);
  // Collective: rank 0's text, on every rank.
  std::string broadcast_text(const std::string& text);

  // Collective: places and binds this rank (rank_placement.hpp; the placement flags as for the
  // fork launcher, nproc_per_node being mpirun's ranks per machine) and gathers every rank's
  // placement into report() on rank 0. Throws as together().
  const topo::PlacementEntry& place(const topo::TopologySource& source,
                                    const topo::PlacementOptions& options);
  // On rank 0 after place(): the layout and a table of every rank's placement; "" elsewhere.
  const std::string& report() const;

  // Collective. REQUIRES: place() was called. Creates the hosts' segments and the
  // communicators and runs `worker` on this rank; returns the largest exit code of all ranks.
  // When the worker throws: prints the error, raises the host's abort flag and MPI_Aborts the
  // job (kExitPeerFailure for a comm::PeerFailure, kExitFailed otherwise): does not return.
  int run(const LaunchOptions& options, const WorkerFunction& worker);

  // MPI_Allreduce (sum, in place) over every rank, as an application would call it: the peer
  // that `bench allreduce` measures the hierarchical all-reduce against. Collective.
  void plain_allreduce(std::span<float> data);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace shmtrain::launch
