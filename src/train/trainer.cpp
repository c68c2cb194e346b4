#include "shmtrain/train/trainer.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <optional>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "shmtrain/common/error.hpp"
#include "shmtrain/data/collate.hpp"
#include "shmtrain/data/sampler.hpp"
#include "shmtrain/io/atomic_file.hpp"
#include "shmtrain/io/metrics_log.hpp"
#include "shmtrain/io/model_weights.hpp"
#include "shmtrain/model/init.hpp"
#include "shmtrain/optim/schedule.hpp"
#include "shmtrain/tensor/threads.hpp"
#include "shmtrain/train/checkpoint.hpp"
#include "shmtrain/train/evaluate.hpp"
#include "shmtrain/train/output_dir.hpp"
#include "shmtrain/train/progress.hpp"
#include "shmtrain/train/qa_evaluate.hpp"
#include "shmtrain/train/step_engine.hpp"
#include "shmtrain/tensor/cpu_features.hpp"
#include "shmtrain/tensor/gemm_bf16.hpp"
#include "shmtrain/train/trainer_state.hpp"

namespace shmtrain::train {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

// How the training data divides into micro-batches and optimizer steps.
struct StepPlan {
  std::int64_t rows_per_worker = 0;  // DistributedSampler's padded share
  std::int64_t batches_per_epoch = 0;
  std::int64_t steps_per_epoch = 0;
  std::int64_t total_steps = 0;
  std::int64_t warmup_steps = 0;
  std::int64_t global_batch = 0;
};

StepPlan plan_steps(const TrainOptions& options, std::int64_t rows, int world) {
  StepPlan plan;
  plan.rows_per_worker = (rows + world - 1) / world;
  plan.batches_per_epoch =
      (plan.rows_per_worker + options.per_device_train_batch_size - 1) / options.per_device_train_batch_size;
  plan.steps_per_epoch =
      (plan.batches_per_epoch + options.gradient_accumulation_steps - 1) / options.gradient_accumulation_steps;
  plan.total_steps = options.max_steps > 0
                         ? options.max_steps
                         : static_cast<std::int64_t>(
                               std::ceil(options.num_train_epochs * static_cast<double>(plan.steps_per_epoch)));
  plan.total_steps = std::max<std::int64_t>(plan.total_steps, 1);
  plan.warmup_steps = options.warmup_steps > 0
                          ? options.warmup_steps
                          : static_cast<std::int64_t>(
                                std::ceil(options.warmup_ratio * static_cast<double>(plan.total_steps)));
  plan.global_batch = options.per_device_train_batch_size * world * options.gradient_accumulation_steps;
  return plan;
}

std::int64_t count_parameters(const ParamTable& table) {
  std::int64_t total = 0;
  for (const ParamEntry& entry : table.entries()) total += entry.size;
  return total;
}

std::string format_count(std::int64_t n) {
  if (n >= 1'000'000) return fmt::format("{:.1f}M", static_cast<double>(n) / 1e6);
  if (n >= 1'000) return fmt::format("{:.1f}k", static_cast<double>(n) / 1e3);
  return std::to_string(n);
}

std::string describe_labels(const data::TaskData& data) {
  const data::LabelSet& labels = data.labels;
  if (data.question_answering()) return "question answering (answer spans)";
  if (labels.regression) return "regression";
  std::string text;
  for (const std::string& name : labels.names) text += (text.empty() ? "" : ", ") + name;
  return fmt::format("{} labels ({})", labels.names.size(), text);
}

std::string format_record(const nlohmann::ordered_json& record, std::int64_t total_steps) {
  std::string line = fmt::format("step {}/{}", record["step"].get<std::int64_t>(), total_steps);
  for (const auto& [key, value] : record.items()) {
    if (key == "step") continue;
    if (value.is_number_float()) {
      const double x = value.get<double>();
      if (key == "learning_rate") {
        line += fmt::format(" | {} {:.3e}", key, x);
      } else if (key == "epoch") {
        line += fmt::format(" | epoch {:.2f}", x);
      } else if (key.find("per_second") != std::string::npos || key.find("runtime") != std::string::npos) {
        line += fmt::format(" | {} {:.1f}", key, x);
      } else {
        line += fmt::format(" | {} {:.4f}", key, x);
      }
    } else {
      line += fmt::format(" | {} {}", key, value.dump());
    }
  }
  return line;
}

void print_plan(const TrainOptions& options, const RunInputs& inputs, const StepPlan& plan, const ParamTable& table,
                int workers, int threads, bool bf16, const char* weights_origin, std::FILE* out) {
  const BertConfig& c = inputs.config;
  fmt::print(out, "model: {}, {} layers, hidden {}, {} heads, {} parameters, {}\n", c.architecture(),
             c.num_hidden_layers, c.hidden_size, c.num_attention_heads, format_count(count_parameters(table)),
             weights_origin);
  const data::TaskData& data = inputs.data;
  // Question answering trains and evaluates context windows, several per long context.
  const std::string rows = data.question_answering() ? "windows" : "examples";
  std::string eval;
  if (data.validation) {
    eval = fmt::format(" | eval {} {}", data.validation->examples.size(), rows);
    if (data.squad_validation) eval += fmt::format(" of {} questions", data.squad_validation->file.examples.size());
  }
  fmt::print(out, "data: {}{}{} | {}\n", data.task_name.empty() ? "custom files" : data.task_name,
             data.train ? fmt::format(" | train {} {}", data.train->examples.size(), rows) : "", eval,
             describe_labels(data));
  if (options.do_train) {
    fmt::print(out,
               "training: {} worker(s) x {} threads{}{} | batch {} x {} worker(s) x {} accumulation = {} | {} "
               "steps/epoch, {} steps, warmup {} | lr {:g} {}\n",
               workers, threads, bf16 ? ", bf16" : ", fp32",
               options.shard_optimizer && workers > 1 ? ", sharded optimizer" : "",
               options.per_device_train_batch_size, workers, options.gradient_accumulation_steps, plan.global_batch,
               plan.steps_per_epoch, plan.total_steps, plan.warmup_steps, options.learning_rate,
               options.lr_scheduler_type);
  }
  fmt::print(out, "{}\n", gemm_backends_line(bf16));
  std::fflush(out);
}

StepPlan plan_for(const TrainOptions& options, const RunInputs& inputs, int workers) {
  return options.do_train ? plan_steps(options, static_cast<std::int64_t>(inputs.data.train->examples.size()), workers)
                          : StepPlan{};
}

// One run: the state the loop carries between steps.
class Run {
 public:
  Run(const TrainOptions& options, const std::string& options_toml, const PreparedRun& prepared,
      comm::Communicator& comm, std::FILE* out)
      : options_(options),
        options_toml_(options_toml),
        inputs_(prepared.inputs),
        resume_(prepared.resume),
        notes_(prepared.notes),
        bf16_(prepared.bf16),
        comm_(comm),
        out_(out),
        leader_(comm.rank() == 0) {}

  TrainSummary execute();

 private:
  void say(const std::string& line) {
    if (!leader_) return;
    if (progress_) {
      progress_->print(line);
    } else {
      fmt::print(out_, "{}\n", line);
      std::fflush(out_);
    }
  }
  std::vector<std::int64_t> micro_batch_rows(std::int64_t epoch, std::int64_t batch);
  StepResult train_step(const StepPlan& plan, float lr);
  void log_step(const StepPlan& plan, double loss, double grad_norm, double lr);
  nlohmann::ordered_json run_evaluation(std::int64_t step, double epoch);
  nlohmann::ordered_json run_qa_evaluation(std::int64_t step, double epoch);
  void save();
  void write_final_files(const StepPlan& plan, const TrainSummary& summary,
                         const std::optional<nlohmann::ordered_json>& eval);

  const TrainOptions& options_;
  const std::string& options_toml_;
  const RunInputs& inputs_;
  const fs::path& resume_;
  const std::vector<std::string>& notes_;
  bool bf16_;
  comm::Communicator& comm_;
  std::FILE* out_;
  bool leader_;

  std::optional<ParamTable> table_;
  std::optional<StepEngine> engine_;
  TrainerState state_;
  std::optional<io::MetricsLog> metrics_;
  std::optional<ProgressDisplay> progress_;

  std::int64_t order_epoch_ = -1;
  std::vector<std::int64_t> order_;  // this worker's rows of epoch order_epoch_
  Clock::time_point window_start_;
  std::int64_t window_samples_ = 0;
  std::int64_t samples_ = 0;
  double loss_sum_ = 0;
  std::int64_t steps_run_ = 0;
};

std::vector<std::int64_t> Run::micro_batch_rows(std::int64_t epoch, std::int64_t batch) {
  if (order_epoch_ != epoch) {
    order_ = data::epoch_indices(static_cast<std::int64_t>(inputs_.data.train->examples.size()), options_.shuffle,
                                 static_cast<std::uint64_t>(options_.seed), epoch, comm_.rank(), comm_.size());
    order_epoch_ = epoch;
  }
  const std::size_t size = static_cast<std::size_t>(options_.per_device_train_batch_size);
  const std::size_t first = static_cast<std::size_t>(batch) * size;
  const std::size_t last = std::min(order_.size(), first + size);
  return std::vector<std::int64_t>(order_.begin() + static_cast<std::ptrdiff_t>(first),
                                   order_.begin() + static_cast<std::ptrdiff_t>(last));
}

// The step's micro-batches through the engine: forward, backward, exchange and update.
StepResult Run::train_step(const StepPlan& plan, float lr) {
  const data::Dataset& train = *inputs_.data.train;
  const std::int64_t micro_batches =
      std::min(options_.gradient_accumulation_steps, plan.batches_per_epoch - state_.batches_done);
  std::vector<Batch> batches;
  std::vector<StepContext> contexts;
  for (std::int64_t i = 0; i < micro_batches; ++i) {
    const std::vector<std::int64_t> rows = micro_batch_rows(state_.epoch_index, state_.batches_done + i);
    batches.push_back(data::collate(train, rows, static_cast<std::size_t>(options_.seq_length()),
                                    options_.pad_to_max_length, inputs_.tokenizer.pad_id(), inputs_.data.target()));
    batches.back().validate(inputs_.config, train.source);
    // Dropout masks are a function of the micro-step, so a resumed run draws the same ones.
    contexts.push_back(StepContext{
        .train = true,
        .seed = static_cast<std::uint64_t>(options_.seed),
        .rank = static_cast<std::uint64_t>(comm_.rank()),
        .step = static_cast<std::uint64_t>(state_.global_step * options_.gradient_accumulation_steps + i)});
    const std::int64_t samples = static_cast<std::int64_t>(rows.size()) * comm_.size();
    samples_ += samples;
    window_samples_ += samples;
  }
  state_.batches_done += micro_batches;
  if (state_.batches_done >= plan.batches_per_epoch) {
    ++state_.epoch_index;
    state_.batches_done = 0;
  }
  return engine_->step(batches, contexts, lr, options_.max_grad_norm);
}

void Run::log_step(const StepPlan& plan, double loss, double grad_norm, double lr) {
  state_.window_loss_sum += loss;
  ++state_.window_steps;
  const bool last = state_.global_step == plan.total_steps;
  if (state_.global_step % options_.logging_steps != 0 && !last) return;
  const double seconds = seconds_since(window_start_);
  nlohmann::ordered_json record;
  record["step"] = state_.global_step;
  record["epoch"] = state_.epoch();
  record["loss"] = state_.window_loss_sum / static_cast<double>(state_.window_steps);
  record["learning_rate"] = lr;
  record["grad_norm"] = grad_norm;
  record["samples_per_second"] = seconds > 0 ? static_cast<double>(window_samples_) / seconds : 0.0;
  state_.window_loss_sum = 0;
  state_.window_steps = 0;
  window_samples_ = 0;
  window_start_ = Clock::now();
  if (!leader_) return;
  state_.log_history.push_back(record);
  metrics_->append(record);
  say(format_record(record, plan.total_steps));
}

nlohmann::ordered_json Run::run_evaluation(std::int64_t step, double epoch) {
  if (inputs_.data.question_answering()) return run_qa_evaluation(step, epoch);
  const data::Dataset& dataset = *inputs_.data.validation;
  const EvalSettings settings{.task_name = inputs_.data.task_name,
                              .labels = &inputs_.data.labels,
                              .batch_size = options_.per_device_eval_batch_size,
                              .max_seq_length = options_.seq_length(),
                              .pad_to_max_length = options_.pad_to_max_length,
                              .pad_id = inputs_.tokenizer.pad_id()};
  const EvalResult result = evaluate(engine_->model(), dataset, settings, comm_);
  nlohmann::ordered_json record;
  record["step"] = step;
  record["epoch"] = epoch;
  record["eval_loss"] = result.loss;
  for (const auto& [name, value] : result.metrics) record["eval_" + name] = value;
  record["eval_runtime"] = result.seconds;
  record["eval_samples"] = result.samples;
  record["eval_samples_per_second"] = result.seconds > 0 ? static_cast<double>(result.samples) / result.seconds : 0.0;
  return record;
}

// run_qa.py's evaluation: answers post-processed from the windows' logits, written to
// predictions.json (question id -> answer text) at every evaluation, and SQuAD's exact match
// and F1 (percent). No eval_loss: run_qa's evaluation features carry no answer positions.
nlohmann::ordered_json Run::run_qa_evaluation(std::int64_t step, double epoch) {
  const QaEvalSettings settings{.batch_size = options_.per_device_eval_batch_size,
                                .max_seq_length = options_.seq_length(),
                                .pad_to_max_length = options_.pad_to_max_length,
                                .pad_id = inputs_.tokenizer.pad_id(),
                                .postprocess = {.n_best_size = options_.n_best_size,
                                                .max_answer_length = options_.max_answer_length}};
  const data::SquadWindows& text = *inputs_.data.squad_validation;
  const QaEvalResult result = evaluate_qa(engine_->model(), *inputs_.data.validation, text, settings, comm_);
  if (leader_) {
    nlohmann::ordered_json predictions = nlohmann::ordered_json::object();
    for (std::size_t i = 0; i < result.predictions.size(); ++i) {
      predictions[text.file.examples[i].id] = result.predictions[i];
    }
    io::write_file_atomically(options_.output_dir / "predictions.json", predictions.dump(4, ' ', true) + "\n");
  }
  nlohmann::ordered_json record;
  record["step"] = step;
  record["epoch"] = epoch;
  record["eval_exact_match"] = result.scores.exact_match;
  record["eval_f1"] = result.scores.f1;
  record["eval_runtime"] = result.seconds;
  record["eval_samples"] = result.samples;
  record["eval_samples_per_second"] = result.seconds > 0 ? static_cast<double>(result.samples) / result.seconds : 0.0;
  return record;
}

void Run::save() {
  const AdamWState optimizer = engine_->optimizer_state();  // collective when sharded
  if (!leader_) return;
  const fs::path path = save_checkpoint(options_.output_dir,
                                        CheckpointView{inputs_.config, *table_, engine_->params(), optimizer, state_,
                                                       inputs_.tokenizer.spec(), options_toml_});
  if (options_.save_total_limit) rotate_checkpoints(options_.output_dir, *options_.save_total_limit);
  say(fmt::format("saved {}", path.string()));
}

void Run::write_final_files(const StepPlan& plan, const TrainSummary& summary,
                            const std::optional<nlohmann::ordered_json>& eval) {
  if (!leader_) return;
  const fs::path& dir = options_.output_dir;
  nlohmann::ordered_json train_results;
  if (options_.do_train) {
    write_model_folder(dir, inputs_.config, *table_, engine_->params(), inputs_.tokenizer.spec(), options_toml_);
    io::write_file_atomically(dir / "trainer_state.json", state_.to_json().dump(2) + "\n");
    train_results["epoch"] = state_.epoch();
    train_results["train_loss"] = summary.train_loss;
    train_results["train_runtime"] = summary.train_seconds;
    train_results["train_samples"] = inputs_.data.train->examples.size();
    train_results["train_samples_per_second"] =
        summary.train_seconds > 0 ? static_cast<double>(summary.train_samples) / summary.train_seconds : 0.0;
    train_results["train_steps_per_second"] =
        summary.train_seconds > 0 ? static_cast<double>(steps_run_) / summary.train_seconds : 0.0;
    train_results["total_steps"] = plan.total_steps;
    io::write_file_atomically(dir / "train_results.json", train_results.dump(2) + "\n");
  }
  nlohmann::ordered_json all = train_results.is_null() ? nlohmann::ordered_json::object() : train_results;
  if (eval) {
    nlohmann::ordered_json eval_results;
    eval_results["epoch"] = (*eval)["epoch"];
    for (const auto& [key, value] : eval->items()) {
      if (key.rfind("eval_", 0) == 0) eval_results[key] = value;
    }
    io::write_file_atomically(dir / "eval_results.json", eval_results.dump(2) + "\n");
    for (const auto& [key, value] : eval_results.items()) all[key] = value;
  }
  io::write_file_atomically(dir / "all_results.json", all.dump(2) + "\n");
}

TrainSummary Run::execute() {
  table_.emplace(ParamTable::for_model(inputs_.config));
  const StepPlan plan = plan_for(options_, inputs_, comm_.size());
  for (const std::string& note : notes_) say(note);

  engine_.emplace(inputs_.config, *table_, comm_,
                  EngineOptions{.adamw = AdamWOptions{.beta1 = static_cast<float>(options_.adam_beta1),
                                                      .beta2 = static_cast<float>(options_.adam_beta2),
                                                      .eps = static_cast<float>(options_.adam_epsilon),
                                                      .weight_decay = static_cast<float>(options_.weight_decay)},
                                .shard_optimizer = options_.shard_optimizer,
                                .bf16 = bf16_,
                                .bf16_grads = options_.ddp_bf16_grads});
  const std::span<float> params = engine_->params();
  const char* origin = "random weights";
  if (!inputs_.weights.empty()) {
    const io::WeightsLoadReport report = io::load_model_weights(inputs_.weights, *table_, params, inputs_.config,
                                                                static_cast<std::uint64_t>(options_.seed));
    origin = "weights from the model folder";
    for (const std::string& name : report.initialized) say(fmt::format("newly initialised: {}", name));
  } else {
    init_all_parameters(*table_, params, inputs_.config, static_cast<std::uint64_t>(options_.seed));
  }
  if (leader_) print_plan(options_, inputs_, plan, *table_, comm_.size(), compute_threads(), bf16_, origin, out_);

  TrainSummary summary;
  std::optional<nlohmann::ordered_json> last_eval;
  if (options_.do_train) {
    if (!resume_.empty()) {
      AdamWState optimizer;
      state_ = load_checkpoint(resume_, inputs_.config, *table_, params, optimizer);
      engine_->set_optimizer_state(optimizer);
      if (state_.batches_per_epoch != plan.batches_per_epoch || state_.world_size != comm_.size() ||
          state_.global_batch_size != plan.global_batch) {
        fail_input("{}: the checkpoint was made with {} worker(s), a global batch of {} and {} batches per epoch; "
                   "this run has {}, {} and {}, so its data position does not apply",
                   resume_.string(), state_.world_size, state_.global_batch_size, state_.batches_per_epoch,
                   comm_.size(), plan.global_batch, plan.batches_per_epoch);
      }
      say(fmt::format("resumed from {} at step {}", resume_.string(), state_.global_step));
    } else {
      state_.batches_per_epoch = plan.batches_per_epoch;
      state_.world_size = comm_.size();
      state_.global_batch_size = plan.global_batch;
      state_.seed = static_cast<std::uint64_t>(options_.seed);
    }
    state_.max_steps = plan.total_steps;
    state_.num_train_epochs = options_.max_steps > 0
                                  ? std::ceil(static_cast<double>(plan.total_steps) /
                                              static_cast<double>(std::max<std::int64_t>(plan.steps_per_epoch, 1)))
                                  : options_.num_train_epochs;
    if (leader_) metrics_.emplace(options_.output_dir / "metrics.jsonl", resume_.empty() ? -1 : state_.global_step);
    if (leader_) {
      progress_.emplace(out_, !options_.disable_tqdm && ::isatty(::fileno(out_)) == 1, plan.total_steps,
                        state_.global_step);
    }
    const LrSchedule schedule = parse_lr_schedule(options_.lr_scheduler_type);
    const auto start = Clock::now();
    window_start_ = start;
    // Every worker starts from rank 0's weights (loaded or initialised identically anyway).
    engine_->sync_parameters();
    while (state_.global_step < plan.total_steps) {
      const double lr = options_.learning_rate *
                        lr_multiplier(schedule, state_.global_step, plan.total_steps, plan.warmup_steps);
      const StepResult step = train_step(plan, static_cast<float>(lr));
      ++state_.global_step;
      ++steps_run_;
      loss_sum_ += step.loss;
      if (progress_) {
        const double seconds = seconds_since(start);
        progress_->step(state_.global_step, step.loss,
                        seconds > 0 ? static_cast<double>(samples_) / seconds : 0.0);
      }
      log_step(plan, step.loss, step.grad_norm, lr);
      const bool last = state_.global_step == plan.total_steps;
      if (options_.do_eval && options_.eval_steps > 0 && state_.global_step % options_.eval_steps == 0 && !last) {
        const nlohmann::ordered_json record = run_evaluation(state_.global_step, state_.epoch());
        if (leader_) {
          state_.log_history.push_back(record);
          metrics_->append(record);
          say(format_record(record, plan.total_steps));
        }
      }
      if (options_.save_steps > 0 && state_.global_step % options_.save_steps == 0) save();
    }
    if (progress_) progress_->finish();
    summary.steps = state_.global_step;
    summary.train_seconds = seconds_since(start);
    summary.train_samples = samples_;
    summary.train_loss = steps_run_ > 0 ? loss_sum_ / static_cast<double>(steps_run_) : 0.0;
  }
  if (options_.do_eval) {
    nlohmann::ordered_json record = run_evaluation(state_.global_step, state_.epoch());
    if (leader_) {
      if (options_.do_train) {
        state_.log_history.push_back(record);
        metrics_->append(record);
      }
      say(format_record(record, state_.max_steps));
    }
    for (const auto& [key, value] : record.items()) {
      if (key.rfind("eval_", 0) == 0 && value.is_number()) summary.eval_metrics.emplace_back(key, value.get<double>());
    }
    last_eval = std::move(record);
  }
  if (leader_) {
    write_final_files(plan, summary, last_eval);
    say(fmt::format("model, metrics and results written to {}", options_.output_dir.string()));
  }
  comm_.barrier();
  return summary;
}

}  // namespace

bool resolve_bf16(Bf16Mode mode, std::vector<std::string>& notes) {
  if (mode == Bf16Mode::kOff) return false;
  if (bf16_gemm_available()) return true;
  if (mode == Bf16Mode::kOn) {
    fail_input("--bf16: this CPU has neither AVX512-BF16 nor AMX (it has: {}); pass --bf16 auto to train in fp32 "
               "where bf16 is not available, or leave --bf16 out",
               cpu_features().summary());
  }
  notes.push_back(fmt::format("--bf16 auto: this CPU has neither AVX512-BF16 nor AMX ({}); training in fp32",
                              cpu_features().summary()));
  return false;
}

PreparedRun prepare_run(const TrainOptions& options) {
  PreparedRun prepared = prepare_inputs(options);
  if (!options.dry_run) prepared.resume = prepare_output_dir(options, prepared.notes);
  return prepared;
}

PreparedRun prepare_inputs(const TrainOptions& options) {
  std::vector<std::string> notes;
  const bool bf16 = resolve_bf16(options.bf16, notes);
  PreparedRun prepared{.inputs = load_run_inputs(options), .resume = {}, .notes = std::move(notes), .bf16 = bf16};
  const RunInputs& inputs = prepared.inputs;
  if (options.do_train && (!inputs.data.train || inputs.data.train->examples.empty())) {
    fail_input("the training data is empty");
  }
  if (options.do_eval && (!inputs.data.validation || inputs.data.validation->examples.empty())) {
    fail_input("the evaluation data is empty");
  }
  return prepared;
}

void print_dry_run(const TrainOptions& options, const std::string& options_toml, const PreparedRun& prepared,
                   int workers, int threads, std::FILE* out) {
  const RunInputs& inputs = prepared.inputs;
  const ParamTable table = ParamTable::for_model(inputs.config);
  print_plan(options, inputs, plan_for(options, inputs, workers), table, workers, threads, prepared.bf16,
             inputs.weights.empty() ? "random weights" : "weights from the model folder", out);
  fmt::print(out, "\nresolved configuration:\n{}", options_toml);
}

TrainSummary run_training(const TrainOptions& options, const std::string& options_toml, const PreparedRun& prepared,
                          comm::Communicator& comm, std::FILE* out) {
  Run run(options, options_toml, prepared, comm, out);
  return run.execute();
}

}  // namespace shmtrain::train
