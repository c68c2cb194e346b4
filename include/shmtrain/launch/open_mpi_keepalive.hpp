#pragma once
// How soon Open MPI notices a host cut off from the network, and a note when that is later
// than --ddp_timeout.
//
// Why it matters: mpirun hears from a remote host's daemon over one TCP connection that is idle
// while the job trains. When a rank gives up on a silent host (--ddp_timeout) and the job is
// aborted, mpirun sends that daemon an order to end its ranks and waits for the answer; the
// order sits unacknowledged and TCP retransmits it for about 15 minutes, so mpirun waits that
// long although every rank has ended. When the daemon's loss is noticed first, by the
// connection's keepalive probes (oob_tcp_keepalive_time + intvl x probes, 300 + 20 x 9 = 480 s by
// default), mpirun ends the job at once ("ORTE has lost communication with a remote daemon ... on
// node <host>"). So a cut network ends the job promptly only when that detection comes before
// --ddp_timeout.
#include <chrono>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace shmtrain::launch {

struct OpenMpiKeepalive {
  std::int64_t time = 300;  // seconds idle before the first probe; <= 0: keepalive off
  std::int64_t intvl = 20;  // seconds between probes
  std::int64_t probes = 9;  // probes missed before the connection is declared lost

  // Seconds from a cut to mpirun noticing it; nullopt when keepalive is off (never).
  std::optional<std::int64_t> detection_seconds() const;
};

// The settings mpirun runs with, as Open MPI resolves them: OMPI_MCA_oob_tcp_keepalive_* in the
// environment (mpirun --mca puts them there for its ranks too), else the first of `param_files`
// (`name = value` lines, # comments) that sets them, else Open MPI's defaults. A value that is
// not a whole number is ignored, as a setting this code cannot read.
OpenMpiKeepalive read_open_mpi_keepalive(const std::function<const char*(const char*)>& getenv,
                                         const std::vector<std::filesystem::path>& param_files);

// Open MPI's parameter files in its order: $HOME/.openmpi/mca-params.conf, then the system's.
std::vector<std::filesystem::path> open_mpi_param_files(
    const std::function<const char*(const char*)>& getenv);

// read_open_mpi_keepalive of this process's environment and Open MPI's parameter files.
OpenMpiKeepalive open_mpi_keepalive_in_force();

// True when the keepalive notices a cut host before `between_hosts` seconds have passed.
bool notices_before(const OpenMpiKeepalive& keepalive, std::chrono::seconds between_hosts);

// Settings that notice a cut within about a third of `between_hosts` (at least 3 s): the
// `--mca NAME VALUE` pairs shmtrain's own mpirun line adds when the note below would be due.
std::vector<std::pair<std::string, std::string>> keepalive_settings_for(std::chrono::seconds between_hosts);

// A note for the user when a cut network would outlast --ddp_timeout (`between_hosts` seconds)
// by mpirun's wait, with the mpirun flags that fix it; "" when detection comes first.
std::string keepalive_note(const OpenMpiKeepalive& keepalive, std::chrono::seconds between_hosts);

}  // namespace shmtrain::launch
