#include "reference_run.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <map>

#include <gtest/gtest.h>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "shmtrain/io/safetensors.hpp"

namespace shmtrain::testing {

ReferenceRun write_reference_run(const TempDir& dir, const std::string& fixture_name) {
  ReferenceRun run;
  const std::filesystem::path fixture = fixtures_dir() / fixture_name;
  const int vocab_size = nlohmann::json::parse(read_file(fixture / "config.json")).at("vocab_size");
  run.model = dir / "model";
  std::filesystem::create_directories(run.model);
  std::filesystem::copy_file(fixture / "config.json", run.model / "config.json");
  std::filesystem::copy_file(fixture / "model.safetensors", run.model / "model.safetensors");
  const std::string model_type = nlohmann::json::parse(read_file(fixture / "config.json")).value("model_type", "bert");
  if (model_type == "roberta" || model_type == "xlm-roberta") {
    // RoBERTa's layout as a tokenizer.json: <s> 0, <pad> 1, </s> 2, <unk> 3, fillers after.
    nlohmann::ordered_json vocab = nlohmann::ordered_json::object();
    const char* const specials[] = {"<s>", "<pad>", "</s>", "<unk>"};
    for (int id = 0; id < vocab_size; ++id) vocab[id < 4 ? specials[id] : fmt::format("w{}", id)] = id;
    nlohmann::ordered_json added = nlohmann::ordered_json::array();
    for (int id = 0; id < 4; ++id) added.push_back({{"id", id}, {"content", specials[id]}, {"special", true}});
    const nlohmann::ordered_json tokenizer = {
        {"version", "1.0"},
        {"added_tokens", added},
        {"normalizer", nullptr},
        {"pre_tokenizer", {{"type", "WhitespaceSplit"}}},
        {"post_processor", {{"type", "RobertaProcessing"}, {"sep", {"</s>", 2}}, {"cls", {"<s>", 0}}}},
        {"model", {{"type", "WordLevel"}, {"vocab", vocab}, {"unk_token", "<unk>"}}}};
    write_file(run.model / "tokenizer.json", tokenizer.dump(2));
  } else if (model_type == "modernbert" || model_type == "deberta-v2") {
    // ModernBERT's layout: the specials after the words ([UNK] [CLS] [SEP] [PAD] [MASK] at the
    // top, as in answerdotai/ModernBERT-base); DeBERTa's: [PAD] 0, [CLS] 1, [SEP] 2, [UNK] 3,
    // [MASK] last. Both with the template post-processor.
    const bool deberta = model_type == "deberta-v2";
    std::map<int, std::string> specials;
    if (deberta) {
      specials = {{0, "[PAD]"}, {1, "[CLS]"}, {2, "[SEP]"}, {3, "[UNK]"}, {vocab_size - 1, "[MASK]"}};
    } else {
      for (const char* token : {"[UNK]", "[CLS]", "[SEP]", "[PAD]", "[MASK]"}) {
        specials[vocab_size - 5 + static_cast<int>(specials.size())] = token;
      }
    }
    const int first_special = deberta ? 0 : vocab_size - 5;  // [CLS] and [SEP] follow the first
    nlohmann::ordered_json vocab = nlohmann::ordered_json::object();
    nlohmann::ordered_json added = nlohmann::ordered_json::array();
    for (int id = 0; id < vocab_size; ++id) {
      const auto special = specials.find(id);
      const std::string token = special == specials.end() ? fmt::format("w{}", id) : special->second;
      vocab[token] = id;
      if (special != specials.end()) {
        added.push_back({{"id", id}, {"content", token}, {"lstrip", token == "[MASK]" && !deberta}, {"special", true}});
      }
    }
    auto special = [](const char* token) { return nlohmann::ordered_json{{"SpecialToken", {{"id", token}, {"type_id", 0}}}}; };
    auto sequence = [](const char* id) { return nlohmann::ordered_json{{"Sequence", {{"id", id}, {"type_id", 0}}}}; };
    const nlohmann::ordered_json tokenizer = {
        {"version", "1.0"},
        {"added_tokens", added},
        {"normalizer", nullptr},
        {"pre_tokenizer", {{"type", "WhitespaceSplit"}}},
        {"post_processor",
         {{"type", "TemplateProcessing"},
          {"single", {special("[CLS]"), sequence("A"), special("[SEP]")}},
          {"pair", {special("[CLS]"), sequence("A"), special("[SEP]"), sequence("B"), special("[SEP]")}},
          {"special_tokens",
           {{"[CLS]", {{"id", "[CLS]"}, {"ids", {first_special + 1}}, {"tokens", {"[CLS]"}}}},
            {"[SEP]", {{"id", "[SEP]"}, {"ids", {first_special + 2}}, {"tokens", {"[SEP]"}}}}}}}},
        {"model", {{"type", "WordLevel"}, {"vocab", vocab}, {"unk_token", "[UNK]"}}}};
    write_file(run.model / "tokenizer.json", tokenizer.dump(2));
  }
  // BERT's uncased layout: [PAD] 0, [UNK] 100, [CLS] 101, [SEP] 102, [MASK] 103 (the ids the
  // fixture's batches use), filler tokens elsewhere.
  std::string vocab;
  for (int id = 0; id < vocab_size; ++id) {
    if (id == 0) vocab += "[PAD]\n";
    else if (id == 100) vocab += "[UNK]\n";
    else if (id == 101) vocab += "[CLS]\n";
    else if (id == 102) vocab += "[SEP]\n";
    else if (id == 103) vocab += "[MASK]\n";
    else vocab += fmt::format("w{}\n", id);
  }
  write_file(run.model / "vocab.txt", vocab);

  const nlohmann::json batches = nlohmann::json::parse(read_file(fixture / "batches.json")).at("batches");
  std::string rows;
  for (const nlohmann::json& batch : batches) {
    for (std::size_t i = 0; i < batch.at("labels").size(); ++i) {
      nlohmann::ordered_json row;
      row["input_ids"] = batch.at("input_ids")[i];
      row["token_type_ids"] = batch.at("token_type_ids")[i];
      row["attention_mask"] = batch.at("attention_mask")[i];
      row["label"] = batch.at("labels")[i];
      rows += row.dump() + "\n";
    }
  }
  run.train_file = dir / "train.jsonl";
  write_file(run.train_file, rows);
  // reference_tiny's file is reference_losses.json; reference_heads' reference.json.
  const std::filesystem::path losses = std::filesystem::exists(fixture / "reference_losses.json")
                                           ? fixture / "reference_losses.json"
                                           : fixture / "reference.json";
  const nlohmann::json reference = nlohmann::json::parse(read_file(losses));
  run.losses = reference.at("losses").get<std::vector<double>>();
  return run;
}

std::string four_rank_reference_flags(const ReferenceRun& run, const std::filesystem::path& output_dir) {
  return fmt::format(
      "train --do_train --model_name_or_path {} --train_file {} --do_eval false --output_dir {} --max_seq_length 32"
      " --per_device_train_batch_size 2 --learning_rate 1e-3 --weight_decay 0.01 --lr_scheduler_type constant"
      " --shuffle false --logging_steps 1 --num_train_epochs 1 --save_steps 0",
      run.model.string(), run.train_file.string(), output_dir.string());
}

double train_like_the_reference(const ReferenceRun& run, const std::filesystem::path& out, int workers) {
  const CliRun result = run_shmtrain(fmt::format(
      "train --do_train --model_name_or_path {} --train_file {} --do_eval false --output_dir {} --max_seq_length 24"
      " --per_device_train_batch_size {} --nproc_per_node {} --learning_rate 1e-3 --weight_decay 0.01"
      " --lr_scheduler_type constant --shuffle false --logging_steps 1 --num_train_epochs 1 --save_steps 0",
      run.model.string(), run.train_file.string(), out.string(), 4 / workers, workers));
  EXPECT_EQ(result.exit_code, 0) << result.output();
  const auto losses = metric_by_step(out / "metrics.jsonl", "loss");
  EXPECT_EQ(losses.size(), run.losses.size());
  if (result.exit_code != 0 || losses.size() != run.losses.size()) return std::numeric_limits<double>::infinity();
  double worst = 0;
  for (std::size_t i = 0; i < losses.size(); ++i) {
    EXPECT_NEAR(losses[i].second, run.losses[i], 1e-4 * std::abs(run.losses[i])) << workers << " workers, step " << i + 1;
    worst = std::max(worst, std::abs(losses[i].second - run.losses[i]) / std::abs(run.losses[i]));
  }
  return worst;
}

void expect_same_losses(const std::vector<std::pair<long, double>>& losses,
                        const std::vector<std::pair<long, double>>& expected) {
  ASSERT_EQ(losses.size(), expected.size());
  for (std::size_t i = 0; i < losses.size(); ++i) {
    EXPECT_NEAR(losses[i].second, expected[i].second, 1e-5 * std::abs(expected[i].second)) << "step " << i + 1;
  }
}

std::filesystem::path write_tiny_roberta_config(const TempDir& dir, bool dropout) {
  const nlohmann::json tokenizer =
      nlohmann::json::parse(read_file(fixtures_dir() / "tokenizers/roberta_bpe/tokenizer.json"));
  nlohmann::json config = {{"model_type", "roberta"},
                           {"vocab_size", tokenizer.at("model").at("vocab").size() + 1},  // and <mask>
                           {"hidden_size", 32},
                           {"num_hidden_layers", 2},
                           {"num_attention_heads", 2},
                           {"intermediate_size", 64},
                           {"max_position_embeddings", 130},
                           {"type_vocab_size", 1},
                           {"layer_norm_eps", 1e-5},
                           {"pad_token_id", 1}};
  if (!dropout) {
    config["hidden_dropout_prob"] = 0.0;
    config["attention_probs_dropout_prob"] = 0.0;
  }
  const std::filesystem::path path = dir / "config.json";
  write_file(path, config.dump(2));
  return path;
}

std::vector<std::pair<long, double>> metric_by_step(const std::filesystem::path& metrics, const std::string& key) {
  std::vector<std::pair<long, double>> values;
  std::ifstream in(metrics);
  std::string line;
  while (std::getline(in, line)) {
    const nlohmann::json record = nlohmann::json::parse(line);
    if (record.contains(key)) values.emplace_back(record.at("step").get<long>(), record.at(key).get<double>());
  }
  return values;
}

// Within 1e-5 as the norm of the whole model's difference relative to its norm, and
// elementwise within 1e-4 (the bound against PyTorch's final weights). Not 1e-5 per element:
// AdamW divides by sqrt(v) + eps, so where the gradient is nothing but rounding noise, the
// noise of a sum taken in another order becomes a step of up to lr. The attention key biases
// are such parameters (a key bias shifts all of a query's scores equally, which softmax
// ignores: its exact gradient is 0); their values stay at the noise level, 1e-6 to 1e-5.
void expect_same_weights(const std::filesystem::path& actual, const std::filesystem::path& expected) {
  const io::SafetensorsReader a(actual);
  const io::SafetensorsReader e(expected);
  ASSERT_EQ(a.tensors().size(), e.tensors().size());
  double diff = 0;
  double norm = 0;
  for (const io::TensorInfo& info : e.tensors()) {
    const std::vector<float> x = a.load(info.name);
    const std::vector<float> y = e.load(info.name);
    ASSERT_EQ(x.size(), y.size()) << info.name;
    for (std::size_t i = 0; i < x.size(); ++i) {
      diff += (static_cast<double>(x[i]) - y[i]) * (static_cast<double>(x[i]) - y[i]);
      norm += static_cast<double>(y[i]) * y[i];
    }
    EXPECT_TRUE(all_close(x, y, 1e-4)) << info.name;
  }
  std::printf("final weights: relative difference %.2e\n", std::sqrt(diff / norm));
  EXPECT_LE(std::sqrt(diff), 1e-5 * std::sqrt(norm));
}

std::vector<double> logged_losses(const std::filesystem::path& metrics) {
  std::vector<double> out;
  for (const auto& [step, loss] : metric_by_step(metrics, "loss")) out.push_back(loss);
  return out;
}

void expect_tasks_train_alike(const TempDir& dir, const std::filesystem::path& config, const std::string& tokenizer,
                              const std::vector<ScriptTask>& tasks, const std::vector<std::string>& also_written) {
  for (const ScriptTask& task : tasks) {
    std::vector<std::pair<long, double>> single;
    for (const int workers : {1, 2}) {
      SCOPED_TRACE(task.name + ", " + std::to_string(workers) + " worker(s)");
      const std::filesystem::path out = dir / fmt::format("{}{}", task.name, workers);
      const CliRun result = run_shmtrain(fmt::format(
          "train --do_train {} --config_name {} --tokenizer_name {} --output_dir {} --max_seq_length 64"
          " --per_device_train_batch_size {} --per_device_eval_batch_size 4 --nproc_per_node {} --learning_rate 1e-3"
          " --shuffle false --logging_steps 1 --num_train_epochs 1 --save_steps 0 --seed 3",
          task.arguments, config.string(), tokenizer, out.string(), 8 / workers, workers));
      ASSERT_EQ(result.exit_code, 0) << result.output();
      EXPECT_NE(result.out.find(task.head), std::string::npos) << result.out;
      const auto losses = metric_by_step(out / "metrics.jsonl", "loss");
      ASSERT_FALSE(losses.empty());
      if (workers == 1) {
        single = losses;
      } else {
        expect_same_losses(losses, single);
      }
      EXPECT_TRUE(std::filesystem::exists(out / task.predictions)) << task.predictions;
      for (const std::string& file : also_written) EXPECT_TRUE(std::filesystem::exists(out / file)) << file;
      EXPECT_EQ(nlohmann::json::parse(read_file(out / "config.json")).at("architectures")[0], task.head);
    }
  }
}

}  // namespace shmtrain::testing
