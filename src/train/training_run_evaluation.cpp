// TrainingRun's evaluations during and after training: when they are due (eval_steps,
// eval_strategy epoch), their records, checkpoints after them, and the best model they pick
// (best_model.hpp).
#include "training_run.hpp"

#include <chrono>

#include <fmt/format.h>

#include "run_report.hpp"
#include "shmtrain/model/model_weights.hpp"
#include "shmtrain/task/sentence_embedding/beir_folder.hpp"
#include "shmtrain/train/ir_evaluation.hpp"

namespace shmtrain::train {

EvalSettings TrainingRun::eval_settings() const {
  return {.batch_size = options_.per_device_eval_batch_size,
          .max_seq_length = inputs_.max_seq_length,
          .padding = options_.batch_padding(),
          .pad_id = inputs_.tokenizer->pad_id()};
}

nlohmann::ordered_json TrainingRun::run_evaluation(std::int64_t step, double epoch) {
  EvalResult result;
  if (inputs_.task->validation()) {
    result = evaluate(engine_.model(), *inputs_.task, eval_settings(), comm_,
                      leader_ ? options_.output_dir : std::filesystem::path());
  }
  if (const task::RetrievalSet* set = inputs_.task->retrieval()) {
    const auto start = std::chrono::steady_clock::now();
    const task::Metrics metrics = evaluate_retrieval(engine_.model(), *inputs_.tokenizer, *set, inputs_.max_seq_length,
                                                     options_.per_device_eval_batch_size, comm_);
    result.metrics.insert(result.metrics.end(), metrics.begin(), metrics.end());
    result.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (!inputs_.task->validation()) result.samples = static_cast<std::int64_t>(set->queries.size());
  }
  nlohmann::ordered_json record;
  record["step"] = step;
  record["epoch"] = epoch;
  // run_mlm adds perplexity = exp(eval_loss) without the prefix.
  for (const auto& [name, value] : result.metrics) record[name == "perplexity" ? name : "eval_" + name] = value;
  record["eval_runtime"] = result.seconds;
  record["eval_samples"] = result.samples;
  record["eval_samples_per_second"] = result.seconds > 0 ? static_cast<double>(result.samples) / result.seconds : 0.0;
  return record;
}

void TrainingRun::add_mismatched_evaluation(nlohmann::ordered_json& record) {
  const task::Task* mismatched = inputs_.task->mismatched();
  if (mismatched == nullptr) return;
  const EvalResult result = evaluate(engine_.model(), *mismatched, eval_settings(), comm_, std::filesystem::path());
  for (const auto& [name, value] : result.metrics) record["eval_" + name + "_mm"] = value;
  record["eval_runtime_mm"] = result.seconds;
  record["eval_samples_mm"] = result.samples;
  record["eval_samples_per_second_mm"] =
      result.seconds > 0 ? static_cast<double>(result.samples) / result.seconds : 0.0;
}

void TrainingRun::publish(const nlohmann::ordered_json& record) {
  state_.log_history.push_back(record);
  metrics_->append(record);
  if (tensorboard_) report::write_log_record(*tensorboard_, record);
}

void TrainingRun::record_evaluation(const nlohmann::ordered_json& record, std::int64_t total_steps) {
  if (!leader_) return;
  publish(record);
  print_line(format_record(record, total_steps));
}

bool TrainingRun::after_step(const StepPlan& plan, bool epoch_end) {
  const std::int64_t step = state_.global_step;
  // The final evaluation follows training; with a best model to pick, the last step's counts too.
  const bool last = step == plan.total_steps && !options_.load_best_model_at_end;
  bool stop = false;
  if (options_.do_eval && !last &&
      ((plan.eval_steps > 0 && step % plan.eval_steps == 0) || (options_.eval_each_epoch && epoch_end))) {
    const nlohmann::ordered_json record = run_evaluation(step, state_.epoch());
    record_evaluation(record, plan.total_steps);
    stop = best_.observe(record, step);
  }
  if ((plan.save_steps > 0 && step % plan.save_steps == 0) || (options_.save_each_epoch && epoch_end)) save();
  if (stop) {
    print_line(fmt::format("early stopping at step {}: {} evaluations without {} improving on {}", step,
                           options_.early_stopping_patience, best_.metric(), *best_.best_metric()));
  }
  return stop;
}

// Trainer's load_best_model_at_end: rank 0 reads the best checkpoint's weights, every worker
// takes them.
void TrainingRun::load_best_model() {
  if (leader_ && best_.best_checkpoint()) {
    model::load_model_weights(*best_.best_checkpoint() / "model.safetensors", table_, engine_.params(), inputs_.config,
                              static_cast<std::uint64_t>(options_.seed));
    print_line(fmt::format("loaded the best model ({} {}) from {}", best_.metric(), *best_.best_metric(),
                           best_.best_checkpoint()->string()));
  }
  engine_.sync_parameters();
}

}  // namespace shmtrain::train
