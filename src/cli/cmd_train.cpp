// `shmtrain train`: fine-tune a model from a TOML config and/or flags. Every option of the
// table (cli/train_option_table.hpp) is both a config key and a --flag; the flag wins.
//
// The run is a launch job (TrainJob below, run by launch::run_job): one worker trains in this
// process. Several (one per socket by default, --nproc_per_node to choose) are forked by the
// launcher: the inputs are read and checked here first, once, and the workers inherit them.
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
#include "shmtrain/launch/job.hpp"
#include "shmtrain/launch/mpi_job.hpp"
#include "shmtrain/train/output_dir.hpp"
#include "shmtrain/train/trainer.hpp"

namespace shmtrain::cli {
namespace {

struct TrainCommand {
  std::string default_task;  // run_mlm: "mlm", run_swag: "swag" (the script the command stands for)
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
  if (options.task_name.empty()) options.task_name = command.default_task;
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

// Training as a launch job (launch/job.hpp). Under MPI every rank reads the inputs itself;
// rank 0 alone prepares output_dir and tells the others where training starts.
class TrainJob final : public launch::JobBody {
 public:
  explicit TrainJob(const TrainCommand& command) : command_(command) {}

  launch::ResolvedJob resolve() override {
    const bool under_mpi = launch::started_by_mpi_launcher();
    if (under_mpi && wants_mpirun(command_.multi_node)) {
      fail_input("--hostfile and --nnodes start mpirun, and this shmtrain already runs under an MPI launcher: give "
                 "the hostfile to mpirun instead");
    }
    if (!under_mpi && !wants_mpirun(command_.multi_node)) check_simulated_hosts(command_.multi_node);
    options_ = resolve_options(command_);
    if (!under_mpi) new_output_dir_.emplace(options_.dry_run ? std::filesystem::path() : options_.output_dir);
    options_toml_ = train_options_to_toml(options_);
    if (!under_mpi && wants_mpirun(command_.multi_node)) {
      start_mpirun(command_.multi_node, command_.placement,
                   std::chrono::seconds(options_.between_hosts_timeout_seconds()));
    }
    const PlacementFlags flags = placement_for(command_, options_);
    launch::ResolvedJob job;
    job.source = flags.source;
    job.placement = flags.placement;
    job.placement.unit = topo::parse_placement_unit(flags.unit);
    job.show_plan = under_mpi || options_.dry_run ? launch::ShowPlan::kAlways : launch::ShowPlan::kSeveralWorkers;
    job.in_process = true;
    job.max_restarts = options_.max_restarts;
    job.launch.other_ranks_stdout = false;
    job.launch.comm.transport.stall_timeout = std::chrono::seconds(options_.stall_timeout_seconds());
    job.launch.between_hosts_timeout = std::chrono::seconds(options_.between_hosts_timeout_seconds());
    return job;
  }

  bool prepare(const launch::JobProcess& process) override {
    process.together([&] { prepared_.emplace(train::prepare_inputs(options_)); });
    prepared_->placement = placement_json(process.placement);
    prepared_->option_values = train_option_values(options_);
    if (options_.dry_run) {
      if (process.rank == 0) {
        train::print_dry_run(options_, options_toml_, *prepared_, process.workers, process.threads, stdout);
      }
      return false;
    }
    process.together([&] {
      if (process.rank == 0) prepared_->resume = train::prepare_output_dir(options_, prepared_->notes);
    });
    prepared_->resume = process.broadcast_text(prepared_->resume.string());
    // No live progress line under MPI: an MPI launcher hands ranks a pseudo-terminal even when
    // its own output goes to a file, so the line would garble logs.
    run_options_ = options_;
    if (process.mpi != nullptr) run_options_.disable_tqdm = true;
    return true;
  }

  std::size_t arena_bytes(const launch::JobProcess& process) override {
    return train::shared_arena_bytes(options_, *prepared_, process.workers);
  }

  int work(launch::WorkerContext& context) override {
    train::run_training(run_options_, options_toml_, *prepared_, context.communicator, stdout);
    return 0;
  }

  // torchrun's --max_restarts: started again from the last checkpoint.
  void before_restart(const launch::WorkerFailure& failure, std::int64_t restart) override {
    prepared_->notes.clear();
    prepared_->resume = train::prepare_restart(options_, prepared_->notes);
    fmt::print(stderr, "shmtrain: {}\nshmtrain: restart {} of {}: {}\n", failure.what(), restart,
               options_.max_restarts,
               prepared_->resume.empty() ? std::string("from the start") : "from " + prepared_->resume.string());
    std::fflush(stderr);
  }

 private:
  const TrainCommand& command_;
  train::TrainOptions options_;
  train::TrainOptions run_options_;
  std::string options_toml_;
  std::optional<NewFolderGuard> new_output_dir_;
  std::optional<train::PreparedRun> prepared_;
};

int run_train(const TrainCommand& command) {
  TrainJob job(command);
  return launch::run_job(job, command.multi_node.simulated_hosts);
}

}  // namespace

Command add_train_command(CLI::App& app) {
  return add_train_command(
      app, "train",
      "Fine-tune a BERT, DistilBERT, RoBERTa, XLM-RoBERTa, ELECTRA, DeBERTa-v3 or ModernBERT model for sequence "
      "classification (GLUE or your own data), question answering (SQuAD), token classification (NER), masked-LM "
      "training (--task_name mlm) or multiple choice (--task_name swag), evaluate it and predict; Hugging Face's "
      "run_glue.py / run_qa.py / run_ner.py / run_mlm.py / run_swag.py flags",
      "");
}

Command add_train_command(CLI::App& app, const std::string& name, const std::string& description,
                          const std::string& default_task) {
  auto command = std::make_shared<TrainCommand>();
  command->default_task = default_task;
  CLI::App* sub = app.add_subcommand(name, description);
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
