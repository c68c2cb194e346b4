#include "shmtrain/cli/app.hpp"

#include <csignal>
#include <cstdio>
#include <exception>
#include <map>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "hf_arguments.hpp"
#include "shmtrain/cli/commands.hpp"
#include "shmtrain/cli/train_option_table.hpp"
#include "shmtrain/common/error.hpp"
#include "shmtrain/launch/launcher.hpp"
#include "shmtrain/launch/mpi_job.hpp"
#include "shmtrain/tensor/blas_runtime.hpp"
#include "shmtrain/tensor/cpu_features.hpp"

namespace shmtrain::cli {
namespace {

// `train` and the commands that stand for one script (run_mlm, run_swag) take train's flags.
bool is_train_command(const CLI::App& subcommand) {
  const std::string& name = subcommand.get_name();
  return (name == "train" || name == "run_mlm" || name == "run_swag") && subcommand.get_parent() != nullptr &&
         subcommand.get_parent()->get_parent() == nullptr;
}

// An option whose value CLI11 reads as a number (its type names INT, UINT, FLOAT, NUMBER, ...):
// there, "" is no value, where CLI11 would quietly read it as 0.
bool takes_number(const CLI::Option& option) {
  const std::string type = option.get_type_name();
  for (const char* number : {"INT", "UINT", "FLOAT", "NUMBER"}) {
    if (type.rfind(number, 0) == 0) return true;
  }
  return false;
}

// A subcommand's long flags by name, and how each takes its value.
std::map<std::string, FlagArity> known_flags(const CLI::App& subcommand) {
  std::map<std::string, FlagArity> known;
  for (const CLI::Option* option : subcommand.get_options()) {
    for (const std::string& name : option->get_lnames()) {
      FlagArity arity = option->get_expected_min() == 0 ? FlagArity::kOptionalBool
                        : takes_number(*option)           ? FlagArity::kNumber
                                                          : FlagArity::kValue;
      if (const OptionSpec* spec = find_train_option(name);
          spec != nullptr && is_train_command(subcommand) &&
          spec->type == OptionType::kSwitch) {
        arity = FlagArity::kOptionalSwitch;
      }
      known.emplace(name, arity);
    }
  }
  return known;
}

// The command line with the subcommand's flags in the one spelling CLI11 is given
// (hf_arguments.hpp); notes about flags without effect go to stderr, from rank 0 only.
std::vector<std::string> rewrite_arguments(const CLI::App& app, std::vector<std::string> args) {
  // The innermost subcommand named ("train", "bench allreduce"); its flags follow it.
  const CLI::App* subcommand = &app;
  std::size_t first = 1;
  while (first < args.size()) {
    const CLI::App* named = nullptr;
    for (const CLI::App* sub : subcommand->get_subcommands([](const CLI::App*) { return true; })) {
      if (sub->get_name() == args[first]) named = sub;
    }
    if (named == nullptr) break;
    subcommand = named;
    ++first;
  }
  if (subcommand == &app) return args;
  const bool train = is_train_command(*subcommand);
  ArgumentRewrite rewrite = rewrite_hf_arguments(std::span(args).subspan(first), known_flags(*subcommand), train);
  if (launch::mpi_launcher_rank() == 0) {
    for (const std::string& note : rewrite.notes) fmt::print(stderr, "shmtrain: note: {}\n", note);
  }
  rewrite.args.insert(rewrite.args.begin(), args.begin(), args.begin() + static_cast<std::ptrdiff_t>(first));
  return rewrite.args;
}

// The app with every subcommand registered; `run` runs the one parsed.
std::vector<Command> add_commands(CLI::App& app) {
  app.require_subcommand(1);
  app.set_version_flag("--version", "shmtrain 0.1.0");
  return {
      add_info_command(app),  add_tokenize_command(app), add_topo_command(app),
      add_bench_command(app), add_train_command(app),    add_report_command(app), add_encode_command(app),
      add_rerank_command(app), add_mine_negatives_command(app),
      add_train_command(app, "run_mlm",
                        "run_mlm.py's job: masked-LM training on text (train --task_name mlm); its flags as train's",
                        "mlm"),
      add_train_command(app, "run_swag",
                        "run_swag.py's job: multiple choice on SWAG (train --task_name swag); its flags as train's",
                        "swag"),
  };
}

constexpr const char* kAppDescription = "shmtrain: fine-tune BERT-class models on CPU servers, one worker per socket";

// Rewrites (throwing InputError) and parses (throwing CLI::ParseError) `args`, argv[0] first.
void parse(CLI::App& app, const std::vector<std::string>& args) {
  std::vector<std::string> rewritten = rewrite_arguments(app, args);
  std::vector<char*> words;
  for (std::string& arg : rewritten) words.push_back(arg.data());
  app.parse(static_cast<int>(words.size()), words.data());
}

}  // namespace

int run(int argc, char** argv) {
  try {
    // Start-up in one order on every CPU and environment: SHMTRAIN_CPU_FEATURES is read and
    // checked first, before anything prints (prepare_openblas asks for the features only when
    // it chooses the core type, which OPENBLAS_CORETYPE in the environment skips).
    tensor::cpu_features();
    tensor::prepare_openblas(argv);
  } catch (const std::exception& e) {
    fmt::print(stderr, "shmtrain: error: {}\n", e.what());
    return 2;
  }
  // A closed pipe on stdout (`shmtrain train ... | head`) must not kill the run midway: without
  // SIGPIPE the writes fail instead, and the run goes on to write output_dir, its console lines
  // lost.
  std::signal(SIGPIPE, SIG_IGN);

  CLI::App app{kAppDescription};
  const std::vector<Command> commands = add_commands(app);
  try {
    parse(app, std::vector<std::string>(argv, argv + argc));
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const std::exception& e) {
    fmt::print(stderr, "shmtrain: error: {}\n", e.what());
    return 2;
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

ParsedArguments parse_arguments(const std::vector<std::string>& args) {
  CLI::App app{kAppDescription};
  // Kept while parsing: the commands own the structs their options write into.
  const std::vector<Command> commands = add_commands(app);
  try {
    parse(app, args);
  } catch (const CLI::ParseError& e) {
    fail_input("{}", e.what());
  }
  ParsedArguments parsed;
  const CLI::App* subcommand = &app;
  while (!subcommand->get_subcommands().empty()) {
    subcommand = subcommand->get_subcommands().front();
    parsed.subcommand += (parsed.subcommand.empty() ? "" : " ") + subcommand->get_name();
  }
  for (const CLI::Option* option : subcommand->get_options()) {
    if (option->count() == 0) continue;
    const std::string name = option->get_lnames().empty() ? option->get_name() : option->get_lnames().front();
    parsed.values[name] = option->results();
  }
  return parsed;
}

}  // namespace shmtrain::cli
