#include "shmtrain/launch/mpirun_command.hpp"

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <memory>
#include <sstream>

#include <fmt/format.h>

#include "shmtrain/common/error.hpp"

namespace shmtrain::launch {
namespace fs = std::filesystem;

MpiFlavor detect_mpi_flavor(const std::string& mpirun) {
  const std::string command = shell_join({mpirun, "--version"}) + " 2>&1";
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(command.c_str(), "r"), pclose);
  if (!pipe) throw_errno("popen " + command);
  std::string output;
  char buffer[512];
  while (std::fgets(buffer, sizeof(buffer), pipe.get()) != nullptr) output += buffer;
  const int status = pclose(pipe.release());
  if (output.find("Open MPI") != std::string::npos || output.find("OpenRTE") != std::string::npos) {
    return MpiFlavor::open_mpi;
  }
  if (output.find("HYDRA") != std::string::npos || output.find("Intel") != std::string::npos)
    return MpiFlavor::hydra;
  fail_input(
      "`{} --version` {}: install Open MPI (openmpi-bin) or MPICH on every host, with {} on PATH", mpirun,
      status == 0 ? "names neither Open MPI nor Hydra (MPICH, Intel MPI)" : "failed: " + output, mpirun);
}

std::vector<std::string> mpirun_command(const MpirunRequest& request, MpiFlavor flavor, bool as_root) {
  const std::string ranks = std::to_string(request.nnodes * request.ranks_per_node);
  std::vector<std::string> command{request.mpirun};
  if (flavor == MpiFlavor::open_mpi) {
    if (as_root) command.push_back("--allow-run-as-root");
    command.insert(command.end(), {"--hostfile", request.hostfile.string(), "-np", ranks, "--map-by",
                                   fmt::format("ppr:{}:node", request.ranks_per_node), "--bind-to", "none"});
    for (const auto& [name, value] : request.open_mpi_mca) command.insert(command.end(), {"--mca", name, value});
  } else {
    command.insert(command.end(), {"-f", request.hostfile.string(), "-n", ranks, "-ppn",
                                   std::to_string(request.ranks_per_node)});
  }
  command.insert(command.end(), request.program.begin(), request.program.end());
  return command;
}

std::vector<std::string> read_hostfile(const fs::path& hostfile) {
  std::ifstream in(hostfile);
  if (!in) fail_input("--hostfile {}: cannot read it", hostfile.string());
  std::vector<std::string> hosts;
  for (std::string line; std::getline(in, line);) {
    line = line.substr(0, line.find('#'));
    std::istringstream words(line);
    std::string host;
    if (!(words >> host)) continue;
    hosts.push_back(host.substr(0, host.find(':')));
  }
  if (hosts.empty())
    fail_input("--hostfile {} names no host: write one host name or address per line", hostfile.string());
  return hosts;
}

std::vector<std::string> this_command_without(std::initializer_list<std::string_view> flags) {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::vector<std::string> args;
  for (std::string arg; std::getline(in, arg, '\0');) args.push_back(arg);
  if (args.empty()) throw Error("cannot read this process's command line from /proc/self/cmdline");
  std::error_code error;
  const fs::path exe = fs::read_symlink("/proc/self/exe", error);
  std::vector<std::string> out{error ? fs::absolute(args[0]).string() : exe.string()};
  for (std::size_t i = 1; i < args.size(); ++i) {
    bool dropped = false;
    for (std::string_view flag : flags) {
      if (args[i] == flag) {
        ++i;  // its value
        dropped = true;
      } else if (args[i].size() > flag.size() && args[i].starts_with(flag) && args[i][flag.size()] == '=') {
        dropped = true;
      }
      if (dropped) break;
    }
    if (!dropped) out.push_back(args[i]);
  }
  return out;
}

std::string shell_join(const std::vector<std::string>& words) {
  std::string line;
  for (const std::string& word : words) {
    if (!line.empty()) line += ' ';
    const bool plain = !word.empty() && word.find_first_not_of(
                                            "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                            "0123456789_-./=:,+@%") == std::string::npos;
    if (plain) {
      line += word;
      continue;
    }
    line += '\'';
    for (char c : word) line += c == '\'' ? std::string("'\\''") : std::string(1, c);
    line += '\'';
  }
  return line;
}

void exec_command(const std::vector<std::string>& command) {
  std::vector<char*> argv;
  for (const std::string& word : command) argv.push_back(const_cast<char*>(word.c_str()));
  argv.push_back(nullptr);
  std::fflush(nullptr);
  execvp(argv[0], argv.data());
  throw_errno(fmt::format("cannot start {}: is it installed and on PATH?", command.front()));
}

}  // namespace shmtrain::launch
