#pragma once
// Each subcommand lives in src/cli/cmd_<name>.cpp and registers itself on the app here:
// its options bind into a struct the callback owns; the callback gives the exit code.
#include <functional>
#include <string>

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
// `train` under another name whose task, unless --task_name says otherwise, is default_task:
// run_mlm (mlm) and run_swag (swag), so that a run_mlm.py or run_swag.py command runs with only
// its program name changed.
Command add_train_command(CLI::App& app, const std::string& name, const std::string& description,
                          const std::string& default_task);
Command add_report_command(CLI::App& app);
Command add_encode_command(CLI::App& app);
Command add_rerank_command(CLI::App& app);
Command add_mine_negatives_command(CLI::App& app);

}  // namespace shmtrain::cli
