#pragma once
// Jobs as background processes, for the tests that kill a worker or a rank mid-run: starting
// them, finding their processes, and the shmtrain segments in /dev/shm.
#include <sys/types.h>

#include <filesystem>
#include <set>
#include <string>
#include <vector>

namespace shmtrain::testing {

// Names of the shmtrain-* segments in /dev/shm.
std::set<std::string> shmtrain_segments();
// The shmtrain-* segments in /dev/shm whose creator (the header's launcher pid) is in `pids`:
// other jobs on the machine (tests running in parallel) come and go, these must not stay.
std::vector<std::string> segments_created_by(const std::vector<pid_t>& pids);

// The children of `pid`, and every process below it running `program`.
std::vector<pid_t> children_of(pid_t pid);
std::vector<pid_t> descendants_running(pid_t pid, const std::filesystem::path& program);

// `argv` (argv[0] looked up on PATH) started in the background, stdout and stderr into files.
pid_t start_process(const std::vector<std::string>& argv, const std::filesystem::path& out,
                    const std::filesystem::path& err);

std::vector<std::string> split_words(const std::string& text);

}  // namespace shmtrain::testing
