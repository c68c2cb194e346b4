#include "shmtrain/launch/mpi_job.hpp"

#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <cstdio>
#include <optional>
#include <thread>

#include <fmt/format.h>

#include "mpi_hosts.hpp"
#include "shmtrain/comm/hierarchical/hierarchical_communicator.hpp"
#include "shmtrain/comm/mpi/mpi_communicator.hpp"
#include "shmtrain/comm/shm/segment.hpp"
#include "shmtrain/comm/shm/shm_communicator.hpp"
#include "shmtrain/common/error.hpp"
#include "shmtrain/launch/open_mpi_keepalive.hpp"
#include "shmtrain/launch/rank_placement.hpp"

namespace shmtrain::launch {
namespace {

// Waits for steps that all ranks take together before training (reading and tokenizing the
// data, preparing the output folder) may last long on a large dataset; longer is a hang.
constexpr auto kSetUpTimeout = std::chrono::hours(1);

// How long a rank that calls MPI_Abort leaves mpirun to stop it before it exits by itself (Open
// MPI signals the job's ranks after its odls_base_sigkill_timeout, 1 s).
constexpr auto kAbortGrace = std::chrono::seconds(3);

// MPI_Init and MPI_Finalize, first in and last out of a job's state.
class MpiSession {
 public:
  MpiSession() {
    int provided = MPI_THREAD_SINGLE;
    if (MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided) != MPI_SUCCESS) {
      throw Error(
          "MPI_Init_thread failed: the MPI launcher's environment is not one this MPI library understands "
          "(start shmtrain with the mpirun of the MPI it was built with)");
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    if (provided < MPI_THREAD_SERIALIZED) {
      MPI_Finalize();
      throw Error(
          fmt::format("the MPI library offers thread level {}; shmtrain needs MPI_THREAD_SERIALIZED (its "
                      "exchange thread calls MPI): use an MPI built with thread support",
                      provided));
    }
  }
  ~MpiSession() {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized) MPI_Finalize();
  }
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;
};

std::string mpi_library_version() {
  char version[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int length = 0;
  MPI_Get_library_version(version, &length);
  std::string text(version, static_cast<std::size_t>(std::max(length, 0)));
  text = text.substr(0, text.find_first_of(",\n"));
  return text;
}

std::string hostname() {
  char machine[64] = {};
  gethostname(machine, sizeof(machine) - 1);
  return machine;
}

// Ends the whole job from a rank that cannot go on. Never returns.
[[noreturn]] void abort_job(comm::SegmentHeader* header, const std::string& message, int code) {
  std::fflush(stdout);
  fmt::print(stderr, "{}\n", message);
  std::fflush(stderr);
  if (header != nullptr) comm::raise_abort(*header, message);
  // MPI_Abort asks mpirun to end the job; with the network to mpirun cut it can wait for an
  // answer for minutes. This rank ends itself anyway once mpirun has had its time to do it.
  std::thread([code] {
    std::this_thread::sleep_for(kAbortGrace);
    _exit(code);
  }).detach();
  MPI_Abort(MPI_COMM_WORLD, code);
  _exit(code);  // MPI_Abort returned: nothing else can stop this rank
}

}  // namespace

struct MpiJob::State {
  MpiSession session;
  Hosts hosts;
  std::optional<comm::MpiTransport> world;  // set-up steps
  std::optional<RankPlacement> placement;
  std::string report;
};

MpiJob::MpiJob(int simulated_hosts) : state_(std::make_unique<State>()) {
  state_->world.emplace(MPI_COMM_WORLD, comm::MpiTransportOptions{.timeout = kSetUpTimeout});
  // Another MPI's launcher: this library did not understand its environment and made each
  // process a job of its own, which would train alone and write the same output_dir.
  if (const int expected = mpi_launcher_world_size(); expected > 0 && expected != state_->world->size()) {
    throw Error(
        fmt::format("the MPI launcher started {} ranks, but this shmtrain's MPI ({}) sees a job of {}: start "
                    "it with the mpirun of the MPI it was built with",
                    expected, mpi_library_version(), state_->world->size()));
  }
  state_->hosts = find_hosts(*state_->world, simulated_hosts);
}

MpiJob::~MpiJob() = default;

int MpiJob::rank() const { return state_->hosts.host * state_->hosts.local_size + state_->hosts.local_rank; }
int MpiJob::size() const { return state_->hosts.count * state_->hosts.local_size; }
int MpiJob::hosts() const { return state_->hosts.count; }
int MpiJob::local_rank() const { return state_->hosts.local_rank; }
int MpiJob::local_size() const { return state_->hosts.local_size; }

void MpiJob::together(const std::function<void()>& step) {
  std::string error;
  try {
    step();
  } catch (const std::exception& e) {
    error = describe_failure(e);
  }
  comm::MpiTransport& world = *state_->world;
  int first = error.empty() ? INT_MAX : world.rank();
  allreduce_ints(world, {&first, 1}, MPI_MIN, "agreeing on a step's outcome");
  if (first == INT_MAX) return;
  error = broadcast_string(world, error, first);
  if (first != 0) error = fmt::format("rank {}: {}", first, error);
  stop_everywhere(world, error);
}

std::string MpiJob::broadcast_text(const std::string& text) {
  return broadcast_string(*state_->world, text, 0);
}

const topo::PlacementEntry& MpiJob::place(const topo::TopologySource& source,
                                          const topo::PlacementOptions& options) {
  const Hosts& hosts = state_->hosts;
  together([&] {
    if (options.nproc_per_node != 0 && options.nproc_per_node != hosts.machine_size) {
      fail_input(
          "--nproc_per_node {}: under an MPI launcher the ranks per machine are the launcher's ({} here): "
          "leave --nproc_per_node out, or give the count to mpirun (-ppn, --npernode)",
          options.nproc_per_node, hosts.machine_size);
    }
    state_->placement = place_rank(source, options, hosts.machine_rank, hosts.machine_size);
  });
  const RankPlacement& placement = *state_->placement;
  const std::string machine = hostname();
  const std::string row = fmt::format("{:>4}  {:>4}  {:>5}  {:<16}  {:>7}  {:<10}  {}", rank(), hosts.host,
                                      hosts.local_rank, machine, placement.entry.threads,
                                      topo::format_cpu_list(placement.entry.cpus), placement.binding);
  const std::vector<std::string> rows = gather_strings(*state_->world, row);
  const std::vector<std::string> ranks = gather_strings(*state_->world, std::to_string(rank()));
  if (state_->world->rank() == 0) {
    std::vector<std::string> ordered(rows.size());
    for (std::size_t i = 0; i < rows.size(); ++i) ordered[std::stoul(ranks[i])] = rows[i];
    std::string& report = state_->report;
    report =
        fmt::format("MPI: {} ranks = {} host(s) x {} rank(s){} | {}\n", size(), hosts.count, hosts.local_size,
                    hosts.simulated > 0
                        ? fmt::format(" (simulated hosts: the ranks split by rank / {})", hosts.local_size)
                        : "",
                    mpi_library_version());
    report += fmt::format("{:>4}  {:>4}  {:>5}  {:<16}  {:>7}  {:<10}  {}\n", "rank", "host", "local",
                          "machine", "threads", "cpus", "binding");
    for (const std::string& line : ordered) report += line + "\n";
  }
  return placement.entry;
}

const std::string& MpiJob::report() const { return state_->report; }

int MpiJob::run(const LaunchOptions& options, const WorkerFunction& worker) {
  if (!state_->placement) throw Error("MpiJob::run: place() first");
  const Hosts& hosts = state_->hosts;
  const RankPlacement& placement = *state_->placement;
  // Open MPI between real hosts: say when a cut network would leave mpirun waiting long after
  // --ddp_timeout (open_mpi_keepalive.hpp says why).
  const bool open_mpi = std::getenv("OMPI_COMM_WORLD_SIZE") != nullptr;
  if (rank() == 0 && hosts.count > 1 && hosts.simulated == 0 && open_mpi) {
    const std::string note = keepalive_note(open_mpi_keepalive_in_force(), options.between_hosts_timeout);
    if (!note.empty()) fmt::print(stderr, "shmtrain: {}\n", note);
  }
  const std::string token = broadcast_text(rank() == 0 ? comm::make_job_token() : "");
  const std::string name = fmt::format("{}{}-{}", comm::kSegmentPrefix, token, hosts.host);

  // The host's segment: local rank 0 creates it, the others map it, then its name goes.
  std::optional<comm::Segment> segment;
  together([&] {
    if (hosts.local_rank != 0) return;
    for (const comm::StaleSegment& stale : comm::remove_stale_segments()) {
      fmt::print(stderr,
                 "shmtrain: removed the stale segment /dev/shm/{} of a job whose launcher (pid {}) is gone\n",
                 stale.name, stale.launcher_pid);
    }
    segment.emplace(comm::Segment::create_named({hosts.local_size, options.slot_bytes, options.arena_bytes}, name));
  });
  together([&] {
    if (hosts.local_rank != 0) segment.emplace(comm::Segment::open(name));
  });
  if (hosts.local_rank == 0) segment->unlink();

  comm::SegmentHeader* header = &segment->header();
  int code = 0;
  try {
    comm::ShmOptions shm = options.comm;
    shm.transport.threads = placement.entry.threads;
    comm::ShmCommunicator local(segment->bytes(), hosts.local_rank, shm);
    // Within a host the shm waits watch the host's ranks' heartbeats. Between hosts there is no
    // heartbeat to watch: a wait between hosts (the column's rank is the host's index) that makes
    // no progress for between_hosts_timeout (--ddp_timeout when given, else torch.distributed's
    // 1800 s) ends the job. A stopped rank, a dead one whose connection MPI has not seen fail,
    // or a cut network end it within that time; so would a save or evaluation on one host that
    // outlasts it, which is why the default is long.
    const std::string reason = fmt::format(
        "the exchange between hosts waited {} s (--ddp_timeout) for {}: one of its ranks is stopped or gone, "
        "or the network between the hosts is cut (this is host {} of {}, {})",
        options.between_hosts_timeout.count(),
        hosts.count == 2 ? fmt::format("host {}", 1 - hosts.host) : std::string("another host"), hosts.host,
        hosts.count, hostname());
    comm::MpiCommunicator column(hosts.column_comm, {.timeout = options.between_hosts_timeout,
                                                     .threads = placement.entry.threads,
                                                     .watch = header,
                                                     .timeout_reason = reason});
    comm::HierarchicalCommunicator communicator(local, column);
    WorkerContext context{communicator.rank(), communicator.size(), placement.entry, communicator, placement.bound};
    code = worker(context);
  } catch (const comm::PeerFailure& e) {
    abort_job(header,
              fmt::format("shmtrain: rank {} (host {}, local rank {}): stopped: {}", rank(), hosts.host,
                          hosts.local_rank, e.what()),
              kExitPeerFailure);
  } catch (const std::exception& e) {
    abort_job(header,
              fmt::format("shmtrain: rank {} (host {}, local rank {}): error: {}", rank(), hosts.host,
                          hosts.local_rank, describe_failure(e)),
              kExitFailed);
  }
  allreduce_ints(*state_->world, {&code, 1}, MPI_MAX, "agreeing on the exit code");
  return code;
}

void MpiJob::plain_allreduce(std::span<float> data) {
  comm::MpiTransport& world = *state_->world;
  world.check(MPI_Allreduce(MPI_IN_PLACE, data.data(), comm::mpi_count(data.size(), "MPI_Allreduce"),
                            MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD),
              "MPI_Allreduce");
}

}  // namespace shmtrain::launch
