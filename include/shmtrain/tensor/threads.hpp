#pragma once
// The one place that decides how many threads compute. Every parallel kernel runs on oneTBB
// under the limit set here; OpenBLAS is held at one thread and the GEMM wrapper splits work
// across TBB tasks, so a BLAS call never fans out threads inside a TBB region and a worker
// never runs more compute threads than the cores it was given.
namespace shmtrain::tensor {

// Sets the compute thread count (>= 1) for this process. Call once per worker, after binding.
void set_compute_threads(int threads);

// The count in force: the value set, or the CPUs in this process's affinity mask.
int compute_threads();

// Ends the compute threads this process started (oneTBB's pool; OpenBLAS shuts its own down at
// fork): a launcher that tokenized data in parallel calls it before it forks its workers.
// Later parallel work starts them again. Throws Error when they cannot be stopped.
void stop_compute_threads();

// CPUs in this process's affinity mask (taskset, cgroups, the launcher's binding).
int allowed_cpu_count();

}  // namespace shmtrain::tensor
