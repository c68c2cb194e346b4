#include "worker_process.hpp"

#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cstdio>
#include <exception>

#include <fmt/format.h>

#include "shmtrain/comm/shm/shm_communicator.hpp"
#include "shmtrain/common/error.hpp"
#include "shmtrain/tensor/threads.hpp"
#include "shmtrain/topo/binding.hpp"

namespace shmtrain::launch {
namespace {

// Whatever the launcher blocked or redirected, a worker starts with default signal handling,
// except SIGINT: Ctrl-C reaches the whole foreground process group, and the launcher, not each
// worker on its own, decides how the job stops; and SIGPIPE: a closed pipe on the console
// (`shmtrain train ... | head`) makes rank 0's writes fail, not the job die midway.
void reset_signals() {
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  for (int sig : {SIGTERM, SIGHUP, SIGCHLD}) signal(sig, SIG_DFL);
  signal(SIGINT, SIG_IGN);
  signal(SIGPIPE, SIG_IGN);
}

void redirect(int fd, int target) {
  if (fd < 0) return;
  if (dup2(fd, target) < 0) throw_errno(fmt::format("dup2 onto fd {}", target));
}

int run(const WorkerSetup& setup) {
  const topo::PlacementEntry& entry = setup.plan->workers[static_cast<std::size_t>(setup.rank)];
  try {
    if (setup.plan->bind) topo::bind_this_process(*setup.topology, entry);
    tensor::set_compute_threads(entry.threads);
    comm::ShmOptions options = setup.options->comm;
    options.transport.threads = entry.threads;
    comm::ShmCommunicator communicator(setup.segment, setup.rank, options);
    WorkerContext context{setup.rank, static_cast<int>(setup.plan->workers.size()), entry, communicator,
                          setup.plan->bind};
    try {
      return (*setup.function)(context);
    } catch (const comm::PeerFailure& e) {
      fmt::print(stderr, "shmtrain: worker {}: stopped: {}\n", setup.rank, e.what());
      return kExitPeerFailure;
    } catch (const std::exception& e) {
      fmt::print(stderr, "shmtrain: worker {}: error: {}\n", setup.rank, describe_failure(e));
      return kExitFailed;
    }
  } catch (const std::exception& e) {
    fmt::print(stderr, "shmtrain: worker {}: set-up failed: {}\n", setup.rank, describe_failure(e));
    return kExitSetupFailed;
  }
}

}  // namespace

void run_worker_process(const WorkerSetup& setup) {
  // The launcher may have died between fork() and prctl(): then no signal would ever come.
  if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != setup.launcher_pid) _exit(kExitOrphaned);
  reset_signals();
  int code = kExitSetupFailed;
  try {
    redirect(setup.stdout_fd, STDOUT_FILENO);
    redirect(setup.stderr_fd, STDERR_FILENO);
    for (int fd : setup.fds_to_close) close(fd);
    // A pipe is block-buffered by default: keep lines flowing to the launcher as they happen.
    if (setup.stdout_fd >= 0) std::setvbuf(stdout, nullptr, _IOLBF, 0);
    code = run(setup);
  } catch (const std::exception& e) {
    fmt::print(stderr, "shmtrain: worker {}: {}\n", setup.rank, describe_failure(e));
  }
  std::fflush(nullptr);
  // _exit, not exit: the launcher's atexit handlers and static destructors are not ours to run.
  _exit(code);
}

}  // namespace shmtrain::launch
