#pragma once
// Each subcommand lives in src/cli/cmd_<name>.cpp and registers itself on the app here:
// its options bind into a struct the callback owns; the callback gives the exit code.
#include <functional>

namespace CLI {
class App;
}

namespace shmtrain::cli {

struct Command {
  CLI::App* subcommand;
  std::function<int()> run;
};

Command add_info_command(CLI::App& app);
Command add_tokenize_command(CLI::App& app);
Command add_topo_command(CLI::App& app);
Command add_bench_command(CLI::App& app);
Command add_train_command(CLI::App& app);
Command add_report_command(CLI::App& app);

}  // namespace shmtrain::cli
