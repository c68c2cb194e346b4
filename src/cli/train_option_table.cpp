#include "shmtrain/cli/train_option_table.hpp"

#include <algorithm>

#include <fmt/format.h>
#include <toml++/toml.h>

#include "option_fields.hpp"
#include "shmtrain/topo/placement.hpp"

namespace shmtrain::cli {
namespace {

using namespace option_fields;

std::vector<OptionSpec> make_table() {
  const Range positive = above(0);
  const Range non_negative = at_least(0);
  const Range probability = between(0, 1);
  const Range at_least_one = at_least(1);
  // Batch sizes and accumulation are bounded so that their product with the workers (the
  // global batch) stays far inside an int64: 9e18 accumulation steps once wrapped negative.
  constexpr double kMaxBatchCount = 1 << 20;
  const std::string model = "model", data = "data", run = "run", optim = "optimisation", log = "logging",
                    compute = "compute";
  return {
      option("model_name_or_path", &TrainOptions::model_name_or_path, model,
             "Hugging Face model folder (config.json, model.safetensors, tokenizer files) or a Hub id "
             "(ORG/NAME) in the local Hugging Face cache"),
      option("cache_dir", &TrainOptions::cache_dir, model,
             "the Hugging Face cache that Hub ids are looked up in (default: $HF_HUB_CACHE, else $HF_HOME/hub, "
             "else ~/.cache/huggingface/hub); nothing is downloaded"),
      option("model_revision", &TrainOptions::model_revision, model,
             "branch, tag or commit of a Hub id's snapshot in the cache"),
      option("config_name", &TrainOptions::config_name, model,
             "config.json (or its folder) to train from randomly initialised weights instead"),
      option("tokenizer_name", &TrainOptions::tokenizer_name, model,
             "vocab.txt, tokenizer.json or their folder, when not in the model folder"),
      option("do_lower_case", &TrainOptions::do_lower_case, model,
             "lower-case text before WordPiece (default: tokenizer_config.json, else the vocabulary's case)"),
      option("hidden_dropout_prob", &TrainOptions::hidden_dropout_prob, model,
             "override config.json's hidden_dropout_prob", probability),
      option("attention_probs_dropout_prob", &TrainOptions::attention_probs_dropout_prob, model,
             "override config.json's attention_probs_dropout_prob", probability),

      option(
          "task_name", &TrainOptions::task_name, data,
          "GLUE task: mrpc, sst2, qqp, qnli, rte, cola, stsb, mnli, wnli, read from --data_dir's TSV files or, without "
          "files, from nyu-mll/glue in the local Hugging Face cache; or squad (question answering: SQuAD v1.1 JSON "
          "files, SQuAD 2.0 with --version_2_with_negative); or ner, pos, chunk (token classification, run_ner's "
          "CoNLL or JSON Lines files); or mlm (masked-LM training on text, run_mlm's); or swag (multiple choice, "
          "run_swag's)"),
      option("dataset_name", &TrainOptions::dataset_name, data,
             "a dataset of the local Hugging Face cache, read from its parquet files: squad, squad_v2, glue "
             "(with --dataset_config_name mrpc, ...), conll2003 or ORG/NAME; nothing is downloaded"),
      option("dataset_config_name", &TrainOptions::dataset_config_name, data,
             "the dataset's configuration (glue: the task; default: its only one)"),
      option("data_dir", &TrainOptions::data_dir, data,
             "folder with the GLUE task's train.tsv and dev.tsv (MNLI: dev_matched.tsv, dev_mismatched.tsv; squad: "
             "train-v1.1.json and dev-v1.1.json, or train-v2.0.json and dev-v2.0.json)"),
      option(
          "train_file", &TrainOptions::train_file, data,
          "custom training data: .csv, .tsv, .json/.jsonl (text) or pre-tokenized .jsonl (input_ids); with "
          "--task_name squad a SQuAD JSON file"),
      option("validation_file", &TrainOptions::validation_file, data, "evaluation data, same forms"),
      option("test_file", &TrainOptions::test_file, data, "--do_predict's data, same forms; labels optional"),
      option(
          "max_seq_length", &TrainOptions::max_seq_length, data,
          "longest sequence after tokenization; longer pairs are truncated longest-first, squad contexts cut "
          "into windows (default 128; 384 for squad)",
          at_least(3)),
      option(
          "padding", &TrainOptions::padding, data,
          "batch layout: none (default: rows packed end to end, no token is padding), longest (pad to the "
          "batch's longest row) or max_length (pad to max_seq_length); the same results, none the fastest"),
      option("pad_to_max_length", &TrainOptions::pad_to_max_length, data,
             "run_glue's flag, when given: true pads to max_seq_length, false to the batch's longest (as "
             "--padding max_length / longest)"),
      option("max_train_samples", &TrainOptions::max_train_samples, data, "use the first N training examples",
             at_least_one),
      option("max_eval_samples", &TrainOptions::max_eval_samples, data, "use the first N evaluation examples",
             at_least_one),
      option("max_predict_samples", &TrainOptions::max_predict_samples, data,
             "use the first N examples of --do_predict's data", at_least_one),
      option("doc_stride", &TrainOptions::doc_stride, data,
             "squad: tokens shared by consecutive windows of a context longer than max_seq_length allows",
             non_negative),
      option("n_best_size", &TrainOptions::n_best_size, data,
             "squad: start and end candidates per window when picking the answer", at_least_one),
      option("max_answer_length", &TrainOptions::max_answer_length, data, "squad: longest answer, in tokens",
             at_least_one),
      option("version_2_with_negative", &TrainOptions::version_2_with_negative, data,
             "squad: SQuAD 2.0 files, where some questions have no answer (scored with squad_v2's metric)"),
      option("null_score_diff_threshold", &TrainOptions::null_score_diff_threshold, data,
             "squad with version_2_with_negative: answer \"\" when the null score beats the best span's by more "
             "than this"),
      option("text_column_name", &TrainOptions::text_column_name, data,
             "ner/pos/chunk JSON Lines: the column of word lists (default tokens)"),
      option("label_column_name", &TrainOptions::label_column_name, data,
             "ner/pos/chunk JSON Lines: the column of tag lists (default <task_name>_tags)"),
      option("label_all_tokens", &TrainOptions::label_all_tokens, data,
             "ner/pos/chunk: a word's later sub-tokens take its tag (B-X as I-X) instead of no loss"),
      option("label_names", &TrainOptions::label_names, data,
             "ner/pos/chunk: names of integer tags, comma-separated, tag i the i-th (e.g. O,B-PER,I-PER)"),
      option("return_entity_level_metrics", &TrainOptions::return_entity_level_metrics, data,
             "ner/pos/chunk: also report precision, recall, F1 and count per entity type"),
      option("mlm_probability", &TrainOptions::mlm_probability, data,
             "mlm: the share of tokens masked (of those: 80% the mask token, 10% a random token, 10% kept)"),
      option("whole_word_mask", &TrainOptions::whole_word_mask, data,
             "mlm: mask whole words (WordPiece ## continuations, or byte-level / SentencePiece word starts)"),
      option("line_by_line", &TrainOptions::line_by_line, data,
             "mlm: each non-blank line one example (truncated), instead of blocks of max_seq_length tokens"),
      option("validation_split_percentage", &TrainOptions::validation_split_percentage, data,
             "mlm: without a validation split or file, evaluate on this first percentage of train (and train on the rest)"),
      option("loss", &TrainOptions::loss, data,
             "sentence-embedding: MultipleNegativesRankingLoss (default), CachedMultipleNegativesRankingLoss, "
             "CoSENTLoss or AnglELoss; reranking: BinaryCrossEntropyLoss (default), CrossEntropyLoss, ListNetLoss "
             "or LambdaLoss (sentence-transformers' classes)"),
      option("lambda_weighting_scheme", &TrainOptions::lambda_weighting_scheme, data,
             "reranking: LambdaLoss's weighting scheme: ndcg_loss2pp (default), ndcg_loss2, lambda_rank, ndcg_loss1 "
             "or none"),
      option("pos_weight", &TrainOptions::pos_weight, data,
             "reranking: BinaryCrossEntropyLoss's weight of the positive pairs (default 1)"),
      option("pooling", &TrainOptions::pooling, data,
             "sentence-embedding: the Pooling module's mode: mean, cls, max or lasttoken (default: a sentence-transformers folder's, else mean)"),
      option("normalize", &TrainOptions::normalize, data,
             "sentence-embedding: a Normalize module after the pooling (unit-length embeddings); a sentence-transformers folder's Normalize is kept"),
      option("scale", &TrainOptions::scale, data,
             "sentence-embedding: the loss's scale on the similarities (20; 1 / temperature); reranking: "
             "MultipleNegativesRankingLoss's on the sigmoid scores (10)",
             positive),
      option("num_negatives", &TrainOptions::num_negatives, data,
             "reranking: MultipleNegativesRankingLoss's in-batch negatives per query, drawn from the batch's other "
             "rows' documents (4)",
             at_least_one),
      option("gather_across_devices", &TrainOptions::gather_across_devices, data,
             "sentence-embedding: every worker's positives and negatives are every anchor's in-batch "
             "negatives (P workers train what 1 worker trains on the global batch)"),
      option("matryoshka_dims", &TrainOptions::matryoshka_dims, data,
             "sentence-embedding: MatryoshkaLoss around the loss, over these leading dimensions "
             "(comma-separated, e.g. 768,512,256,128,64)"),
      option("matryoshka_weights", &TrainOptions::matryoshka_weights, data,
             "sentence-embedding: the weight of each of --matryoshka_dims (comma-separated; default 1 each)"),
      option("mini_batch_size", &TrainOptions::mini_batch_size, data,
             "sentence-embedding: CachedMultipleNegativesRankingLoss's chunk of rows per pass", at_least_one),
      option("batch_sampler", &TrainOptions::batch_sampler, data,
             "sentence-embedding: batch_sampler (default) or no_duplicates (no text twice in a batch)"),
      option("eval_name", &TrainOptions::eval_name, data,
             "sentence-embedding: the evaluator's name in the metrics (default: the validation file's stem)"),
      option("prompts", &TrainOptions::prompts, data,
             "sentence-embedding: sentence-transformers' prompts: one prefix for every text column "
             "(\"query: \"), or a JSON object of column -> prefix ({\"anchor\": \"query: \", \"positive\": "
             "\"passage: \"})"),
      option("ir_eval_dir", &TrainOptions::ir_eval_dir, data,
             "sentence-embedding: a BEIR folder (corpus.jsonl, queries.jsonl, qrels/dev.tsv), or a NanoBEIR-style "
             "Hub dataset id in the local cache (configs corpus, queries, qrels), ranked at every evaluation as "
             "InformationRetrievalEvaluator does (cosine accuracy@k, ndcg@10, mrr@10, map@100, ...)"),
      option("ir_eval_name", &TrainOptions::ir_eval_name, data,
             "sentence-embedding: the retrieval evaluator's name in the metrics (default: the folder's or "
             "dataset's name)"),
      option("ir_query_prompt", &TrainOptions::ir_query_prompt, data,
             "sentence-embedding: the retrieval evaluation's prefix before each query (its query_prompt)"),
      option("ir_corpus_prompt", &TrainOptions::ir_corpus_prompt, data,
             "sentence-embedding: the retrieval evaluation's prefix before each document (its corpus_prompt)"),
      option("preprocessing_num_workers", &TrainOptions::preprocessing_num_workers, data,
             "accepted for run_mlm/run_swag commands; tokenization already uses every core"),

      option("output_dir", &TrainOptions::output_dir, run,
             "where the model, metrics.jsonl and checkpoints go (required)"),
      option("overwrite_output_dir", &TrainOptions::overwrite_output_dir, run,
             "train even if output_dir holds another run (its checkpoints are removed)"),
      option("do_train", &TrainOptions::do_train, run, "train"),
      option("do_eval", &TrainOptions::do_eval, run, "evaluate on the validation set"),
      option("do_predict", &TrainOptions::do_predict, run,
             "label --test_file with the model after training (ner/pos/chunk: predictions.txt)"),
      option("resume_from_checkpoint", &TrainOptions::resume_from_checkpoint, run,
             "continue from this checkpoint folder (output_dir/checkpoint-N)"),
      option("max_restarts", &TrainOptions::max_restarts, run,
             "when a worker fails, stop the job and start it again from its last checkpoint, up to N times "
             "(torchrun's); 0: the job fails",
             between(0, 1000)),
      option("dry_run", &TrainOptions::dry_run, run,
             "print the resolved configuration, data sizes and step counts, then stop"),

      option("num_train_epochs", &TrainOptions::num_train_epochs, optim, "epochs (may be fractional)",
             positive),
      option("max_steps", &TrainOptions::max_steps, optim,
             "optimizer steps; overrides num_train_epochs when > 0"),
      option("per_device_train_batch_size", &TrainOptions::per_device_train_batch_size, optim,
             "examples per worker per micro-batch", between(1, kMaxBatchCount)),
      option("per_device_eval_batch_size", &TrainOptions::per_device_eval_batch_size, optim,
             "examples per worker per evaluation batch", between(1, kMaxBatchCount)),
      option("gradient_accumulation_steps", &TrainOptions::gradient_accumulation_steps, optim,
             "micro-batches per optimizer step", between(1, kMaxBatchCount)),
      option("learning_rate", &TrainOptions::learning_rate, optim, "peak learning rate of AdamW", positive),
      option("lr_scheduler_type", &TrainOptions::lr_scheduler_type, optim,
             "linear, cosine, cosine_with_restarts, polynomial, constant, constant_with_warmup, inverse_sqrt or "
             "cosine_with_min_lr (Hugging Face's formulas)"),
      option("lr_scheduler_kwargs", &TrainOptions::lr_scheduler_kwargs, optim,
             "the schedule's extra arguments as a JSON object: cosine, cosine_with_restarts num_cycles; "
             "polynomial lr_end, power; inverse_sqrt timescale; cosine_with_min_lr num_cycles and min_lr or "
             "min_lr_rate (e.g. '{\"num_cycles\": 2}')"),
      option("warmup_ratio", &TrainOptions::warmup_ratio, optim, "fraction of the steps spent warming up",
             probability),
      option("warmup_steps", &TrainOptions::warmup_steps, optim,
             "warm-up steps; below 1, a fraction of the steps (transformers 5: ceil(total steps x it)); overrides "
             "warmup_ratio when > 0", non_negative),
      option("weight_decay", &TrainOptions::weight_decay, optim,
             "AdamW weight decay (not applied to biases and LayerNorm weights)", non_negative),
      option("adam_beta1", &TrainOptions::adam_beta1, optim, "AdamW beta1", probability),
      option("adam_beta2", &TrainOptions::adam_beta2, optim, "AdamW beta2", probability),
      option("adam_epsilon", &TrainOptions::adam_epsilon, optim, "AdamW epsilon", positive),
      option("max_grad_norm", &TrainOptions::max_grad_norm, optim,
             "clip the global gradient norm; 0 disables", non_negative),
      option("seed", &TrainOptions::seed, optim, "seed of initialisation, shuffling and dropout",
             non_negative),
      option("shuffle", &TrainOptions::shuffle, optim, "shuffle the training data each epoch"),
      option("group_by_length", &TrainOptions::group_by_length, optim,
             "batch rows of similar length together (Hugging Face's LengthGroupedSampler: mega-batches of 50 "
             "batches sorted by length, longest first), still shuffled per epoch"),
      option("balance_tokens", &TrainOptions::balance_tokens, optim,
             "with several workers: deal each step's rows so that every worker gets about the same number of "
             "tokens (the longest rows first, each to the lightest worker); the same rows, the same results "
             "(default true; false deals as DistributedSampler does)"),

      steps_option("logging_steps", &TrainOptions::logging_steps, &TrainOptions::logging_steps_ratio, log,
                   "log loss and learning rate to metrics.jsonl every N steps (below 1: that ratio of the total)"),
      steps_option("eval_steps", &TrainOptions::eval_steps, &TrainOptions::eval_steps_ratio, log,
                   "also evaluate every N steps (below 1: that ratio of the total); 0: only at the end"),
      steps_option("save_steps", &TrainOptions::save_steps, &TrainOptions::save_steps_ratio, log,
                   "save a checkpoint every N steps (below 1: that ratio of the total); 0: never"),
      option("eval_strategy", &TrainOptions::eval_strategy, log,
             "no, steps (every eval_steps, default logging_steps) or epoch; steps and epoch turn on do_eval"),
      option("evaluation_strategy", &TrainOptions::eval_strategy, log, "the older name of eval_strategy"),
      option("save_strategy", &TrainOptions::save_strategy, log, "no, steps (every save_steps; default) or epoch"),
      option("logging_strategy", &TrainOptions::logging_strategy, log, "no, steps (every logging_steps; default) or epoch"),
      option("load_best_model_at_end", &TrainOptions::load_best_model_at_end, log,
             "end with the weights of the checkpoint that evaluated best (save and eval strategies must match)"),
      option("metric_for_best_model", &TrainOptions::metric_for_best_model, log,
             "the evaluation metric that picks the best checkpoint (default: the task's first: accuracy, f1, ...)"),
      option("greater_is_better", &TrainOptions::greater_is_better, log,
             "whether a higher metric_for_best_model is better (default true; false for a loss)"),
      option("early_stopping_patience", &TrainOptions::early_stopping_patience, log,
             "stop after this many evaluations without improvement (EarlyStoppingCallback); 0: never",
             non_negative),
      option("early_stopping_threshold", &TrainOptions::early_stopping_threshold, log,
             "how much the metric must improve to count as an improvement", non_negative),
      option("save_total_limit", &TrainOptions::save_total_limit, log,
             "keep at most N checkpoints, removing the oldest", at_least_one),
      option("disable_tqdm", &TrainOptions::disable_tqdm, log, "no live progress line, even on a terminal"),
      option("report_to", &TrainOptions::report_to, log,
             "comma-separated: none (no report.html), tensorboard or all (also TensorBoard event files under "
             "output_dir/runs/); other integrations (wandb, mlflow, ...) are not called"),
      option("logging_dir", &TrainOptions::logging_dir, log,
             "where --report_to tensorboard writes its event files (default: output_dir/runs/<date>_<host>, as "
             "Trainer's)"),

      option("threads", &TrainOptions::threads, compute, "compute threads per worker (default: its cores)",
             between(1, topo::kMaxThreadsPerWorker)),
      option("shard_optimizer", &TrainOptions::shard_optimizer, compute,
             "reduce-scatter the gradients; each worker updates and keeps AdamW state for its 1/P of the "
             "parameters, then the parameters are all-gathered"),
      option(
          "bf16", &TrainOptions::bf16, compute,
          "bf16 mixed precision (torch.autocast): the encoder's GEMMs in bf16, accumulation, normalisations, "
          "loss, master weights and AdamW in fp32. true needs AVX512-BF16 or AMX; auto: bf16 where the CPU "
          "has it, else fp32"),
      option("ddp_bf16_grads", &TrainOptions::ddp_bf16_grads, compute,
             "the workers exchange bf16 gradients (half the bytes), summed in fp32 and rounded once"),
      option("ddp_timeout", &TrainOptions::ddp_timeout, compute,
             "seconds a worker may show no sign of life (stopped, stuck in I/O, swapped out) before the job "
             "stops naming it; a worker that is busy (saving, evaluating) is never cut off; raise it to keep "
             "a worker stopped in a debugger (default 30; between hosts, where busy and stuck look alike, a wait "
             "gives up after this when given, else after 1800, torch.distributed's)",
             between(1, 7 * 24 * 3600)),
  };
}

}  // namespace

const std::vector<OptionSpec>& train_option_table() {
  static const std::vector<OptionSpec> table = make_table();
  return table;
}

const OptionSpec* find_train_option(std::string_view name) {
  const auto& table = train_option_table();
  const auto it =
      std::find_if(table.begin(), table.end(), [&](const OptionSpec& s) { return s.name == name; });
  return it == table.end() ? nullptr : &*it;
}

std::string train_options_to_toml(const train::TrainOptions& options) {
  std::string out;
  std::string group;
  for (const OptionSpec& spec : train_option_table()) {
    const std::optional<std::string> value = spec.show(options);
    if (!value) continue;
    if (spec.group != group) {
      out += fmt::format("{}# {}\n", out.empty() ? "" : "\n", spec.group);
      group = spec.group;
    }
    out += fmt::format("{} = {}\n", spec.name, *value);
  }
  return out;
}

nlohmann::json train_option_values(const train::TrainOptions& options) {
  const train::TrainOptions defaults;
  const auto values = [](const train::TrainOptions& of) {
    nlohmann::json out = nlohmann::json::object();
    for (const OptionSpec& spec : train_option_table()) {
      std::optional<std::string> shown = spec.show(of);
      if (!shown) continue;
      if (shown->size() >= 2 && shown->front() == '"') {
        try {  // a TOML string: its text, unescaped
          *shown = toml::parse("v = " + *shown)["v"].value_or(*shown);
        } catch (const toml::parse_error&) {
        }
      }
      out[spec.name] = *shown;
    }
    return out;
  };
  return {{"options", values(options)}, {"defaults", values(defaults)}};
}

std::vector<std::string> report_to_notes(const train::TrainOptions& options) {
  std::vector<std::string> notes;
  for (std::size_t begin = 0; begin < options.report_to.size();) {
    const std::size_t comma = std::min(options.report_to.find(',', begin), options.report_to.size());
    std::string name = options.report_to.substr(begin, comma - begin);
    name.erase(0, name.find_first_not_of(' '));
    name.erase(name.find_last_not_of(' ') + 1);
    if (!name.empty() && name != "none" && name != "all" && name != "tensorboard") {
      notes.push_back(fmt::format("--report_to {} has no effect here: shmtrain calls no integration; it writes "
                                  "output_dir/metrics.jsonl, report.html and, with --report_to tensorboard, "
                                  "TensorBoard event files",
                                  name));
    }
    begin = comma + 1;
  }
  return notes;
}

}  // namespace shmtrain::cli
