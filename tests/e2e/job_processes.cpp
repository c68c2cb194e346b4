#include "job_processes.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "shmtrain/comm/shm/segment.hpp"

namespace shmtrain::testing {

namespace fs = std::filesystem;

std::set<std::string> shmtrain_segments() {
  std::set<std::string> names;
  for (const auto& entry : fs::directory_iterator("/dev/shm")) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("shmtrain-", 0) == 0) names.insert(name);
  }
  return names;
}

std::vector<std::string> segments_created_by(const std::vector<pid_t>& pids) {
  std::vector<std::string> found;
  for (const std::string& name : shmtrain_segments()) {
    try {
      const comm::Segment segment = comm::Segment::open(name);
      if (std::count(pids.begin(), pids.end(), segment.header().launcher_pid) > 0) found.push_back(name);
    } catch (const std::exception&) {
      // removed meanwhile, or not yet initialised: another job's
    }
  }
  return found;
}

std::vector<pid_t> children_of(pid_t pid) {
  std::ifstream file(fmt::format("/proc/{}/task/{}/children", pid, pid));
  std::vector<pid_t> pids;
  for (pid_t child; file >> child;) pids.push_back(child);
  return pids;
}

std::vector<pid_t> descendants_running(pid_t pid, const fs::path& program) {
  std::vector<pid_t> found;
  for (pid_t child : children_of(pid)) {
    std::error_code error;
    if (fs::read_symlink(fmt::format("/proc/{}/exe", child), error) == fs::canonical(program))
      found.push_back(child);
    for (pid_t below : descendants_running(child, program)) found.push_back(below);
  }
  return found;
}

pid_t start_process(const std::vector<std::string>& argv, const fs::path& out, const fs::path& err) {
  const pid_t pid = fork();
  if (pid != 0) return pid;
  const int out_fd = open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  const int err_fd = open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (out_fd < 0 || err_fd < 0 || dup2(out_fd, STDOUT_FILENO) < 0 || dup2(err_fd, STDERR_FILENO) < 0)
    _exit(126);
  std::vector<char*> args;
  for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  execvp(args[0], args.data());
  _exit(127);
}

std::vector<std::string> split_words(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> words;
  for (std::string word; in >> word;) words.push_back(word);
  return words;
}

}  // namespace shmtrain::testing
