#pragma once
// `shmtrain train --hostfile FILE --nnodes N ...`: for users who do not write the mpirun line
// themselves. shmtrain builds it (N hosts from the hostfile, ranks per host = this machine's
// sockets or --nproc_per_node), prints it, and replaces itself with it; mpirun then starts
// shmtrain on every host with the same arguments minus --hostfile and --nnodes. Every host
// must hold shmtrain at the same path and be reachable as mpirun needs (docs/multi-node.md).
#include <filesystem>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace shmtrain::launch {

enum class MpiFlavor {
  open_mpi,  // Open MPI's mpirun: --hostfile, -np, --map-by ppr:N:node
  hydra,     // MPICH's and Intel MPI's mpirun (Hydra): -f, -n, -ppn
};

struct MpirunRequest {
  std::string mpirun = "mpirun";  // found on PATH
  std::filesystem::path hostfile;
  int nnodes = 1;
  int ranks_per_node = 1;
  std::vector<std::string> program;  // shmtrain and its arguments
  // Open MPI only: `--mca NAME VALUE` each (Hydra has no such settings).
  std::vector<std::pair<std::string, std::string>> open_mpi_mca;
};

// Runs `mpirun --version`: "Open MPI" is open_mpi, "HYDRA" or "Intel" hydra. Throws InputError
// when it cannot be run or is neither.
MpiFlavor detect_mpi_flavor(const std::string& mpirun);

// The mpirun command line. With Open MPI, --bind-to none (shmtrain binds each rank itself) and,
// for root, --allow-run-as-root (containers often run as root).
std::vector<std::string> mpirun_command(const MpirunRequest& request, MpiFlavor flavor, bool as_root);

// The hosts a hostfile names, one per line: Open MPI's "host slots=N" and Hydra's "host:N";
// blank lines and # comments skipped. Throws InputError for a missing or empty file.
std::vector<std::string> read_hostfile(const std::filesystem::path& hostfile);

// This process's command line (/proc/self/cmdline), its program as an absolute path
// (/proc/self/exe), without the flags named (and their values: "--flag value" or "--flag=value").
std::vector<std::string> this_command_without(std::initializer_list<std::string_view> flags);

// The words as one line a POSIX shell reads back into the same words.
std::string shell_join(const std::vector<std::string>& words);

// Replaces this process with `command` (looked up on PATH). Throws SystemError if it cannot.
[[noreturn]] void exec_command(const std::vector<std::string>& command);

}  // namespace shmtrain::launch
