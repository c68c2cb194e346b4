#include "shmtrain/tensor/threads.hpp"

#include <sched.h>

#include <algorithm>
#include <memory>
#include <mutex>

#include <tbb/global_control.h>

#include "shmtrain/common/error.hpp"
#include "shmtrain/common/sanitizers.hpp"

extern "C" void openblas_set_num_threads(int);

namespace shmtrain::tensor {
namespace {
std::mutex g_mutex;
std::unique_ptr<tbb::global_control> g_limit;
int g_threads = 0;

#if SHMTRAIN_TSAN
// Under ThreadSanitizer oneTBB runs every loop on the thread that calls it (the smallest limit
// in force wins). Debian's libtbb is not instrumented: TSan cannot see it hand a task to another
// thread and back, and would report the bookkeeping of every parallel loop. What TSan checks
// here are shmtrain's own threads: ranks run as threads, the heartbeat, the exchange thread.
const tbb::global_control g_tsan_serial(tbb::global_control::max_allowed_parallelism, 1);
#endif

void apply(int threads) {
  g_limit = std::make_unique<tbb::global_control>(tbb::global_control::max_allowed_parallelism,
                                                  static_cast<std::size_t>(threads));
  openblas_set_num_threads(1);
  g_threads = threads;
}
}  // namespace

int allowed_cpu_count() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) != 0) return 1;
  return std::max(1, CPU_COUNT(&set));
}

void set_compute_threads(int threads) {
  std::lock_guard lock(g_mutex);
  apply(std::max(1, threads));
}

void stop_compute_threads() {
  tbb::task_scheduler_handle handle{tbb::attach{}};
  if (!tbb::finalize(handle, std::nothrow)) {
    throw Error("could not stop oneTBB's worker threads before starting the workers");
  }
}

int compute_threads() {
  std::lock_guard lock(g_mutex);
  if (g_threads == 0) apply(allowed_cpu_count());
  return g_threads;
}

}  // namespace shmtrain::tensor
