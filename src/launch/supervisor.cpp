#include "supervisor.hpp"

#include <poll.h>
#include <signal.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <thread>
#include <utility>
#include <algorithm>

#include <fmt/format.h>

#include "shmtrain/comm/shm/heartbeat.hpp"
#include "shmtrain/common/error.hpp"
#include "shmtrain/launch/launcher.hpp"

namespace shmtrain::launch {
namespace {

using Clock = std::chrono::steady_clock;
// After the last child is reaped, pipes still held by a grandchild are not waited for longer.
constexpr auto kDrainLimit = std::chrono::seconds(1);
// After the abort flag is raised, workers waiting in a collective see it within milliseconds
// and exit with their own message; SIGTERM follows for those busy elsewhere.
constexpr auto kAbortNotice = std::chrono::milliseconds(1000);
// How often the heartbeats are looked at while workers run: well inside comm::kMaxCountedGap, and
// a stall is named at most this long after the waiting peers see it.
constexpr auto kLookInterval = std::chrono::milliseconds(250);

void write_all(int fd, std::string_view text) {
  while (!text.empty()) {
    const ssize_t n = write(fd, text.data(), text.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return;  // the terminal is gone; the workers' output has nowhere to go
    }
    text.remove_prefix(static_cast<std::size_t>(n));
  }
}

// Reads what the pipe holds and forwards complete lines with the rank prefix. Returns false at EOF.
bool forward(int& fd, std::string& partial, int rank, int target, bool keep, bool at_eof_flush) {
  char buffer[65536];
  const ssize_t n = read(fd, buffer, sizeof(buffer));
  if (n < 0 && (errno == EINTR || errno == EAGAIN)) return true;
  if (n > 0) {
    partial.append(buffer, static_cast<std::size_t>(n));
  }
  std::size_t start = 0;
  for (std::size_t newline; (newline = partial.find('\n', start)) != std::string::npos; start = newline + 1) {
    if (keep) write_all(target, fmt::format("[rank {}] {}\n", rank, std::string_view(partial).substr(start, newline - start)));
  }
  partial.erase(0, start);
  if (n > 0) return true;
  if (at_eof_flush && !partial.empty() && keep) write_all(target, fmt::format("[rank {}] {}\n", rank, partial));
  partial.clear();
  close(fd);
  fd = -1;
  return false;
}

class Supervisor {
 public:
  Supervisor(std::vector<ChildProcess>& children, std::span<std::byte> segment, int signal_fd,
             const SuperviseOptions& options)
      : children_(children),
        segment_(segment),
        header_(comm::validate_segment(segment)),
        signal_fd_(signal_fd),
        grace_(options.grace),
        stall_timeout_(options.stall_timeout),
        other_stdout_(options.other_ranks_stdout) {
    const auto now = Clock::now();
    for (const ChildProcess& child : children_) watches_.emplace_back(control(child), now);
  }

  Outcome run() {
    std::optional<Clock::time_point> all_reaped_at;
    while (true) {
      const bool running = any_running();
      if (!running && !all_reaped_at) all_reaped_at = Clock::now();
      if (!running && (!any_pipe_open() || Clock::now() - *all_reaped_at > kDrainLimit)) break;
      poll_once(running);
      reap();
      check_heartbeats();
      if (term_deadline_ && Clock::now() >= *term_deadline_) {
        signal_all(SIGTERM);
        term_deadline_.reset();
        kill_deadline_ = Clock::now() + grace_;
      }
      if (kill_deadline_ && Clock::now() >= *kill_deadline_) {
        signal_all(SIGKILL);
        kill_deadline_.reset();
      }
    }
    for (ChildProcess& child : children_) {
      if (child.stdout_fd >= 0) close(std::exchange(child.stdout_fd, -1));
      if (child.stderr_fd >= 0) close(std::exchange(child.stderr_fd, -1));
    }
    return outcome_;
  }

 private:
  bool any_running() const {
    for (const ChildProcess& child : children_) {
      if (child.running) return true;
    }
    return false;
  }
  bool any_pipe_open() const {
    for (const ChildProcess& child : children_) {
      if (child.stdout_fd >= 0 || child.stderr_fd >= 0) return true;
    }
    return false;
  }

  void poll_once(bool running) {
    std::vector<pollfd> fds{{signal_fd_, POLLIN, 0}};
    for (const ChildProcess& child : children_) {
      if (child.stdout_fd >= 0) fds.push_back({child.stdout_fd, POLLIN, 0});
      if (child.stderr_fd >= 0) fds.push_back({child.stderr_fd, POLLIN, 0});
    }
    int timeout_ms = running ? static_cast<int>(kLookInterval.count()) : 100;
    for (const auto& deadline : {term_deadline_, kill_deadline_}) {
      if (!deadline) continue;
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(*deadline - Clock::now()).count();
      timeout_ms = static_cast<int>(std::clamp<long long>(left, 0, timeout_ms));
    }
    if (poll(fds.data(), fds.size(), timeout_ms) < 0) {
      if (errno == EINTR) return;
      throw_errno("poll on the workers' pipes and signals");
    }
    if (fds[0].revents & POLLIN) read_signals();
    for (ChildProcess& child : children_) {
      for (std::size_t i = 1; i < fds.size(); ++i) {
        if (fds[i].revents == 0) continue;
        if (fds[i].fd == child.stdout_fd) {
          forward(child.stdout_fd, child.stdout_partial, child.rank, STDOUT_FILENO, other_stdout_, true);
        } else if (fds[i].fd == child.stderr_fd) {
          forward(child.stderr_fd, child.stderr_partial, child.rank, STDERR_FILENO, true, true);
        }
      }
    }
  }

  void read_signals() {
    signalfd_siginfo info{};
    while (read(signal_fd_, &info, sizeof(info)) == static_cast<ssize_t>(sizeof(info))) {
      const int sig = static_cast<int>(info.ssi_signo);
      if (sig == SIGCHLD) continue;  // reap() runs after every poll
      if (outcome_.interrupt_signal != 0) {
        signal_all(SIGKILL);  // a second Ctrl-C: no more grace
        continue;
      }
      outcome_.interrupt_signal = sig;
      start_abort(fmt::format("the launcher was interrupted by signal {} ({})", sig, strsignal(sig)));
    }
  }

  // Reaps every child that has exited before judging any of them. The cause is chosen from what
  // the workers report, not from the order waitpid returns them: a worker that stopped because a
  // peer died (kExitPeerFailure) is a consequence, and any other failure, reaped in the same
  // pass or later, replaces it as the job's failure (record_failure). A death by SIGTERM or
  // SIGKILL is the supervisor's own only when it sent that signal to that worker: a worker
  // killed from outside (the OOM killer, a fault) while the job was already stopping for a
  // peer's report is still the cause.
  void reap() {
    const ChildProcess* cause = nullptr;
    int cause_status = 0;
    bool cause_is_consequence = false;
    for (ChildProcess& child : children_) {
      if (!child.running) continue;
      int status = 0;
      const pid_t pid = waitpid(child.pid, &status, WNOHANG);
      if (pid == 0 || (pid < 0 && errno == EINTR)) continue;
      child.running = false;
      if (pid < 0) status = 0xff00;  // not our child any more: report it rather than hide it
      if (WIFEXITED(status) && WEXITSTATUS(status) == 0) continue;
      if (WIFSIGNALED(status) && ((WTERMSIG(status) == SIGTERM && (child.sent_term || child.sent_kill)) ||
                                  (WTERMSIG(status) == SIGKILL && child.sent_kill))) {
        continue;
      }
      if (child.killed_stalled) continue;  // named when it was killed
      const bool consequence = WIFEXITED(status) && WEXITSTATUS(status) == kExitPeerFailure;
      if (cause == nullptr || (cause_is_consequence && !consequence)) {
        cause = &child;
        cause_status = status;
        cause_is_consequence = consequence;
      }
    }
    if (cause == nullptr) return;
    record_failure(*cause, describe_wait_status(cause_status), cause_is_consequence);
  }

  // A worker whose heartbeat stood still for the stall timeout is stopped, stuck in D state or
  // thrashing: nothing it could still do would help the job. It is killed at once (a stopped
  // process does not act on SIGTERM before SIGCONT) and named as the cause, over a peer that
  // gave up waiting for it (kExitPeerFailure) and may have been reaped first. A worker whose
  // transport has left beats no more either: it has that long to exit.
  void check_heartbeats() {
    const auto now = Clock::now();
    for (std::size_t i = 0; i < children_.size(); ++i) {
      ChildProcess& child = children_[i];
      const auto still = watches_[i].still_for(now);
      if (!child.running || child.killed_stalled || still < stall_timeout_) continue;
      const std::string stall = comm::describe_stall(child.pid, still);
      child.killed_stalled = true;
      kill(child.pid, SIGKILL);
      record_failure(child, fmt::format("{}; the job stops; --ddp_timeout sets the limit", stall), false);
    }
  }

  // Records `what` happened to `child` as the job's failure, unless one is recorded already that
  // is not a consequence of another, and stops the job.
  void record_failure(const ChildProcess& child, const std::string& what, bool consequence) {
    if (!outcome_.failure || (recorded_consequence_ && !consequence)) {
      outcome_.failure = fmt::format("worker {} (pid {}, socket {}) {}", child.rank, child.pid, child.package, what);
      outcome_.failed_rank = child.rank;
      outcome_.failed_pid = child.pid;
      recorded_consequence_ = consequence;
    }
    start_abort(*outcome_.failure);
  }

  comm::RankControl& control(const ChildProcess& child) const { return comm::rank_control(segment_, child.rank); }

  void start_abort(const std::string& reason) {
    if (aborting_) return;
    aborting_ = true;
    comm::raise_abort(header_, reason);
    term_deadline_ = Clock::now() + std::min<std::chrono::milliseconds>(kAbortNotice, grace_);
  }

  // Reaps first, so that a worker that died on its own before this moment is judged by its own
  // status, not taken for one this signal ended.
  void signal_all(int sig) {
    reap();
    for (ChildProcess& child : children_) {
      if (!child.running) continue;
      (sig == SIGKILL ? child.sent_kill : child.sent_term) = true;
      kill(child.pid, sig);  // ESRCH: already gone, reaped next
    }
  }

  std::vector<ChildProcess>& children_;
  std::span<std::byte> segment_;
  comm::SegmentHeader& header_;
  int signal_fd_;
  std::chrono::milliseconds grace_;
  std::chrono::milliseconds stall_timeout_;
  bool other_stdout_;
  std::vector<comm::HeartbeatWatch> watches_;  // by index in children_
  Outcome outcome_;
  bool aborting_ = false;
  bool recorded_consequence_ = false;
  std::optional<Clock::time_point> term_deadline_;
  std::optional<Clock::time_point> kill_deadline_;
};

}  // namespace

Outcome supervise(std::vector<ChildProcess>& children, std::span<std::byte> segment, int signal_fd,
                  const SuperviseOptions& options) {
  return Supervisor(children, segment, signal_fd, options).run();
}

void stop_children(std::vector<ChildProcess>& children, std::chrono::milliseconds grace) noexcept {
  for (const ChildProcess& child : children) {
    if (child.running) kill(child.pid, SIGTERM);
  }
  const auto deadline = Clock::now() + grace;
  for (ChildProcess& child : children) {
    while (child.running) {
      int status = 0;
      const pid_t pid = waitpid(child.pid, &status, WNOHANG);
      if (pid != 0) {
        child.running = false;
        break;
      }
      if (Clock::now() >= deadline) kill(child.pid, SIGKILL);
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  }
}

}  // namespace shmtrain::launch
