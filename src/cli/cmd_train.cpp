// `shmtrain train`: fine-tune a model from a TOML config and/or flags. Every option of the
// table (cli/train_option_table.hpp) is both a config key and a --flag; the flag wins.
//
// One worker trains in this process. Several (one per socket by default, --nproc_per_node to
// choose) are forked by the launcher: the inputs are read and checked here first, once, and the
// workers inherit them; then oneTBB's threads are stopped, because fork() copies only the
// calling thread.
#include <cstdio>
#include <map>
#include <memory>
#include <string>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "shmtrain/cli/commands.hpp"
#include "shmtrain/cli/placement_flags.hpp"
#include "shmtrain/cli/train_option_table.hpp"
#include "shmtrain/comm/local_communicator.hpp"
#include "shmtrain/launch/launcher.hpp"
#include "shmtrain/model/param_table.hpp"
#include "shmtrain/tensor/threads.hpp"
#include "shmtrain/train/trainer.hpp"

namespace shmtrain::cli {
namespace {

struct TrainCommand {
  std::string config;
  std::map<std::string, CLI::Option*> flags;  // option name -> its CLI11 option
  PlacementFlags placement;
};

train::TrainOptions resolve_options(const TrainCommand& command) {
  train::TrainOptions options;
  if (!command.config.empty()) apply_config_file(command.config, options);
  for (const OptionSpec& spec : train_option_table()) {
    const CLI::Option* flag = command.flags.at(spec.name);
    if (flag->count() == 0) continue;
    const std::vector<std::string>& results = flag->results();
    const std::string text = results.empty() ? std::string() : results.back();
    const bool bare_allowed = spec.type == OptionType::kBool || spec.type == OptionType::kSwitch;
    if (text.empty() && !bare_allowed) fail_input("--{} needs a value", spec.name);
    spec.set(options, parse_option_text(spec, text), "--" + spec.name);
  }
  resolve_task_defaults(options);
  validate_train_options(options);
  return options;
}

int worker_threads(const train::TrainOptions& options, const topo::PlacementEntry& entry) {
  return options.threads ? static_cast<int>(*options.threads) : entry.threads;
}

int run_train(const TrainCommand& command) {
  const train::TrainOptions options = resolve_options(command);
  const std::string options_toml = train_options_to_toml(options);
  const ResolvedPlacement placement = resolve_placement(command.placement);
  const topo::PlacementPlan& plan = placement.plan;
  const int workers = static_cast<int>(plan.workers.size());
  const int threads = worker_threads(options, plan.workers.front());
  if (workers > 1 || options.dry_run) {
    fmt::print("{}", topo::format_plan(plan));
    std::fflush(stdout);
  }
  // The launcher tokenizes on every CPU it may use; a single worker on the threads it trains with.
  set_compute_threads(workers > 1 ? allowed_cpu_count() : threads);
  const train::PreparedRun prepared = train::prepare_run(options);
  if (options.dry_run) {
    train::print_dry_run(options, options_toml, prepared, workers, threads, stdout);
    return 0;
  }
  if (workers == 1) {
    comm::LocalCommunicator communicator;
    train::run_training(options, options_toml, prepared, communicator, stdout);
    return 0;
  }
  stop_compute_threads();
  launch::LaunchOptions launch_options;
  const ParamTable table = ParamTable::for_model(prepared.inputs.config);
  launch_options.arena_bytes = static_cast<std::size_t>(table.padded_count(workers)) * sizeof(float) + 4096;
  launch_options.other_ranks_stdout = false;
  launch::launch_workers(placement.topology, plan, launch_options, [&](launch::WorkerContext& context) {
    set_compute_threads(worker_threads(options, context.placement));
    train::run_training(options, options_toml, prepared, context.communicator, stdout);
    return 0;
  });
  return 0;
}

}  // namespace

Command add_train_command(CLI::App& app) {
  auto command = std::make_shared<TrainCommand>();
  CLI::App* sub = app.add_subcommand(
      "train",
      "Fine-tune a BERT or DistilBERT model for sequence classification (GLUE or your own data) or question "
      "answering (SQuAD) and evaluate it");
  sub->add_option("--config", command->config,
                  "TOML file of options (keys as the flags below); flags given here override it");
  for (const OptionSpec& spec : train_option_table()) {
    // Given twice, the last one wins, as with Python's argparse.
    CLI::Option* flag = sub->add_option("--" + spec.name, spec.help)
                            ->group(spec.group)
                            ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
    if (spec.type == OptionType::kBool || spec.type == OptionType::kSwitch) {
      flag->expected(0, 1);
    }
    command->flags[spec.name] = flag;
  }
  add_placement_flags(*sub, command->placement);
  return Command{sub, [command] { return run_train(*command); }};
}

}  // namespace shmtrain::cli
