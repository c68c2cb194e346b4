// MpiJob in a build without MPI (CMake did not find it, or SHMTRAIN_WITH_MPI=OFF): the
// commands that would run under mpirun say so instead of running as one process each.
#if !defined(SHMTRAIN_HAVE_MPI)

#include "shmtrain/launch/mpi_job.hpp"

namespace shmtrain::launch {

struct MpiJob::State {};

MpiJob::MpiJob(int) {
  throw Error(
      "this shmtrain was built without MPI, so it cannot run as a rank of an MPI job: install an MPI "
      "(libopenmpi-dev or libmpich-dev), rebuild with -DSHMTRAIN_WITH_MPI=ON, or start shmtrain without "
      "mpirun");
}
MpiJob::~MpiJob() = default;
int MpiJob::rank() const { return 0; }
int MpiJob::size() const { return 1; }
int MpiJob::hosts() const { return 1; }
int MpiJob::local_rank() const { return 0; }
int MpiJob::local_size() const { return 1; }
void MpiJob::together(const std::function<void()>& step) { step(); }
std::string MpiJob::broadcast_text(const std::string& text) { return text; }
const topo::PlacementEntry& MpiJob::place(const topo::TopologySource&, const topo::PlacementOptions&) {
  throw Error("MpiJob::place: built without MPI");
}
const std::string& MpiJob::report() const {
  static const std::string empty;
  return empty;
}
int MpiJob::run(const LaunchOptions&, const WorkerFunction&) {
  throw Error("MpiJob::run: built without MPI");
}
void MpiJob::plain_allreduce(std::span<float>) { throw Error("MpiJob::plain_allreduce: built without MPI"); }

}  // namespace shmtrain::launch

#endif
