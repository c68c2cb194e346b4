#include "shmtrain/launch/launcher.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>

#include <fmt/format.h>

#include "shmtrain/common/sanitizers.hpp"
#include "supervisor.hpp"
#include "worker_process.hpp"

// OpenBLAS's worker pool is fork-safe: OpenBLAS shuts it down in a pthread_atfork handler and
// restarts it on demand. The launcher shuts it down itself before it counts threads, the same
// call: the pool's size cannot be asked (openblas_get_num_threads says how many threads the
// next call may use, 1 after set_compute_threads, while the pool started at load keeps its
// threads). Weak: a BLAS without the pool has no such function.
extern "C" void blas_thread_shutdown_(void) __attribute__((weak));

namespace shmtrain::launch {
namespace {

// ThreadSanitizer's runtime starts a background thread of its own with a process's first
// pthread_create (here OpenBLAS's pool); the runtime makes fork() safe for it, like the pool.
constexpr int kSanitizerThreads = SHMTRAIN_TSAN ? 1 : 0;

int threads_in_this_process() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);) {
    if (line.starts_with("Threads:")) return std::stoi(line.substr(8));
  }
  return 1;  // no /proc: cannot tell, and fork() itself will not fail for it
}

// A thread joined a moment ago (oneTBB's workers, just stopped by stop_compute_threads) may still
// be counted: pthread_join returns when the thread clears its tid, a step of its exit that comes
// before the kernel takes it out of the thread group, and on a loaded machine the rest of the
// exit can wait for a CPU. Such a thread is gone within milliseconds; one that runs stays.
int threads_once_joined_ones_left(int allowed) {
  int threads = threads_in_this_process();
  for (int waited_ms = 0; threads > allowed && waited_ms < 2000; waited_ms += 5) {
    usleep(5000);
    threads = threads_in_this_process();
  }
  return threads;
}

// The launcher's signals arrive through a signalfd; they stay blocked until it is closed and
// the old mask restored, so that no handler runs in the middle of fork() bookkeeping.
class SignalRouting {
 public:
  SignalRouting() {
    sigset_t set;
    sigemptyset(&set);
    for (int sig : {SIGCHLD, SIGINT, SIGTERM, SIGHUP}) sigaddset(&set, sig);
    if (sigprocmask(SIG_BLOCK, &set, &old_mask_) != 0) throw_errno("sigprocmask");
    fd_ = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
    if (fd_ < 0) {
      const int saved = errno;
      sigprocmask(SIG_SETMASK, &old_mask_, nullptr);
      throw SystemError("signalfd", saved);
    }
  }
  ~SignalRouting() {
    close(fd_);
    // Signals that arrived while blocked are consumed here rather than delivered after the
    // job: a pending SIGCHLD is harmless, a pending SIGINT was already acted upon.
    sigset_t pending;
    sigpending(&pending);
    sigset_t ours;
    sigemptyset(&ours);
    for (int sig : {SIGCHLD, SIGINT, SIGTERM, SIGHUP}) {
      if (sigismember(&pending, sig)) sigaddset(&ours, sig);
    }
    timespec zero{0, 0};
    while (sigtimedwait(&ours, nullptr, &zero) > 0) {
    }
    sigprocmask(SIG_SETMASK, &old_mask_, nullptr);
  }
  SignalRouting(const SignalRouting&) = delete;
  SignalRouting& operator=(const SignalRouting&) = delete;
  int fd() const { return fd_; }

 private:
  sigset_t old_mask_{};
  int fd_ = -1;
};

void make_pipe(int fds[2]) {
  if (pipe2(fds, O_CLOEXEC) != 0) throw_errno("pipe2 for a worker's output");
}

}  // namespace

std::string describe_wait_status(int status) {
  if (WIFEXITED(status)) return fmt::format("exited with status {}", WEXITSTATUS(status));
  if (WIFSIGNALED(status)) {
    return fmt::format("killed by signal {} ({})", WTERMSIG(status), strsignal(WTERMSIG(status)));
  }
  return fmt::format("ended with wait status {:#x}", status);
}

void launch_workers(const topo::Topology& topology, const topo::PlacementPlan& plan, const LaunchOptions& options,
                    const WorkerFunction& worker) {
  if (plan.workers.empty()) throw InputError("the placement plan holds no worker");
  if (blas_thread_shutdown_ != nullptr) blas_thread_shutdown_();
  const int allowed = 1 + kSanitizerThreads;
  if (const int threads = threads_once_joined_ones_left(allowed); threads > allowed) {
    throw Error(fmt::format("launch_workers: {} threads run in this process; workers must be forked before any "
                            "other thread starts (oneTBB, std::thread)",
                            threads));
  }

  // Mapped before fork, inherited by every worker, gone with the last of them: nothing in /dev/shm.
  const int world = static_cast<int>(plan.workers.size());
  const comm::Segment segment = comm::Segment::create_anonymous({world, options.slot_bytes, options.arena_bytes});
  SignalRouting signals;

  std::vector<ChildProcess> children;
  std::vector<int> launcher_fds{signals.fd()};  // every descriptor a worker must not keep
  for (int rank = 0; rank < world; ++rank) {
    ChildProcess child;
    child.rank = rank;
    child.package = plan.workers[static_cast<std::size_t>(rank)].package;
    int out[2] = {-1, -1};
    int err[2] = {-1, -1};
    try {
      if (rank > 0) {
        make_pipe(out);
        make_pipe(err);
        launcher_fds.insert(launcher_fds.end(), {out[0], out[1], err[0], err[1]});
      }
      std::fflush(nullptr);  // or buffered output would be written twice, once by the worker
      const pid_t pid = fork();
      if (pid < 0) throw_errno(fmt::format("fork for worker {}", rank));
      if (pid == 0) {
        WorkerSetup setup{&topology, &plan, &options, &worker, segment.bytes(),
                          getppid(),  rank,  out[1],   err[1],  launcher_fds};
        run_worker_process(setup);
      }
      child.pid = pid;
      comm::rank_control(segment.bytes(), rank).pid.store(pid, std::memory_order_relaxed);
    } catch (...) {
      stop_children(children, options.grace);
      throw;
    }
    if (rank > 0) {
      close(out[1]);
      close(err[1]);
      std::erase(launcher_fds, out[1]);
      std::erase(launcher_fds, err[1]);
      fcntl(out[0], F_SETFL, O_NONBLOCK);
      fcntl(err[0], F_SETFL, O_NONBLOCK);
      child.stdout_fd = out[0];
      child.stderr_fd = err[0];
    }
    children.push_back(std::move(child));
  }

  Outcome outcome;
  try {
    outcome = supervise(children, segment.bytes(), signals.fd(),
                        {options.grace, options.comm.transport.stall_timeout, options.other_ranks_stdout});
  } catch (...) {
    stop_children(children, options.grace);
    throw;
  }
  if (outcome.interrupt_signal != 0) {
    throw Interrupted(fmt::format("interrupted by signal {} ({}): all {} workers stopped", outcome.interrupt_signal,
                                  strsignal(outcome.interrupt_signal), world),
                      outcome.interrupt_signal);
  }
  if (outcome.failure) throw WorkerFailure(*outcome.failure, outcome.failed_rank, outcome.failed_pid);
}

}  // namespace shmtrain::launch
