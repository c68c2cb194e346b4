// `shmtrain info`: what this machine gives shmtrain (CPU features, BLAS kernels, threads).
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "shmtrain/cli/commands.hpp"
#include "shmtrain/tensor/blas_runtime.hpp"
#include "shmtrain/tensor/cpu_features.hpp"
#include "shmtrain/tensor/threads.hpp"

namespace shmtrain::cli {

Command add_info_command(CLI::App& app) {
  CLI::App* sub = app.add_subcommand("info", "Print the CPU features, BLAS kernels and thread count shmtrain will use");
  return {sub, [] {
    fmt::print("shmtrain 0.1.0\n");
    fmt::print("cpu features: {}\n", tensor::cpu_features().summary());
    fmt::print("{}\n", tensor::blas_startup_line());
    fmt::print("compute threads: {} (allowed cpus)\n", tensor::compute_threads());
    return 0;
  }};
}

}  // namespace shmtrain::cli
