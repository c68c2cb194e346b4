// `shmtrain train`: fine-tune a model from a TOML config and/or flags. Every option of the
// table (cli/train_option_table.hpp) is both a config key and a --flag; the flag wins.
//
// One worker trains in this process. Several (one per socket by default, --nproc_per_node to
// choose) are forked by the launcher: the inputs are read and checked here first, once, and the
// workers inherit them; then oneTBB's threads are stopped, because fork() copies only the
// calling thread.
//
// Under an MPI launcher (mpirun ... shmtrain train ...) nothing is forked: this process is one
// rank of the job (launch/mpi_job.hpp). With --hostfile, shmtrain starts that mpirun itself.
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>
#include <unistd.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "shmtrain/cli/commands.hpp"
#include "shmtrain/cli/multi_node_flags.hpp"
#include "shmtrain/cli/placement_flags.hpp"
#include "shmtrain/cli/train_option_table.hpp"
#include "shmtrain/launch/launcher.hpp"
#include "shmtrain/launch/mpi_job.hpp"
#include "shmtrain/tensor/threads.hpp"
#include "shmtrain/train/output_dir.hpp"
#include "shmtrain/train/trainer.hpp"

namespace shmtrain::cli {
namespace {

struct TrainCommand {
  std::string config;
  std::map<std::string, CLI::Option*> flags;  // option name -> its CLI11 option
  PlacementFlags placement;
  MultiNodeFlags multi_node;
};

std::string help_type_name(OptionType type) {
  switch (type) {
    case OptionType::kBool: return "[BOOL]";
    case OptionType::kSwitch: return "[BOOL|auto]";
    case OptionType::kInt: return "INT";
    case OptionType::kFloat: return "FLOAT";
    case OptionType::kString: return "TEXT";
    case OptionType::kPath: return "PATH";
  }
  return "";
}

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
  if (launch::mpi_launcher_rank() == 0) {
    for (const std::string& note : report_to_notes(options)) fmt::print(stderr, "shmtrain: note: {}\n", note);
  }
  return options;
}

// run_info.json's placement: each worker's package, NUMA nodes, cores, threads and cpus.
nlohmann::json placement_json(const std::vector<topo::PlacementEntry>& entries) {
  nlohmann::json out = nlohmann::json::array();
  for (const topo::PlacementEntry& e : entries) {
    out.push_back({{"rank", e.rank}, {"package", e.package}, {"numa", e.numa_nodes}, {"cores", e.cores},
                   {"threads", e.threads}, {"cpus", fmt::format("{}", fmt::join(e.cpus, ","))}});
  }
  return out;
}

// The placement decides every worker's thread count, for compute and for the exchange alike:
// --threads when given.
PlacementFlags placement_for(const TrainCommand& command, const train::TrainOptions& options) {
  PlacementFlags flags = command.placement;
  flags.placement.threads = static_cast<int>(options.threads.value_or(0));
  return flags;
}

// One rank of an MPI job. Every rank reads the inputs itself; rank 0 alone prepares output_dir
// and tells the others where training starts. A bad option or input is reported once, by rank 0.
int run_train_under_mpi(const TrainCommand& command) {
  launch::MpiJob job(command.multi_node.simulated_hosts);
  train::TrainOptions options;
  std::string options_toml;
  job.together([&] {
    if (wants_mpirun(command.multi_node)) {
      fail_input("--hostfile and --nnodes start mpirun, and this shmtrain already runs under an MPI launcher: give "
                 "the hostfile to mpirun instead");
    }
    options = resolve_options(command);
    options_toml = train_options_to_toml(options);
  });
  PlacementFlags flags = placement_for(command, options);
  flags.placement.unit = topo::parse_placement_unit(flags.unit);
  const topo::PlacementEntry& entry = job.place(flags.source, flags.placement);
  if (job.rank() == 0) {
    fmt::print("{}", job.report());
    std::fflush(stdout);
  }
  tensor::set_compute_threads(entry.threads);
  std::optional<train::PreparedRun> prepared;
  job.together([&] { prepared.emplace(train::prepare_inputs(options)); });
  prepared->placement = placement_json({entry});  // this rank's; the others' are theirs to know
  prepared->option_values = train_option_values(options);
  if (options.dry_run) {
    if (job.rank() == 0) {
      train::print_dry_run(options, options_toml, *prepared, job.size(), entry.threads, stdout);
    }
    return 0;
  }
  job.together([&] {
    if (job.rank() == 0) prepared->resume = train::prepare_output_dir(options, prepared->notes);
  });
  prepared->resume = job.broadcast_text(prepared->resume.string());
  // No live progress line: an MPI launcher hands ranks a pseudo-terminal even when its own
  // output goes to a file, so the line would garble logs.
  train::TrainOptions rank_options = options;
  rank_options.disable_tqdm = true;
  launch::LaunchOptions launch_options;
  launch_options.arena_bytes = train::shared_arena_bytes(options, *prepared, job.size());
  launch_options.between_hosts_timeout = std::chrono::seconds(options.between_hosts_timeout_seconds());
  launch_options.comm.transport.stall_timeout = std::chrono::seconds(options.stall_timeout_seconds());
  return job.run(launch_options, [&](launch::WorkerContext& context) {
    train::run_training(rank_options, options_toml, *prepared, context.communicator, stdout);
    return 0;
  });
}

// A run that fails before it writes anything leaves no empty output_dir behind: the folder it
// created is removed when still empty (rmdir removes nothing else).
class NewFolderGuard {
 public:
  explicit NewFolderGuard(std::filesystem::path folder) : folder_(std::move(folder)) {
    std::error_code error;
    if (folder_.empty() || std::filesystem::exists(folder_, error)) folder_.clear();
  }
  ~NewFolderGuard() {
    if (!folder_.empty()) ::rmdir(folder_.c_str());
  }
  NewFolderGuard(const NewFolderGuard&) = delete;
  NewFolderGuard& operator=(const NewFolderGuard&) = delete;

 private:
  std::filesystem::path folder_;
};

int run_train(const TrainCommand& command) {
  if (launch::started_by_mpi_launcher()) return run_train_under_mpi(command);
  if (!wants_mpirun(command.multi_node)) check_simulated_hosts(command.multi_node);
  const train::TrainOptions options = resolve_options(command);
  const NewFolderGuard new_output_dir(options.dry_run ? std::filesystem::path() : options.output_dir);
  const std::string options_toml = train_options_to_toml(options);
  if (wants_mpirun(command.multi_node)) {
    start_mpirun(command.multi_node, command.placement,
                 std::chrono::seconds(options.between_hosts_timeout_seconds()));
  }
  const ResolvedPlacement placement = resolve_placement(placement_for(command, options));
  const topo::PlacementPlan& plan = placement.plan;
  const int workers = static_cast<int>(plan.workers.size());
  const int threads = plan.workers.front().threads;
  if (workers > 1 || options.dry_run) {
    fmt::print("{}", topo::format_plan(plan));
    std::fflush(stdout);
  }
  // The launcher tokenizes on every CPU it may use; a single worker on the threads it trains with.
  tensor::set_compute_threads(workers > 1 ? tensor::allowed_cpu_count() : threads);
  train::PreparedRun prepared = train::prepare_run(options);
  prepared.placement = placement_json(plan.workers);
  prepared.option_values = train_option_values(options);
  if (options.dry_run) {
    train::print_dry_run(options, options_toml, prepared, workers, threads, stdout);
    return 0;
  }
  const launch::WorkerFunction worker = [&](launch::WorkerContext& context) {
    train::run_training(options, options_toml, prepared, context.communicator, stdout);
    return 0;
  };
  // One worker trains in this process, unless it may have to be restarted.
  if (workers == 1 && options.max_restarts == 0) return launch::run_in_this_process(plan, worker);
  tensor::stop_compute_threads();
  launch::LaunchOptions launch_options;
  launch_options.arena_bytes = train::shared_arena_bytes(options, prepared, workers);
  launch_options.other_ranks_stdout = false;
  launch_options.comm.transport.stall_timeout = std::chrono::seconds(options.stall_timeout_seconds());
  // torchrun's --max_restarts: a failed job is torn down (launch_workers returns only once
  // every worker is gone) and started again from its last checkpoint.
  for (std::int64_t restart = 1;; ++restart) {
    try {
      launch::launch_workers(placement.topology, plan, launch_options, worker);
      return 0;
    } catch (const launch::WorkerFailure& failure) {
      if (restart > options.max_restarts) throw;
      prepared.notes.clear();
      prepared.resume = train::prepare_restart(options, prepared.notes);
      fmt::print(stderr, "shmtrain: {}\nshmtrain: restart {} of {}: {}\n", failure.what(), restart,
                 options.max_restarts,
                 prepared.resume.empty() ? std::string("from the start")
                                         : "from " + prepared.resume.string());
      std::fflush(stderr);
    }
  }
}

}  // namespace

Command add_train_command(CLI::App& app) {
  auto command = std::make_shared<TrainCommand>();
  CLI::App* sub = app.add_subcommand(
      "train",
      "Fine-tune a BERT, DistilBERT, RoBERTa or XLM-RoBERTa model for sequence classification (GLUE or your own "
      "data), question answering (SQuAD) or token classification (NER), evaluate it and predict; Hugging Face's "
      "run_glue.py / run_qa.py / run_ner.py flags");
  sub->add_option("--config", command->config,
                  "TOML file of options (keys as the flags below); flags given here override it");
  const train::TrainOptions defaults;
  for (const OptionSpec& spec : train_option_table()) {
    // Given twice, the last one wins, as with Python's argparse.
    CLI::Option* flag = sub->add_option("--" + spec.name, spec.help)
                            ->group(spec.group)
                            ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
    // --help shows every default that is a value (not one decided by the task or the model).
    flag->type_name(help_type_name(spec.type));
    if (std::optional<std::string> shown = spec.show(defaults)) {
      if (shown->size() >= 2 && shown->front() == '"') *shown = shown->substr(1, shown->size() - 2);
      flag->default_str(*shown);
    }
    if (spec.type == OptionType::kBool || spec.type == OptionType::kSwitch) {
      flag->expected(0, 1);
    }
    command->flags[spec.name] = flag;
  }
  add_placement_flags(*sub, command->placement);
  add_multi_node_flags(*sub, command->multi_node);
  return Command{sub, [command] { return run_train(*command); }};
}

}  // namespace shmtrain::cli
