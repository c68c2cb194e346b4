#include "shmtrain/cli/app.hpp"

#include <cstdio>
#include <exception>
#include <vector>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "shmtrain/cli/commands.hpp"
#include "shmtrain/common/error.hpp"
#include "shmtrain/launch/launcher.hpp"
#include "shmtrain/launch/mpi_job.hpp"
#include "shmtrain/tensor/blas_runtime.hpp"

namespace shmtrain::cli {

int run(int argc, char** argv) {
  tensor::prepare_openblas(argv);

  CLI::App app{"shmtrain: fine-tune BERT-class models on CPU servers, one worker per socket"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "shmtrain 0.1.0");
  const std::vector<Command> commands = {
      add_info_command(app),  add_tokenize_command(app), add_topo_command(app),
      add_bench_command(app), add_train_command(app),
  };

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  try {
    for (const Command& command : commands) {
      if (command.subcommand->parsed()) return command.run();
    }
  } catch (const launch::ReportedByRankZero&) {
    return 1;  // a rank of an MPI job: rank 0 printed why every rank stops
  } catch (const launch::Interrupted& e) {
    // Stopped by the user (Ctrl-C) or the system: the shell convention 128 + signal.
    std::fflush(stdout);
    fmt::print(stderr, "shmtrain: {}\n", e.what());
    return 128 + e.signal_number();
  } catch (const std::exception& e) {
    std::fflush(stdout);
    fmt::print(stderr, "shmtrain: error: {}\n", describe_failure(e));
    return 1;
  }
  return 0;
}

}  // namespace shmtrain::cli
