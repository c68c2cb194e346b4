#include "shmtrain/train/run_inputs.hpp"

#include <charconv>
#include <cmath>
#include <map>
#include <system_error>

#include <nlohmann/json.hpp>

#include "shmtrain/common/error.hpp"
#include "shmtrain/io/json_error.hpp"
#include "shmtrain/model/hf_config.hpp"
#include "shmtrain/model/model_weights.hpp"
#include "shmtrain/model/sentence/embedding_loss.hpp"
#include "shmtrain/model/sentence/sentence_folder.hpp"
#include "shmtrain/train/hub_sources.hpp"

namespace shmtrain::train {
namespace {

namespace fs = std::filesystem;

bool is_file(const fs::path& path) {
  std::error_code error;
  return fs::is_regular_file(path, error);
}

bool is_folder(const fs::path& path) {
  std::error_code error;
  return fs::is_directory(path, error);
}

// The model folder's config.json and model.safetensors, or the config_name file.
void locate_model(const TrainOptions& options, fs::path& config, fs::path& weights) {
  if (!options.model_name_or_path.empty()) {
    const fs::path& folder = options.model_name_or_path;
    if (!is_folder(folder)) {
      fail_input("model_name_or_path {}: no such folder (pass a Hugging Face model folder with config.json, "
                 "model.safetensors and vocab.txt)",
                 folder.string());
    }
    config = folder / "config.json";
    if (!is_file(config)) fail_input("{}: config.json not found in the model folder", folder.string());
    weights = model::find_model_weights(folder);
    if (weights.empty()) {
      fail_input("{}: no weights in the model folder (model.safetensors or pytorch_model.bin)", folder.string());
    }
    return;
  }
  config = is_folder(options.config_name) ? options.config_name / "config.json" : options.config_name;
  if (!is_file(config)) fail_input("config_name {}: file not found (pass a config.json)", config.string());
}

// A comma-separated list of numbers (--matryoshka_dims, --matryoshka_weights).
template <typename T>
std::vector<T> number_list(const std::string& text, const char* flag) {
  std::vector<T> out;
  for (std::size_t begin = 0; begin < text.size();) {
    const std::size_t comma = std::min(text.find(',', begin), text.size());
    const std::string item = text.substr(begin, comma - begin);
    T value{};
    const auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), value);
    if (item.empty() || ec != std::errc() || end != item.data() + item.size()) {
      fail_input("{}: '{}' is not a number (give a comma-separated list, e.g. 768,512,256)", flag, item);
    }
    out.push_back(value);
    begin = comma + 1;
  }
  return out;
}

// The sentence-embedding run's modules and loss from its flags, checked against the model.
// --prompts: one prefix for every column, or a JSON object of column -> prefix.
std::map<std::string, std::string> parse_prompts(const std::string& text) {
  std::map<std::string, std::string> prompts;
  if (text.empty()) return prompts;
  if (text.front() != '{') {
    prompts[""] = text;
    return prompts;
  }
  nlohmann::json object;
  try {
    object = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    fail_input("--prompts: not a JSON object of column -> prefix: {}", io::json_error_text(e.what()));
  }
  if (!object.is_object()) fail_input("--prompts: not a JSON object of column -> prefix");
  for (const auto& [column, prompt] : object.items()) {
    if (!prompt.is_string()) fail_input("--prompts: the prompt of column '{}' must be a string", column);
    if (column.empty()) fail_input("--prompts: a column name is empty");
    prompts[column] = prompt.get<std::string>();
  }
  return prompts;
}

// A sentence-transformers folder as the starting point gives its Pooling and Normalize.
model::sentence::SentenceOptions sentence_options(const TrainOptions& options, const model::BertConfig& config,
                                                  const fs::path& model_folder, std::int64_t max_seq_length) {
  namespace st = model::sentence;
  const std::optional<st::SentenceFolder> folder = st::read_sentence_transformers_folder(model_folder);
  st::SentenceOptions s;
  s.pooling = !options.pooling.empty() ? st::parse_pooling_mode(options.pooling, "--pooling")
              : folder                 ? folder->pooling
                                       : st::PoolingMode::kMean;
  s.normalize = options.normalize || (folder && folder->normalize);
  s.loss = st::parse_sentence_loss(options.loss.empty() ? "MultipleNegativesRankingLoss" : options.loss);
  s.scale = static_cast<float>(options.scale.value_or(20.0));
  s.gather_across_devices = options.gather_across_devices;
  s.mini_batch_size = options.mini_batch_size;
  s.max_seq_length = max_seq_length;
  s.do_lower_case = options.do_lower_case.value_or(folder && folder->do_lower_case.value_or(false));
  if (!options.matryoshka_dims.empty()) {
    s.matryoshka_dims = number_list<std::int64_t>(options.matryoshka_dims, "--matryoshka_dims");
    s.matryoshka_weights = number_list<double>(options.matryoshka_weights, "--matryoshka_weights");
    st::check_matryoshka_dims(s.matryoshka_dims, s.matryoshka_weights, config.hidden_size);
  } else if (!options.matryoshka_weights.empty()) {
    fail_input("--matryoshka_weights needs --matryoshka_dims");
  }
  if (!st::scores_pairs(s.loss) && options.do_train && options.per_device_train_batch_size < 2 &&
      !s.gather_across_devices) {
    fail_input("--loss {}: --per_device_train_batch_size {} leaves an anchor no in-batch negative; give 2 or more",
               st::sentence_loss_name(s.loss), options.per_device_train_batch_size);
  }
  if (options.batch_sampler != "batch_sampler" && options.batch_sampler != "no_duplicates") {
    fail_input("--batch_sampler {}: batch_sampler (the default) or no_duplicates", options.batch_sampler);
  }
  // --balance_tokens (on by default) deals a global batch's rows again: no_duplicates' batches
  // are kept as the sampler makes them instead.
  if (options.batch_sampler == "no_duplicates" && options.group_by_length) {
    fail_input("--batch_sampler no_duplicates makes its own batches; it does not combine with --group_by_length");
  }
  return s;
}

// The run's labels replace config.json's, as run_glue.py sets num_labels, label2id and
// id2label from the data. run_qa.py keeps the config's (qa_outputs has num_labels = 2 outputs).
void apply_labels(const task::Task& task, model::BertConfig& config) {
  const data::LabelSet& labels = task.labels();
  // run_mlm and run_swag leave the config's labels as the checkpoint has them.
  if (task.target() == data::Target::kMaskedTokens || task.target() == data::Target::kChoice ||
      task.target() == data::Target::kTexts) {
    return;
  }
  if (task.target() == data::Target::kSpan) {
    config.problem_type.clear();
  } else if (labels.regression) {
    config.id2label = {"LABEL_0"};
    config.problem_type = "regression";
  } else if (task.target() == data::Target::kTokens) {
    config.id2label = labels.names;  // run_ner writes the tag list; no problem_type
    config.problem_type.clear();
  } else {
    config.id2label = labels.names;
    config.problem_type = "single_label_classification";
  }
}

// Every token id and type must index the model's tables. Checked for the whole data set
// before anything is written, so a bad row stops the run before its output folder exists.
void check_token_ranges(const std::optional<data::Dataset>& dataset, const model::BertConfig& config,
                        const fs::path& config_path) {
  if (!dataset) return;
  for (std::size_t row = 0; row < dataset->examples.size(); ++row) {
    const data::Example& example = dataset->examples[row];
    for (const std::int32_t id : example.input_ids) {
      if (id < 0 || id >= config.vocab_size) {
        fail_input("{}: example {}: token id {} is outside the vocabulary (vocab_size {} in {})", dataset->source,
                   row + 1, id, config.vocab_size, config_path.string());
      }
    }
    if (!config.has_token_types()) continue;  // DistilBERT ignores them
    for (const std::int32_t type : example.token_type_ids) {
      if (type < 0 || type >= config.type_vocab_size) {
        fail_input("{}: example {}: token type {} is outside [0, {}) (type_vocab_size in {})", dataset->source,
                   row + 1, type, config.type_vocab_size, config_path.string());
      }
    }
  }
}

}  // namespace

RunInputs load_run_inputs(const TrainOptions& given) {
  given.batch_padding();  // conflicting padding options fail before anything is read
  const TrainOptions options = with_local_model_paths(given);
  std::optional<HubDataset> dataset = resolve_hub_dataset(options);
  fs::path config_path;
  fs::path weights;
  locate_model(options, config_path, weights);
  model::BertConfig config = model::read_hf_config(config_path);
  if (options.hidden_dropout_prob) config.hidden_dropout_prob = *options.hidden_dropout_prob;
  if (options.attention_probs_dropout_prob) config.attention_probs_dropout_prob = *options.attention_probs_dropout_prob;
  // run_glue's rule: a max_seq_length the model cannot take is lowered to what it can, with a warning.
  std::int64_t max_seq_length = options.seq_length();
  const bool script_length = !options.max_seq_length && (options.masked_lm() || options.multiple_choice() ||
                                                          (dataset && (dataset->task_name == "mlm" || dataset->task_name == "swag")));
  // run_mlm / run_swag without --max_seq_length: the tokenizer's model_max_length, at most 1,024.
  if (script_length) max_seq_length = std::min<std::int64_t>(1024, config.max_sequence_length());
  std::vector<std::string> notes;
  if (max_seq_length > config.max_sequence_length()) {
    notes.push_back(fmt::format(
        "warning: max_seq_length {} is larger than the {} positions the model takes (max_position_embeddings {} in {}); "
        "using max_seq_length {}",
        max_seq_length, config.max_sequence_length(), config.max_position_embeddings, config_path.string(),
        config.max_sequence_length()));
    max_seq_length = config.max_sequence_length();
  }

  if (options.overwrite_output_dir) {
    notes.push_back("note: --overwrite_output_dir is gone from transformers 5's Trainer (it writes into output_dir "
                    "as it is); shmtrain keeps it: the previous run's files in output_dir are removed first");
  }
  if (!options.logging_dir.empty()) {
    notes.push_back("note: --logging_dir is gone from transformers 5's Trainer (the TENSORBOARD_LOGGING_DIR variable "
                    "replaces it); shmtrain takes either");
  }
  const fs::path tokenizer_path = options.tokenizer_name.empty() ? options.model_name_or_path : options.tokenizer_name;
  // run_ner loads RoBERTa's tokenizer with add_prefix_space for its pre-split words.
  // A sentence-transformers folder whose sentence_bert_config.json says do_lower_case true
  // lowercases its texts before the tokenizer (false leaves them to the tokenizer's setting).
  std::optional<bool> lower = options.do_lower_case;
  if (!lower && options.task_name == "sentence-embedding") {
    const auto folder = model::sentence::read_sentence_transformers_folder(config_path.parent_path());
    if (folder && folder->do_lower_case == true) lower = true;
  }
  std::shared_ptr<const text::Tokenizer> tokenizer =
      text::load_tokenizer(tokenizer_path, lower, options.token_classification());
  if (static_cast<std::int64_t>(tokenizer->vocab_size()) > config.vocab_size) {
    fail_input("{}: the vocabulary has {} tokens but {} says vocab_size {}", tokenizer->source(),
               tokenizer->vocab_size(), config_path.string(), config.vocab_size);
  }
  if (tokenizer->pad_id() < 0) {
    fail_input("{}: the tokenizer has no padding token (<pad>, [PAD] or tokenizer_config.json's pad_token)",
               tokenizer->source());
  }
  // Padding must be the model's padding: RoBERTa counts positions from the ids, so a batch
  // padded with another id would move every position.
  if (tokenizer->pad_id() != config.pad_token_id) {
    fail_input("{}: the tokenizer pads with id {} but {} says pad_token_id {}; they must agree", tokenizer->source(),
               tokenizer->pad_id(), config_path.string(), config.pad_token_id);
  }

  task::TaskOptions data_options;
  data_options.task_name = dataset ? dataset->task_name : options.task_name;
  if (dataset) data_options.dataset = std::move(dataset->splits);
  data_options.data_dir = options.data_dir;
  data_options.train_file = options.train_file;
  data_options.validation_file = options.validation_file;
  data_options.test_file = options.test_file;
  data_options.max_seq_length = static_cast<std::size_t>(max_seq_length);
  data_options.doc_stride = static_cast<std::size_t>(options.doc_stride);
  if (options.max_train_samples) data_options.max_train_samples = static_cast<std::size_t>(*options.max_train_samples);
  if (options.max_eval_samples) data_options.max_eval_samples = static_cast<std::size_t>(*options.max_eval_samples);
  if (options.max_predict_samples) {
    data_options.max_predict_samples = static_cast<std::size_t>(*options.max_predict_samples);
  }
  data_options.n_best_size = options.n_best_size;
  data_options.max_answer_length = options.max_answer_length;
  data_options.version_2_with_negative = options.version_2_with_negative;
  data_options.null_score_diff_threshold = options.null_score_diff_threshold;
  data_options.text_column_name = options.text_column_name;
  data_options.label_column_name = options.label_column_name;
  data_options.label_all_tokens = options.label_all_tokens;
  data_options.return_entity_level_metrics = options.return_entity_level_metrics;
  data_options.model_labels = config.id2label;
  data_options.mlm_probability = options.mlm_probability;
  data_options.whole_word_mask = options.whole_word_mask;
  data_options.line_by_line = options.line_by_line;
  data_options.validation_split_percentage = options.validation_split_percentage;
  data_options.seed = static_cast<std::uint64_t>(options.seed);
  const bool sentence = data_options.task_name == "sentence-embedding";
  if (!sentence && options.batch_sampler != "batch_sampler") {
    fail_input("--batch_sampler {}: a sentence-embedding option (--task_name sentence-embedding)", options.batch_sampler);
  }
  if (sentence) {
    config.sentence = sentence_options(options, config, config_path.parent_path(), max_seq_length);
    data_options.scored_pairs = model::sentence::scores_pairs(config.sentence.loss);
    data_options.embedding_width = config.hidden_size;
    data_options.eval_name = options.eval_name;
    data_options.prompts = parse_prompts(options.prompts);
    data_options.ir_eval_dir = options.ir_eval_dir;
    data_options.ir_eval_hub = resolve_retrieval_hub(options);
    data_options.ir_query_prompt = options.ir_query_prompt;
    data_options.ir_corpus_prompt = options.ir_corpus_prompt;
    data_options.ir_eval_name = options.ir_eval_name;
  }
  if (data_options.task_name == "reranking") {
    const std::string loss = options.loss.empty() ? "BinaryCrossEntropyLoss" : options.loss;
    if (loss == "BinaryCrossEntropyLoss") {
      config.score_loss = model::BertConfig::ScoreLoss::kBinaryCrossEntropy;
    } else if (loss == "ListNetLoss") {
      config.score_loss = model::BertConfig::ScoreLoss::kListNet;
    } else if (loss == "LambdaLoss") {
      config.score_loss = model::BertConfig::ScoreLoss::kLambda;
      config.lambda_weighting =
          model::reranking::parse_lambda_weighting(options.lambda_weighting_scheme, "--lambda_weighting_scheme");
    } else if (loss == "MultipleNegativesRankingLoss") {
      config.score_loss = model::BertConfig::ScoreLoss::kMultipleNegatives;
      config.ranking_scale = static_cast<float>(options.scale.value_or(10.0));
      data_options.num_negatives = options.num_negatives;
    } else if (loss != "CrossEntropyLoss") {
      fail_input("--loss {}: the reranking task trains with BinaryCrossEntropyLoss (the default), CrossEntropyLoss, "
                 "MultipleNegativesRankingLoss, ListNetLoss or LambdaLoss",
                 options.loss);
    }
    if (!(options.pos_weight > 0.0) || !std::isfinite(options.pos_weight)) {
      fail_input("--pos_weight {}: the positives' weight must be a positive number", options.pos_weight);
    }
    config.pos_weight = static_cast<float>(options.pos_weight);
    config.cross_encoder = true;
    data_options.reranking_loss = loss;
    data_options.eval_name = options.eval_name;
  }
  for (std::size_t begin = 0; begin < options.label_names.size();) {
    const std::size_t comma = std::min(options.label_names.find(',', begin), options.label_names.size());
    data_options.label_names.push_back(options.label_names.substr(begin, comma - begin));
    begin = comma + 1;
  }
  std::shared_ptr<const task::Task> task =
      task::load_task(data_options, *tokenizer, options.do_train, options.do_eval, options.do_predict);

  // The head is the task's, whatever class the checkpoint was saved from, as run_glue.py and
  // run_qa.py load any checkpoint with AutoModelFor...; config.json records it when written.
  config.head = task->target() == data::Target::kTexts          ? model::ModelHead::kSentenceEmbedding
                : task->target() == data::Target::kSpan           ? model::ModelHead::kQuestionAnswering
                : task->target() == data::Target::kTokens       ? model::ModelHead::kTokenClassification
                : task->target() == data::Target::kMaskedTokens ? model::ModelHead::kMaskedLm
                : task->target() == data::Target::kChoice       ? model::ModelHead::kMultipleChoice
                                                                 : model::ModelHead::kSequenceClassification;
  config.architectures = {config.architecture()};
  check_token_ranges(task->train(), config, config_path);
  check_token_ranges(task->validation(), config, config_path);
  apply_labels(*task, config);
  config.validate(config_path.string());
  return RunInputs{std::move(config), std::move(weights), std::move(config_path), std::move(tokenizer),
                   std::move(task), max_seq_length, std::move(notes)};
}

}  // namespace shmtrain::train
