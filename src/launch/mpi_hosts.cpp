#include "mpi_hosts.hpp"

#include <algorithm>
#include <array>
#include <cstring>

#include <fmt/format.h>

#include "shmtrain/launch/mpi_job.hpp"

namespace shmtrain::launch {
namespace {

constexpr std::size_t kGatherBytes = 512;

// Every rank found the same problem: rank 0 says it, the others end quietly.
template <typename... Args>
[[noreturn]] void fail_everywhere(comm::MpiTransport& world, fmt::format_string<Args...> format, Args&&... args) {
  stop_everywhere(world, fmt::format(format, std::forward<Args>(args)...));
}

int rank_in(const comm::MpiTransport& world, MPI_Comm comm) {
  int rank = 0;
  world.check(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
  return rank;
}

int size_of(const comm::MpiTransport& world, MPI_Comm comm) {
  int size = 0;
  world.check(MPI_Comm_size(comm, &size), "MPI_Comm_size");
  return size;
}

OwnedComm split(const comm::MpiTransport& world, MPI_Comm parent, int color, int key) {
  MPI_Comm comm = MPI_COMM_NULL;
  world.check(MPI_Comm_split(parent, color, key, &comm), "MPI_Comm_split");
  return OwnedComm(comm);
}

OwnedComm split_shared(const comm::MpiTransport& world, MPI_Comm parent, int key) {
  MPI_Comm comm = MPI_COMM_NULL;
  world.check(MPI_Comm_split_type(parent, MPI_COMM_TYPE_SHARED, key, MPI_INFO_NULL, &comm),
              "MPI_Comm_split_type(MPI_COMM_TYPE_SHARED)");
  return OwnedComm(comm);
}

}  // namespace

void allreduce_ints(comm::MpiTransport& transport, std::span<int> values, MPI_Op op, const char* what) {
  MPI_Request request = MPI_REQUEST_NULL;
  transport.check(MPI_Iallreduce(MPI_IN_PLACE, values.data(), static_cast<int>(values.size()), MPI_INT, op,
                                 transport.comm(), &request),
                  "MPI_Iallreduce");
  transport.wait(request, what);
}

void broadcast_ints(comm::MpiTransport& transport, std::span<int> values, int root, const char* what) {
  MPI_Request request = MPI_REQUEST_NULL;
  transport.check(
      MPI_Ibcast(values.data(), static_cast<int>(values.size()), MPI_INT, root, transport.comm(), &request),
      "MPI_Ibcast");
  transport.wait(request, what);
}

std::string broadcast_string(comm::MpiTransport& transport, const std::string& text, int root) {
  int length = static_cast<int>(text.size());
  broadcast_ints(transport, {&length, 1}, root, "sharing a text's length");
  std::string out = transport.rank() == root ? text : std::string(static_cast<std::size_t>(length), '\0');
  MPI_Request request = MPI_REQUEST_NULL;
  transport.check(MPI_Ibcast(out.data(), length, MPI_CHAR, root, transport.comm(), &request), "MPI_Ibcast");
  transport.wait(request, "sharing a text");
  return out;
}

std::vector<std::string> gather_strings(comm::MpiTransport& transport, const std::string& text) {
  std::array<char, kGatherBytes> own{};
  std::memcpy(own.data(), text.data(), std::min(text.size(), kGatherBytes - 1));
  const bool root = transport.rank() == 0;
  std::vector<char> all(root ? kGatherBytes * static_cast<std::size_t>(transport.size()) : 0);
  MPI_Request request = MPI_REQUEST_NULL;
  transport.check(MPI_Igather(own.data(), static_cast<int>(kGatherBytes), MPI_CHAR, all.data(),
                              static_cast<int>(kGatherBytes), MPI_CHAR, 0, transport.comm(), &request),
                  "MPI_Igather");
  transport.wait(request, "gathering every rank's placement");
  std::vector<std::string> texts;
  for (std::size_t q = 0; root && q < static_cast<std::size_t>(transport.size()); ++q) {
    texts.emplace_back(all.data() + q * kGatherBytes);
  }
  return texts;
}

void stop_everywhere(comm::MpiTransport& world, const std::string& message) {
  if (world.rank() == 0) {
    std::fflush(stdout);
    fmt::print(stderr, "shmtrain: error: {}\n", message);
    std::fflush(stderr);
  }
  // No rank leaves before rank 0 has printed: the launcher stops the whole job at the first
  // non-zero exit, which could otherwise come before the message.
  int done = 1;
  allreduce_ints(world, {&done, 1}, MPI_MIN, "stopping after an error");
  throw ReportedByRankZero(message);
}

Hosts find_hosts(comm::MpiTransport& world, int simulated_hosts) {
  Hosts hosts;
  const int world_rank = world.rank();
  const int world_size = world.size();
  hosts.simulated = simulated_hosts;
  hosts.machine_comm = split_shared(world, MPI_COMM_WORLD, world_rank);
  hosts.machine_rank = rank_in(world, hosts.machine_comm);
  hosts.machine_size = size_of(world, hosts.machine_comm);

  if (simulated_hosts < 0) fail_everywhere(world, "--simulated_hosts must be >= 0, not {}", simulated_hosts);
  if (simulated_hosts > 0) {
    if (world_size % simulated_hosts != 0) {
      fail_everywhere(
          world,
          "--simulated_hosts {} does not divide the job's {} ranks: simulated hosts take size / {} "
          "ranks each",
          simulated_hosts, world_size, simulated_hosts);
    }
    const int per_host = world_size / simulated_hosts;
    hosts.host_comm = split(world, MPI_COMM_WORLD, world_rank / per_host, world_rank);
    const OwnedComm inside = split_shared(world, hosts.host_comm, world_rank);
    int one_machine = size_of(world, inside) == per_host ? 1 : 0;
    allreduce_ints(world, {&one_machine, 1}, MPI_MIN, "checking the simulated hosts");
    if (one_machine == 0) {
      fail_everywhere(world,
                      "--simulated_hosts {}: a simulated host of ranks r / {} would span machines; simulated "
                      "hosts split the ranks of one machine (for tests): drop the flag on real hosts",
                      simulated_hosts, per_host);
    }
  } else {
    MPI_Comm copy = MPI_COMM_NULL;
    world.check(MPI_Comm_dup(hosts.machine_comm, &copy), "MPI_Comm_dup");
    hosts.host_comm = OwnedComm(copy);
  }
  hosts.local_rank = rank_in(world, hosts.host_comm);
  hosts.local_size = size_of(world, hosts.host_comm);

  std::array<int, 2> extremes = {hosts.local_size, -hosts.local_size};
  allreduce_ints(world, extremes, MPI_MIN, "comparing the hosts' rank counts");
  if (extremes[0] != -extremes[1]) {
    fail_everywhere(world,
                    "the hosts run different numbers of ranks (from {} to {}): every host must run the same "
                    "number (mpirun -ppn N or --npernode N, or a hostfile with equal slots)",
                    extremes[0], -extremes[1]);
  }
  hosts.count = world_size / hosts.local_size;
  {
    const OwnedComm leaders =
        split(world, MPI_COMM_WORLD, hosts.local_rank == 0 ? 0 : MPI_UNDEFINED, world_rank);
    if (hosts.local_rank == 0) hosts.host = rank_in(world, leaders);
  }
  comm::MpiTransport host_transport(hosts.host_comm, world.options());
  broadcast_ints(host_transport, {&hosts.host, 1}, 0, "sharing the host's index");
  hosts.column_comm = split(world, MPI_COMM_WORLD, hosts.local_rank, hosts.host);
  return hosts;
}

}  // namespace shmtrain::launch
