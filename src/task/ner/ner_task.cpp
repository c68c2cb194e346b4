#include "shmtrain/task/ner/ner_task.hpp"

#include <algorithm>
#include <map>
#include <mutex>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include "shmtrain/common/error.hpp"
#include "shmtrain/io/atomic_file.hpp"
#include "shmtrain/task/ner/seqeval.hpp"

namespace shmtrain::task {
namespace {

namespace fs = std::filesystem;

int tag_column_of(const std::string& task) {
  if (task == "pos") return 1;    // CoNLL-2003's second field
  if (task == "chunk") return 2;  // its third
  return -1;                      // ner: the last
}

// run_ner's get_label_list: the sorted unique tags (integers sorted as numbers).
std::vector<std::string> label_list(const TaggedFile& file) {
  std::set<std::string> unique;
  for (const TaggedSentence& s : file.sentences) unique.insert(s.tags.begin(), s.tags.end());
  std::vector<std::string> out(unique.begin(), unique.end());
  if (file.integer_tags) {
    std::sort(out.begin(), out.end(), [](const std::string& a, const std::string& b) { return std::stoll(a) < std::stoll(b); });
  }
  return out;
}

// Tokenizes every sentence and aligns its tags to the tokens (file order kept; the first bad
// sentence in file order is the error). `word_ids` (when not null) gets each sentence's
// tokens' word indices.
data::Dataset tokenize(const TaggedFile& file, const std::vector<std::string>& labels, const text::Tokenizer& tokenizer,
                       const TaskOptions& options, std::vector<std::vector<std::int32_t>>* word_ids_out = nullptr) {
  std::map<std::string, std::int32_t> ids;
  for (std::size_t i = 0; i < labels.size(); ++i) ids.emplace(labels[i], static_cast<std::int32_t>(i));
  // label_all_tokens: a word's later sub-tokens take I-X for its B-X, when I-X is a label.
  std::vector<std::int32_t> inside(labels.size());
  for (std::size_t i = 0; i < labels.size(); ++i) {
    inside[i] = static_cast<std::int32_t>(i);
    if (labels[i].starts_with("B-")) {
      const auto it = ids.find("I-" + labels[i].substr(2));
      if (it != ids.end()) inside[i] = it->second;
    }
  }
  data::Dataset dataset;
  dataset.source = file.source;
  dataset.examples.resize(file.sentences.size());
  if (word_ids_out != nullptr) word_ids_out->assign(file.sentences.size(), {});
  std::mutex mutex;
  std::size_t first_bad = file.sentences.size();
  std::string message;
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, file.sentences.size(), 64), [&](const auto& range) {
    text::Encoding encoding;
    std::vector<std::int32_t> word_ids;
    for (std::size_t i = range.begin(); i != range.end(); ++i) {
      const TaggedSentence& s = file.sentences[i];
      try {
        std::vector<std::int32_t> word_labels;
        for (std::size_t w = 0; w < s.tags.size(); ++w) {
          const auto it = ids.find(s.tags[w]);
          if (it == ids.end()) {
            fail_input("word {} '{}' has the tag '{}', which is not among the {} labels ({})", w + 1, s.words[w], s.tags[w],
                       labels.size(), fmt::join(labels, ", "));
          }
          word_labels.push_back(it->second);
        }
        tokenizer.encode_words(s.words, options.max_seq_length, encoding, word_ids);
        if (word_ids_out != nullptr) (*word_ids_out)[i] = word_ids;
        data::Example& e = dataset.examples[i];
        e.input_ids = encoding.input_ids;
        e.token_type_ids = encoding.token_type_ids;
        e.attention_mask = encoding.attention_mask;
        e.token_labels.assign(e.input_ids.size(), data::kIgnoredLabel);
        for (std::size_t t = 0; t < word_ids.size(); ++t) {
          const std::int32_t w = word_ids[t];
          if (w < 0 || word_labels.empty()) continue;
          const bool first = t == 0 || word_ids[t - 1] != w;
          const std::int32_t label = word_labels[static_cast<std::size_t>(w)];
          if (first) e.token_labels[t] = label;
          else if (options.label_all_tokens) e.token_labels[t] = inside[static_cast<std::size_t>(label)];
        }
      } catch (const InputError& error) {
        const std::lock_guard lock(mutex);
        if (i < first_bad) {
          first_bad = i;
          message = fmt::format("{}:{}: {}", file.source, s.line, error.what());
        }
        return;
      }
    }
  });
  if (first_bad < file.sentences.size()) throw InputError(message);
  return dataset;
}

// Integer tags named by --label_names: tag i becomes names[i].
void name_integer_tags(TaggedFile& file, const std::vector<std::string>& names) {
  if (!file.integer_tags || names.empty()) return;
  for (TaggedSentence& s : file.sentences) {
    for (std::size_t w = 0; w < s.tags.size(); ++w) {
      const long long tag = std::stoll(s.tags[w]);
      if (tag < 0 || static_cast<std::size_t>(tag) >= names.size()) {
        fail_input("{}:{}: tag {} has no name among the {} --label_names", file.source, s.line, tag, names.size());
      }
      s.tags[w] = names[static_cast<std::size_t>(tag)];
    }
  }
  file.integer_tags = false;
}

void keep_first(TaggedFile& file, const std::optional<std::size_t>& n) {
  if (n && file.sentences.size() > *n) file.sentences.resize(*n);
}

}  // namespace

std::unique_ptr<Task> NerTask::load(const TaskOptions& options, const text::Tokenizer& tokenizer, bool need_train,
                                    bool need_eval, bool need_predict) {
  if (!options.data_dir.empty()) {
    fail_input("--task_name {} reads --train_file and --validation_file (CoNLL text or JSON Lines), not --data_dir",
               options.task_name);
  }
  const DatasetSplits* dataset = options.dataset ? &*options.dataset : nullptr;
  if (need_train && options.train_file.empty() && dataset == nullptr) {
    fail_input("--task_name {} needs --train_file (or --dataset_name) to train", options.task_name);
  }
  if (need_eval && options.validation_file.empty() && dataset == nullptr) {
    fail_input("evaluation needs --validation_file (or run without evaluation)");
  }
  // A split of --dataset_name, or else the file.
  const auto read_split = [&](const std::vector<std::filesystem::path>* shards, const std::filesystem::path& file,
                              const TaggedFileOptions& how) {
    return shards != nullptr && !shards->empty() ? read_tagged_split(*shards, how) : read_tagged_file(file, how);
  };
  // run_ner.py names integer tags by the dataset's ClassLabel when it has one.
  std::vector<std::string> label_names = options.label_names;
  TaggedFileOptions read;
  read.text_column = options.text_column_name.empty() ? "tokens" : options.text_column_name;
  read.label_column = options.label_column_name.empty() ? options.task_name + "_tags" : options.label_column_name;
  read.tag_column = tag_column_of(options.task_name);

  auto task = std::make_unique<NerTask>();
  task->name_ = options.task_name;
  task->entity_level_ = options.return_entity_level_metrics;
  std::optional<TaggedFile> train;
  if (need_train) {
    train = read_split(dataset ? &dataset->train : nullptr, options.train_file, read);
    keep_first(*train, options.max_train_samples);
    if (label_names.empty()) label_names = train->class_names;
    const bool named = train->integer_tags && !label_names.empty();
    name_integer_tags(*train, label_names);
    // Named integer tags keep their ids (ClassLabel's order); strings are sorted, as run_ner does.
    task->labels_.names = named ? label_names : label_list(*train);
  } else {
    task->labels_.names = options.model_labels;
  }
  if (task->labels_.names.empty()) fail_input("no labels: the training file has no tags");
  if (train) task->train_ = tokenize(*train, task->labels_.names, tokenizer, options);
  if (need_eval) {
    TaggedFile validation = read_split(dataset ? &dataset->validation : nullptr, options.validation_file, read);
    keep_first(validation, options.max_eval_samples);
    if (label_names.empty()) label_names = validation.class_names;
    // Integer tags: named by --label_names (or the ClassLabel), or without training by the model's id2label.
    name_integer_tags(validation, !label_names.empty() ? label_names
                                  : need_train                 ? std::vector<std::string>{}
                                                               : options.model_labels);
    task->validation_ = tokenize(validation, task->labels_.names, tokenizer, options);
  }
  if (need_predict) {
    const std::vector<std::filesystem::path>* test_shards = dataset ? &dataset->test : nullptr;
    if (options.test_file.empty() && (test_shards == nullptr || test_shards->empty())) {
      fail_input("--do_predict needs --test_file");
    }
    TaggedFileOptions test_read = read;
    test_read.tags_required = false;
    TaggedFile test = read_split(test_shards, options.test_file, test_read);
    keep_first(test, options.max_predict_samples);
    // Tagged, the file is scored as run_ner's predict step scores it: every sentence needs its
    // tags, among the model's labels.
    task->test_labelled_ = test.has_tags;
    for (TaggedSentence& s : test.sentences) {
      task->test_words_.push_back(s.words.size());
      if (test.has_tags && s.tags.empty()) {
        fail_input("{}:{}: a sentence without tags in a test file whose other sentences have them: tag every "
                   "sentence (to be scored) or none",
                   test.source, s.line);
      }
    }
    if (test.has_tags) {
      if (label_names.empty()) label_names = test.class_names;
      name_integer_tags(test, !label_names.empty() ? label_names
                              : need_train         ? std::vector<std::string>{}
                                                   : options.model_labels);
    }
    task->test_ = tokenize(test, task->labels_.names, tokenizer, options, &task->test_words_of_);
  }
  return task;
}

Prediction NerTask::predict(const ModelOutputs& outputs, const fs::path& output_dir) const {
  const auto labels = static_cast<std::int64_t>(labels_.names.size());
  std::string text;
  for (std::size_t i = 0; i < test_words_.size(); ++i) {
    std::vector<std::string> tags(test_words_[i], "O");
    const std::vector<std::int32_t>& words = test_words_of_[i];
    const float* row = outputs.values.data() + static_cast<std::int64_t>(i) * outputs.width;
    for (std::size_t t = 0; t < words.size(); ++t) {
      if (words[t] < 0 || (t > 0 && words[t - 1] == words[t])) continue;  // a word's first token speaks for it
      const float* z = row + static_cast<std::int64_t>(t) * labels;
      tags[static_cast<std::size_t>(words[t])] = labels_.names[static_cast<std::size_t>(std::max_element(z, z + labels) - z)];
    }
    text += fmt::format("{}\n", fmt::join(tags, " "));
  }
  const fs::path file = output_dir / "predictions.txt";
  if (!output_dir.empty()) io::write_file_atomically(file, text);
  if (!test_labelled_) return {.file = file, .metrics = {}};
  const TokenScores scores = score_rows(*test_, outputs);
  Metrics metrics = {{"loss", scores.loss}};
  metrics.insert(metrics.end(), scores.metrics.begin(), scores.metrics.end());
  return {.file = file, .metrics = std::move(metrics)};
}

std::string NerTask::describe_labels() const {
  return fmt::format("{} tags ({})", labels_.names.size(), fmt::join(labels_.names, ", "));
}

Metrics NerTask::score(const ModelOutputs& outputs, const fs::path& /*output_dir*/) const {
  return score_rows(*validation_, outputs).metrics;
}

NerTask::TokenScores NerTask::score_rows(const data::Dataset& dataset, const ModelOutputs& outputs) const {
  const auto labels = static_cast<std::int64_t>(labels_.names.size());
  std::vector<TagSequence> gold;
  std::vector<TagSequence> predicted;
  double loss_sum = 0;
  std::size_t labelled = 0;
  for (std::size_t i = 0; i < dataset.examples.size(); ++i) {
    const data::Example& e = dataset.examples[i];
    const float* row = outputs.values.data() + static_cast<std::int64_t>(i) * outputs.width;
    TagSequence g, p;
    for (std::size_t t = 0; t < e.token_labels.size(); ++t) {
      if (e.token_labels[t] == data::kIgnoredLabel) continue;  // as run_ner's compute_metrics
      const float* z = row + static_cast<std::int64_t>(t) * labels;
      const auto best = static_cast<std::size_t>(std::max_element(z, z + labels) - z);
      loss_sum += cross_entropy(std::span(z, static_cast<std::size_t>(labels)), e.token_labels[t]);
      ++labelled;
      g.push_back(labels_.names[static_cast<std::size_t>(e.token_labels[t])]);
      p.push_back(labels_.names[best]);
    }
    gold.push_back(std::move(g));
    predicted.push_back(std::move(p));
  }
  const SeqevalScores s = seqeval_scores(gold, predicted);
  Metrics out;
  if (entity_level_) {
    for (const auto& [type, e] : s.by_type) {
      out.emplace_back(type + "_precision", e.precision);
      out.emplace_back(type + "_recall", e.recall);
      out.emplace_back(type + "_f1", e.f1);
      out.emplace_back(type + "_number", static_cast<double>(e.number));
    }
  }
  out.emplace_back("precision", s.overall.precision);
  out.emplace_back("recall", s.overall.recall);
  out.emplace_back("f1", s.overall.f1);
  out.emplace_back("accuracy", s.accuracy);
  return {.metrics = std::move(out), .loss = labelled > 0 ? loss_sum / static_cast<double>(labelled) : 0.0};
}

}  // namespace shmtrain::task
