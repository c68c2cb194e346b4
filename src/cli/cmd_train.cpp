// `shmtrain train`: fine-tune a model from a TOML config and/or flags. Every option of the
// table (cli/train_option_table.hpp) is both a config key and a --flag; the flag wins.
#include <cstdio>
#include <map>
#include <memory>
#include <string>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "shmtrain/cli/commands.hpp"
#include "shmtrain/cli/train_option_table.hpp"
#include "shmtrain/comm/local_communicator.hpp"
#include "shmtrain/tensor/threads.hpp"
#include "shmtrain/train/trainer.hpp"

namespace shmtrain::cli {
namespace {

struct TrainCommand {
  std::string config;
  std::map<std::string, CLI::Option*> flags;  // option name -> its CLI11 option
};

train::TrainOptions resolve_options(const TrainCommand& command) {
  train::TrainOptions options;
  if (!command.config.empty()) apply_config_file(command.config, options);
  for (const OptionSpec& spec : train_option_table()) {
    const CLI::Option* flag = command.flags.at(spec.name);
    if (flag->count() == 0) continue;
    const std::vector<std::string>& results = flag->results();
    const std::string text = results.empty() ? std::string() : results.back();
    if (text.empty() && spec.type != OptionType::kBool) fail_input("--{} needs a value", spec.name);
    spec.set(options, parse_option_text(spec, text), "--" + spec.name);
  }
  validate_train_options(options);
  return options;
}

int run_train(const TrainCommand& command) {
  const train::TrainOptions options = resolve_options(command);
  set_compute_threads(options.threads ? static_cast<int>(*options.threads) : allowed_cpu_count());
  comm::LocalCommunicator communicator;
  train::run_training(options, train_options_to_toml(options), communicator, stdout);
  return 0;
}

}  // namespace

Command add_train_command(CLI::App& app) {
  auto command = std::make_shared<TrainCommand>();
  CLI::App* sub = app.add_subcommand(
      "train", "Fine-tune a BERT model for sequence classification (GLUE or your own data) and evaluate it");
  sub->add_option("--config", command->config,
                  "TOML file of options (keys as the flags below); flags given here override it");
  for (const OptionSpec& spec : train_option_table()) {
    // Given twice, the last one wins, as with Python's argparse.
    CLI::Option* flag = sub->add_option("--" + spec.name, spec.help)
                            ->group(spec.group)
                            ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
    if (spec.type == OptionType::kBool) {
      flag->expected(0, 1);
    }
    command->flags[spec.name] = flag;
  }
  return Command{sub, [command] { return run_train(*command); }};
}

}  // namespace shmtrain::cli
