#include "training_run.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <optional>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "results_files.hpp"
#include "token_weights.hpp"
#include "run_info.hpp"
#include "run_report.hpp"
#include "shmtrain/model/batch_validation.hpp"
#include "shmtrain/common/error.hpp"
#include "shmtrain/common/fault_injection.hpp"
#include "shmtrain/data/collate.hpp"
#include "shmtrain/data/sampler.hpp"
#include "shmtrain/io/atomic_file.hpp"
#include "shmtrain/model/model_weights.hpp"
#include "shmtrain/model/train_flops.hpp"
#include "shmtrain/model/init.hpp"
#include "shmtrain/optim/schedule.hpp"
#include "shmtrain/tensor/threads.hpp"
#include "shmtrain/train/checkpoint.hpp"
#include "shmtrain/train/evaluate.hpp"
#include "shmtrain/train/output_dir.hpp"

namespace shmtrain::train {
double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

TrainingRun::TrainingRun(const TrainOptions& options, const std::string& options_toml,
                         const PreparedRun& prepared, comm::Communicator& comm, std::FILE* out)
    : options_(options),
      options_toml_(options_toml),
      prepared_(prepared),
      inputs_(prepared.inputs),
      resume_(prepared.resume),
      notes_(prepared.notes),
      bf16_(prepared.bf16),
      comm_(comm),
      out_(out),
      leader_(comm.rank() == 0),
      table_(model::ParamTable::for_model(inputs_.config)),
      engine_(inputs_.config, table_, comm_, engine_options(options, prepared.bf16)),
      best_(options) {
  if (inputs_.config.head == model::ModelHead::kSentenceEmbedding && inputs_.config.sentence.gather_across_devices) {
    row_exchange_ = std::make_unique<CommRowExchange>(comm_);
    engine_.model().set_row_exchange(row_exchange_.get());
  }
}

void TrainingRun::print_line(const std::string& line) {
  if (!leader_) return;
  if (progress_) {
    progress_->print(line);
  } else {
    fmt::print(out_, "{}\n", line);
    std::fflush(out_);
  }
}

std::int64_t TrainingRun::micro_batch_tokens() const {
  const std::vector<data::Example>& rows = inputs_.task->train()->examples;
  double tokens = 0;
  for (const data::Example& e : rows) tokens += static_cast<double>(e.input_ids.size());
  const double mean = rows.empty() ? 0.0 : tokens / static_cast<double>(rows.size());
  return static_cast<std::int64_t>(mean * static_cast<double>(options_.per_device_train_batch_size));
}

const char* TrainingRun::load_or_init_weights() {
  const std::span<float> params = engine_.params();
  if (inputs_.weights.empty()) {
    model::init_all_parameters(table_, params, inputs_.config, static_cast<std::uint64_t>(options_.seed));
    return "random weights";
  }
  const model::WeightsLoadReport report = model::load_model_weights(
      inputs_.weights, table_, params, inputs_.config, static_cast<std::uint64_t>(options_.seed));
  // As transformers warns: one line for what the task model leaves (a Hub RoBERTa's lm_head.*).
  if (!report.unused.empty()) print_line(fmt::format("not used from the checkpoint: {}", fmt::join(report.unused, ", ")));
  for (const std::string& name : report.initialized) print_line(fmt::format("newly initialised: {}", name));
  return "weights from the model folder";
}

void TrainingRun::start_or_resume(const StepPlan& plan) {
  if (!resume_.empty()) {
    optim::AdamWState optimizer;
    state_ = load_checkpoint(resume_, inputs_.config, table_, engine_.params(), optimizer, *inputs_.tokenizer);
    best_.restore(state_.best_metric, state_.best_model_checkpoint);
    engine_.set_optimizer_state(optimizer);
    // Elastic: the worker count may change, the global batch may not. A global step's rows are
    // the same contiguous block of the epoch's permutation for any worker count (each worker
    // takes every P-th), dropout masks follow the rows, and the optimizer state is whole in
    // the checkpoint: the losses go on as if the run had never stopped.
    if (state_.batches_per_epoch != plan.batches_per_epoch || state_.global_batch_size != plan.global_batch) {
      fail_input("{}: the checkpoint was made with {} worker(s), a global batch of {} and {} batches per epoch; "
                 "this run has {}, {} and {}, so its data position does not apply (keep the global batch: "
                 "per_device_train_batch_size x workers x gradient_accumulation_steps)",
                 resume_.string(), state_.world_size, state_.global_batch_size, state_.batches_per_epoch,
                 comm_.size(), plan.global_batch, plan.batches_per_epoch);
    }
    print_line(fmt::format("resumed from {} at step {}{}", resume_.string(), state_.global_step,
                           state_.world_size != comm_.size()
                               ? fmt::format(" (written by {} worker(s), continued by {})", state_.world_size,
                                             comm_.size())
                               : std::string()));
    state_.world_size = comm_.size();
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
}

// The step's micro-batches through the engine: forward, backward, exchange and update.
StepResult TrainingRun::train_step(const StepPlan& plan, float lr) {
  const data::Dataset& train = *inputs_.task->train();
  const std::int64_t micro_batches =
      std::min(options_.gradient_accumulation_steps, plan.batches_per_epoch - state_.batches_done);
  std::vector<data::Batch> batches;
  std::vector<model::StepContext> contexts;
  fault_point("data", comm_.rank());
  const auto data_start = Clock::now();
  double tokens = 0;
  double flops = 0;
  for (std::int64_t i = 0; i < micro_batches; ++i) {
    const std::vector<std::int64_t> rows = rows_->rows(state_.epoch_index, state_.batches_done + i);
    if (state_.batches_done + i == 0 && rows_->left_out() > 0) {
      print_line(fmt::format("--batch_sampler no_duplicates: epoch {} leaves out {} rows that could only share a "
                             "batch with a duplicate of one of their texts",
                             state_.epoch_index + 1, rows_->left_out()));
    }
    const std::uint64_t micro_step = static_cast<std::uint64_t>(state_.global_step * options_.gradient_accumulation_steps + i);
    // A task that makes its examples per batch (cross-encoder MNRL) draws them from the
    // seed, the worker and the micro-step, so a resumed run draws the same ones.
    const std::optional<data::Dataset> made = inputs_.task->batch_examples(
        rows, static_cast<std::uint64_t>(options_.seed) * 0x9E3779B97F4A7C15ull ^ (micro_step << 16) ^
                  static_cast<std::uint64_t>(comm_.rank()));
    std::vector<std::int64_t> made_rows;
    if (made) {
      made_rows.resize(made->examples.size());
      std::iota(made_rows.begin(), made_rows.end(), std::int64_t{0});
    }
    batches.push_back(data::collate(made ? *made : train, made ? made_rows : rows,
                                    static_cast<std::size_t>(inputs_.max_seq_length), options_.batch_padding(),
                                    inputs_.tokenizer->pad_id(), inputs_.task->train_target()));
    inputs_.task->prepare_batch(batches.back(), static_cast<std::uint64_t>(state_.epoch_index));  // run_mlm's masks
    model::validate_batch(batches.back(), inputs_.config, train.source);
    tokens += static_cast<double>(batches.back().real_tokens());
    flops += model::batch_train_flops(inputs_.config, batches.back());
    // Dropout masks are a function of the micro-step, so a resumed run draws the same ones.
    contexts.push_back(model::StepContext{
        .train = true,
        .seed = static_cast<std::uint64_t>(options_.seed),
        .rank = static_cast<std::uint64_t>(comm_.rank()),
        .step = micro_step});
    const std::int64_t samples = static_cast<std::int64_t>(rows.size()) * comm_.size();
    samples_ += samples;
    window_samples_ += samples;
  }
  profile_.add_data(seconds_since(data_start));
  if (inputs_.task->target() == data::Target::kTokens || inputs_.task->target() == data::Target::kMaskedTokens) {
    weigh_token_batches(batches, comm_);
  } else if (inputs_.task->target() == data::Target::kTexts) {
    weigh_example_batches(batches, comm_);
  } else if (inputs_.task->train_target() == data::Target::kList) {
    weigh_list_batches(batches, comm_, inputs_.config);
  }
  state_.batches_done += micro_batches;
  if (state_.batches_done >= plan.batches_per_epoch) {
    ++state_.epoch_index;
    state_.batches_done = 0;
  }
  const StepResult result = engine_.step(batches, contexts, lr, options_.max_grad_norm);
  profile_.add_step(comm_, result.times, tokens, flops);
  return result;
}

void TrainingRun::save() {
  const optim::AdamWState optimizer = engine_.optimizer_state();  // collective when sharded
  if (!leader_) return;
  // The checkpoint's trainer_state.json already names it when its evaluation is the best.
  state_.best_metric = best_.best_metric();
  if (best_.is_best_step(state_.global_step)) {
    state_.best_model_checkpoint = (options_.output_dir / fmt::format("checkpoint-{}", state_.global_step)).string();
  }
  const std::filesystem::path path =
      save_checkpoint(options_.output_dir, CheckpointView{inputs_.config, table_, engine_.params(), optimizer, state_,
                                                          *inputs_.tokenizer, options_toml_});
  best_.saved(state_.global_step, path);
  if (options_.save_total_limit) {
    rotate_checkpoints(options_.output_dir, *options_.save_total_limit,
                       best_.best_checkpoint().value_or(std::filesystem::path()));
  }
  print_line(fmt::format("saved {}", path.string()));
  write_report();
}

void TrainingRun::train(const StepPlan& plan, TrainSummary& summary) {
  start_or_resume(plan);
  if (leader_ && !run_info_.empty()) {
    io::write_file_atomically(options_.output_dir / "run_info.json", run_info_.dump(2) + "\n");
  }
  if (leader_) {
    metrics_.emplace(options_.output_dir / "metrics.jsonl", resume_.empty() ? -1 : state_.global_step);
    if (options_.writes_tensorboard()) {
      tensorboard_.emplace(report::tensorboard_dir(options_.logging_dir, options_.output_dir));
    }
    progress_.emplace(out_, !options_.disable_tqdm && ::isatty(::fileno(out_)) == 1, plan.total_steps,
                      state_.global_step);
  }
  rows_.emplace(*inputs_.task->train(),
                BatchRowsOptions{.shuffle = options_.shuffle,
                                 .group_by_length = options_.group_by_length,
                                 .balance_tokens = options_.balance_tokens,
                                 .no_duplicates = options_.batch_sampler == "no_duplicates",
                                 .batches_per_epoch = plan.batches_per_epoch,
                                 .batch_size = options_.per_device_train_batch_size,
                                 .seed = static_cast<std::uint64_t>(options_.seed)},
                comm_.rank(), comm_.size());
  const auto start = Clock::now();
  window_start_ = start;
  // Every worker starts from rank 0's weights (loaded or initialised identically anyway).
  engine_.sync_parameters();
  const optim::LrScheduleSpec schedule = options_.lr_schedule();
  while (state_.global_step < plan.total_steps) {
    const double lr = options_.learning_rate *
                      optim::lr_multiplier(schedule, state_.global_step, plan.total_steps, plan.warmup_steps);
    const StepResult step = train_step(plan, static_cast<float>(lr));
    ++state_.global_step;
    ++steps_run_;
    loss_sum_ += step.loss;
    if (progress_) {
      const double seconds = seconds_since(start);
      progress_->step(state_.global_step, step.loss, seconds > 0 ? static_cast<double>(samples_) / seconds : 0.0);
    }
    const bool epoch_end = state_.batches_done == 0;  // train_step rolled over to the next epoch
    log_step(plan, step.loss, step.grad_norm, lr, epoch_end);
    if (after_step(plan, epoch_end)) break;
  }
  if (progress_) progress_->finish();
  if (options_.load_best_model_at_end) load_best_model();
  summary.steps = state_.global_step;
  summary.train_seconds = seconds_since(start);
  summary.train_samples = samples_;
  summary.train_loss = steps_run_ > 0 ? loss_sum_ / static_cast<double>(steps_run_) : 0.0;
}

void TrainingRun::write_final_files(const StepPlan& plan, const TrainSummary& summary,
                                    const std::optional<nlohmann::ordered_json>& eval,
                                    const std::optional<nlohmann::ordered_json>& predicted) {
  const std::filesystem::path& dir = options_.output_dir;
  std::optional<TrainResults> train;
  if (options_.do_train) {
    fault_point("final.model", comm_.rank());
    write_model_folder(dir, inputs_.config, table_, engine_.params(), *inputs_.tokenizer, options_toml_);
    io::write_file_atomically(dir / "trainer_state.json", state_.to_json().dump(2) + "\n");
    train = TrainResults{.epoch = state_.epoch(),
                         .train_loss = summary.train_loss,
                         .seconds = summary.train_seconds,
                         .train_rows = static_cast<std::int64_t>(inputs_.task->train()->examples.size()),
                         .samples_seen = summary.train_samples,
                         .steps_run = steps_run_,
                         .total_steps = plan.total_steps};
  }
  write_results_files(dir, train, eval, predicted);
}

TrainSummary TrainingRun::execute() {
  const StepPlan plan = options_.do_train ? plan_steps(options_, static_cast<std::int64_t>(
                                                                     inputs_.task->train()->examples.size()),
                                                       comm_.size())
                                          : StepPlan{};
  for (const std::string& note : notes_) print_line(note);
  const char* origin = load_or_init_weights();
  const PlanFacts facts{
      .workers = comm_.size(), .threads = tensor::compute_threads(), .bf16 = bf16_, .weights_origin = origin};
  if (leader_) print_plan(options_, inputs_, plan, table_, facts, out_);
  const auto started = Clock::now();
  if (options_.do_train) {
    machine_rate_ = measure_machine_rate(comm_, inputs_.config, micro_batch_tokens(), bf16_);  // collective
    if (leader_) print_line(describe(*machine_rate_, comm_.size()));
    // Written once training has started (train()): a run refused at resume leaves nothing.
    if (leader_ && options_.writes_report())
      run_info_ = run_info_json(options_, prepared_, plan, table_, facts, *machine_rate_);
  }

  TrainSummary summary;
  if (options_.do_train) train(plan, summary);
  std::optional<nlohmann::ordered_json> last_eval;
  if (options_.do_eval) {
    nlohmann::ordered_json record = run_evaluation(state_.global_step, state_.epoch());
    add_mismatched_evaluation(record);
    if (options_.do_train) {
      record_evaluation(record, state_.max_steps);
    } else {
      print_line(format_record(record, state_.max_steps));
    }
    for (const auto& [key, value] : record.items()) {
      if (key.rfind("eval_", 0) == 0 && value.is_number()) summary.eval_metrics.emplace_back(key, value.get<double>());
    }
    last_eval = std::move(record);
  }
  std::optional<nlohmann::ordered_json> predicted;
  if (options_.do_predict) {
    const PredictResult result =
        predict(engine_.model(), *inputs_.task, eval_settings(), comm_, leader_ ? options_.output_dir : std::filesystem::path());
    print_line(fmt::format("predictions written to {}", result.prediction.file.string()));
    predicted = predict_results(result);
    if (predicted) print_line(fmt::format("predict metrics: {}", predicted->dump()));
  }
  if (leader_ && !run_info_.empty()) {
    run_info_["finished"] = true;
    run_info_["wall_seconds"] = seconds_since(started);
    io::write_file_atomically(options_.output_dir / "run_info.json", run_info_.dump(2) + "\n");
  }
  if (leader_) {
    write_final_files(plan, summary, last_eval, predicted);
    write_report();
    print_line(fmt::format("model, metrics and results written to {}", options_.output_dir.string()));
  }
  comm_.barrier();
  return summary;
}

}  // namespace shmtrain::train
