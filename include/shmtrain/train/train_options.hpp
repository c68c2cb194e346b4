#pragma once
// Everything a training run is configured by, typed, after defaults < config file < command
// line were resolved (cli/train_option_table.hpp declares each field once with its default
// and help). Names are Hugging Face's (run_glue.py's arguments and TrainingArguments) where one
// exists, so a user's habits carry over; the defaults are theirs too.
#include <algorithm>
#include <cctype>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "shmtrain/common/error.hpp"
#include "shmtrain/data/collate.hpp"
#include "shmtrain/optim/schedule.hpp"

namespace shmtrain::train {

// --bf16: false, true (refused on a CPU without AVX512-BF16 or AMX), or auto (bf16 where the
// CPU has it, fp32 otherwise).
enum class Bf16Mode { kOff, kOn, kAuto };

struct TrainOptions {
  // Model and tokenizer: a Hugging Face folder, or a config.json to start from random weights.
  std::filesystem::path model_name_or_path;
  std::filesystem::path config_name;     // config.json (or its folder) when not from model_name_or_path
  std::filesystem::path tokenizer_name;  // vocab.txt / tokenizer.json / folder when not from the model folder
  std::optional<bool> do_lower_case;
  std::optional<double> hidden_dropout_prob;
  std::optional<double> attention_probs_dropout_prob;
  // A Hub id (ORG/NAME) in place of a folder is looked up in the local Hugging Face cache
  // (io/hub_cache.hpp): cache_dir, else $HF_HUB_CACHE, $HF_HOME/hub, ~/.cache/huggingface/hub.
  std::filesystem::path cache_dir;
  std::string model_revision = "main";  // branch, tag or commit of a Hub id

  // Data.
  std::string task_name;
  // A dataset of the local Hugging Face cache (--dataset_name squad, glue + mrpc, ORG/NAME):
  // its parquet splits, read as the files of the task it names.
  std::string dataset_name;
  std::string dataset_config_name;
  std::filesystem::path data_dir;
  std::filesystem::path train_file;
  std::filesystem::path validation_file;
  std::filesystem::path test_file;  // --do_predict's data
  std::optional<std::int64_t> max_seq_length;  // unset: seq_length()'s task default
  // How batches are laid out (data/collate.hpp); unset: packed, no padding. Hugging Face's
  // pad_to_max_length, when given, asks for padding: true to max_seq_length, false to the
  // batch's longest row.
  std::optional<data::Padding> padding;
  std::optional<bool> pad_to_max_length;
  std::optional<std::int64_t> max_train_samples;
  std::optional<std::int64_t> max_eval_samples;
  std::optional<std::int64_t> max_predict_samples;
  // Question answering (run_qa.py's options and defaults).
  std::int64_t doc_stride = 128;        // overlap of a long context's windows, in tokens
  std::int64_t n_best_size = 20;        // start and end candidates per window in post-processing
  std::int64_t max_answer_length = 30;  // longest answer, in tokens
  // SQuAD 2.0: questions may have no answer; "" is predicted when the best span's score trails
  // the null ([CLS]) score by more than null_score_diff_threshold.
  bool version_2_with_negative = false;
  double null_score_diff_threshold = 0.0;
  // Token classification (run_ner.py's options and defaults).
  std::string text_column_name;   // "": tokens
  std::string label_column_name;  // "": <task_name>_tags
  bool label_all_tokens = false;
  bool return_entity_level_metrics = false;
  std::string label_names;  // comma-separated names of integer tags, tag i -> the i-th
  // Masked LM (run_mlm.py's options and defaults).
  double mlm_probability = 0.15;
  bool whole_word_mask = false;
  bool line_by_line = false;
  std::int64_t validation_split_percentage = 5;
  std::optional<std::int64_t> preprocessing_num_workers;  // accepted; tokenization uses every core
  // Sentence embeddings (sentence-transformers' modules and losses, their defaults).
  std::string loss;  // "": the task's default (MultipleNegativesRankingLoss, BinaryCrossEntropyLoss)
  std::string lambda_weighting_scheme = "ndcg_loss2pp";  // reranking's LambdaLoss
  double pos_weight = 1.0;  // reranking's BinaryCrossEntropyLoss: the positives' weight
  std::string pooling;  // "": a sentence-transformers folder's Pooling, else mean
  bool normalize = false;
  std::optional<double> scale;  // the loss's scale: sentence-embedding 20, reranking MNRL 10
  std::int64_t num_negatives = 4;  // reranking MNRL: in-batch negatives per query
  bool gather_across_devices = false;
  std::string matryoshka_dims;     // comma-separated; "": no MatryoshkaLoss
  std::string matryoshka_weights;  // comma-separated, one per dim; "": 1 each
  std::int64_t mini_batch_size = 32;
  std::string batch_sampler = "batch_sampler";
  std::string eval_name;
  std::string prompts;  // a prefix for every text column, or a JSON object column -> prefix
  std::filesystem::path ir_eval_dir;
  std::string ir_eval_name;
  std::string ir_query_prompt;
  std::string ir_corpus_prompt;

  // The run.
  std::filesystem::path output_dir;
  bool overwrite_output_dir = false;
  bool do_train = false;    // as TrainingArguments: --do_train trains
  bool do_eval = false;     // as TrainingArguments: asked for, or set by an eval_strategy
  bool do_predict = false;  // label test_file with the (trained) model
  std::filesystem::path resume_from_checkpoint;
  bool dry_run = false;
  // torchrun's: restarts from the last checkpoint after a worker fails (0: the job fails).
  std::int64_t max_restarts = 0;

  // Optimisation.
  double num_train_epochs = 3.0;
  std::int64_t max_steps = -1;
  std::int64_t per_device_train_batch_size = 8;
  std::int64_t per_device_eval_batch_size = 8;
  std::int64_t gradient_accumulation_steps = 1;
  double learning_rate = 5e-5;
  optim::LrSchedule lr_scheduler_type = optim::LrSchedule::kLinear;
  // TrainingArguments' lr_scheduler_kwargs: a JSON object of the schedule's extra arguments
  // (e.g. {"num_cycles": 2}); "" means none.
  std::string lr_scheduler_kwargs;
  double warmup_ratio = 0.0;
  // transformers 5's --warmup_steps: 1 or more, int of it; a fraction below 1, ceil(total steps x it)
  // (what --warmup_ratio was); 0: --warmup_ratio decides.
  double warmup_steps = 0;
  double weight_decay = 0.0;
  double adam_beta1 = 0.9;
  double adam_beta2 = 0.999;
  double adam_epsilon = 1e-8;
  double max_grad_norm = 1.0;
  std::int64_t seed = 42;
  bool shuffle = true;
  // Hugging Face's --group_by_length: rows of similar length share micro-batches
  // (data::length_grouped_indices), shuffled per epoch still.
  bool group_by_length = false;
  // Deal each global micro-batch's rows to the workers by tokens, not by position
  // (data/token_balance.hpp): packed batches cost their tokens. The same rows per step, so
  // the same results; false deals as DistributedSampler does.
  bool balance_tokens = true;

  // Logging, evaluation, checkpoints.
  std::int64_t logging_steps = 500;
  std::int64_t eval_steps = 0;  // 0: evaluate at the end only
  std::int64_t save_steps = 500;  // 0: no checkpoints during training
  // TrainingArguments' float form of the three: a value in (0, 1) is a ratio of the total
  // steps, every ceil(total x ratio) steps (step_plan.hpp resolves it); 0: the steps above.
  double logging_steps_ratio = 0.0;
  double eval_steps_ratio = 0.0;
  double save_steps_ratio = 0.0;
  // TrainingArguments' strategies: "no", "steps" or "epoch" ("" for eval: unset). The CLI
  // resolves them into the fields above and the *_each_epoch flags (cli/train_config_file).
  std::string eval_strategy;
  std::string save_strategy = "steps";
  std::string logging_strategy = "steps";
  bool eval_each_epoch = false;
  bool save_each_epoch = false;
  bool log_each_epoch = false;
  // Keep the checkpoint whose evaluation scored best and end with its weights; stop when the
  // metric has not improved for early_stopping_patience evaluations (EarlyStoppingCallback).
  bool load_best_model_at_end = false;
  std::string metric_for_best_model;  // without "eval_"; "": loss where computed, else f1, else the first
  std::optional<bool> greater_is_better;  // default: true, false for a metric ending in "loss"
  std::int64_t early_stopping_patience = 0;  // 0: no early stopping
  double early_stopping_threshold = 0.0;
  std::optional<std::int64_t> save_total_limit;
  bool disable_tqdm = false;  // no live progress line even on a terminal
  // TrainingArguments' report_to, comma-separated: "none" writes no report.html; "tensorboard"
  // (or "all") also writes TensorBoard event files under output_dir/runs/. Other integrations
  // (wandb, mlflow, ...) are not called: the CLI says so.
  std::string report_to;
  std::filesystem::path logging_dir;  // TensorBoard's folder; "": output_dir/runs/<date>_<host>, as Trainer's

  // Compute.
  std::optional<std::int64_t> threads;  // compute threads per worker; default: its cores
  bool shard_optimizer = false;  // each worker keeps AdamW's state for 1/P of the parameters
  Bf16Mode bf16 = Bf16Mode::kOff;  // mixed precision (torch.autocast semantics)
  bool ddp_bf16_grads = false;     // the exchange carries bf16 gradients, summed in fp32
  // Seconds a worker's heartbeat may stand still before it counts as stalled (stopped, stuck)
  // and the job stops; comm::kDefaultStallTimeout says why 30. Between hosts no heartbeat
  // crosses, so a wait there cannot tell a busy host (a long save) from a stuck one: it gives
  // up after ddp_timeout only when the user set it, else after torch.distributed's 1800 s.
  std::optional<std::int64_t> ddp_timeout;
  std::int64_t stall_timeout_seconds() const { return ddp_timeout.value_or(30); }
  std::int64_t between_hosts_timeout_seconds() const { return ddp_timeout.value_or(1800); }

  // report_to's parts, lower-cased.
  bool reports_to(std::string_view name) const {
    std::string text;
    for (const char c : report_to) text.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
    for (std::size_t begin = 0; begin <= text.size();) {
      const std::size_t comma = std::min(text.find(',', begin), text.size());
      std::string part = text.substr(begin, comma - begin);
      part.erase(0, part.find_first_not_of(' '));
      part.erase(part.find_last_not_of(' ') + 1);
      if (part == name) return true;
      begin = comma + 1;
    }
    return false;
  }
  bool writes_report() const { return !reports_to("none"); }
  bool writes_tensorboard() const { return reports_to("tensorboard") || reports_to("all"); }

  // --task_name squad: extractive question answering (run_qa.py) instead of classification.
  bool question_answering() const {
    constexpr std::string_view kSquad = "squad";
    return task_name.size() == kSquad.size() &&
           std::equal(kSquad.begin(), kSquad.end(), task_name.begin(),
                      [](char a, char b) { return a == std::tolower(static_cast<unsigned char>(b)); });
  }
  // --task_name mlm (run_mlm.py) and swag (run_swag.py).
  bool masked_lm() const { return lower_task() == "mlm"; }
  bool multiple_choice() const { return lower_task() == "swag"; }
  std::string lower_task() const {
    std::string lower;
    for (const char c : task_name) lower.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
    return lower;
  }
  // --task_name ner, pos or chunk: token classification (run_ner.py).
  bool token_classification() const {
    std::string lower;
    for (const char c : task_name) lower.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
    return lower == "ner" || lower == "pos" || lower == "chunk";
  }
  // max_seq_length, or the default of the script the task comes from: run_qa.py's 384 for
  // question answering, run_glue.py's 128 otherwise; run_mlm.py and run_swag.py take the
  // tokenizer's model_max_length (at most 1,024), which run_inputs puts in when unset.
  std::int64_t seq_length() const { return max_seq_length.value_or(question_answering() ? 384 : 128); }
  // The learning-rate schedule with lr_scheduler_kwargs applied; throws InputError for
  // arguments the schedule does not take or refuses (optim::make_lr_schedule).
  optim::LrScheduleSpec lr_schedule() const {
    return optim::make_lr_schedule(lr_scheduler_type, lr_scheduler_kwargs, learning_rate);
  }
  // padding, or what pad_to_max_length asks for; throws InputError when the two disagree.
  data::Padding batch_padding() const {
    if (!pad_to_max_length) return padding.value_or(data::Padding::kNone);
    const data::Padding asked = *pad_to_max_length ? data::Padding::kMaxLength : data::Padding::kLongest;
    if (padding && *padding != asked) {
      fail_input("padding = {} and pad_to_max_length = {} disagree; give one of them",
                 data::padding_name(*padding), *pad_to_max_length);
    }
    return asked;
  }
};

}  // namespace shmtrain::train
