#include "shmtrain/train/rerank.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <span>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <tbb/parallel_for.h>

#include "shmtrain/common/error.hpp"
#include "shmtrain/data/collate.hpp"
#include "shmtrain/data/json_lines.hpp"
#include "shmtrain/data/table.hpp"
#include "shmtrain/io/atomic_file.hpp"
#include "shmtrain/model/encoder_model.hpp"
#include "shmtrain/model/hf_config.hpp"
#include "shmtrain/model/model_weights.hpp"
#include "shmtrain/tensor/threads.hpp"
#include "shmtrain/text/tokenizer.hpp"

namespace shmtrain::train {
namespace {

namespace fs = std::filesystem;

std::vector<std::vector<std::string>> read_candidates(const fs::path& path, std::size_t queries) {
  const data::JsonLines file = data::read_json_lines(path, "the --candidates file");
  std::vector<std::vector<std::string>> out;
  for (const data::JsonRow& row : file.rows) {
    const auto found = row.object.find("documents");
    if (found == row.object.end()) fail_input("{}:{}: a line is {{\"documents\": [...]}}", file.source, row.line);
    const nlohmann::ordered_json* list = &*found;
    if (!list->is_array()) fail_input("{}:{}: the candidates must be a list of texts", file.source, row.line);
    std::vector<std::string> texts;
    for (const auto& item : *list) {
      if (!item.is_string()) fail_input("{}:{}: the candidates must be a list of texts", file.source, row.line);
      texts.push_back(item.get<std::string>());
    }
    if (texts.empty()) fail_input("{}:{}: no candidate to rank", file.source, row.line);
    out.push_back(std::move(texts));
  }
  if (out.size() != queries) {
    fail_input("{}: {} lines of candidates for {} queries: line i holds query i's", file.source, out.size(), queries);
  }
  return out;
}

// config.json's sentence_transformers.activation_fn: true for Sigmoid (the default), false for Identity.
bool sigmoid_activation(const fs::path& config_path) {
  const nlohmann::json config = nlohmann::json::parse(data::read_data_file(config_path, "config.json"));
  const auto st = config.find("sentence_transformers");
  if (st == config.end() || !st->is_object() || !st->contains("activation_fn")) return true;
  const std::string name = (*st)["activation_fn"].is_string() ? (*st)["activation_fn"].get<std::string>() : "";
  if (name == "torch.nn.modules.activation.Sigmoid") return true;
  if (name == "torch.nn.modules.linear.Identity") return false;
  fail_input("{}: sentence_transformers.activation_fn '{}' is not one shmtrain applies (Sigmoid or Identity)",
             config_path.string(), name);
}

}  // namespace

std::int64_t rerank_files(const RerankOptions& o) {
  if (o.batch_size < 1) fail_input("--batch_size must be at least 1");
  const std::vector<std::string> queries =
      data::read_text_list(o.queries, o.query_column, "--queries", "--query_column");
  const std::vector<std::vector<std::string>> candidates = read_candidates(o.candidates, queries.size());
  const fs::path config_path = o.model / "config.json";
  if (!fs::is_regular_file(config_path)) fail_input("{}: config.json not found: pass --model_name_or_path a model folder", o.model.string());
  const fs::path weights = model::find_model_weights(o.model);
  if (weights.empty()) fail_input("{}: no weights in the model folder (model.safetensors or pytorch_model.bin)", o.model.string());
  model::BertConfig config = model::read_hf_config(config_path);
  config.head = model::ModelHead::kSequenceClassification;
  if (config.num_labels() != 1) {
    fail_input("{}: {} labels; a reranker scores a pair with one (num_labels 1)", config_path.string(), config.num_labels());
  }
  const bool sigmoid = sigmoid_activation(config_path);
  const std::int64_t length = std::min<std::int64_t>(o.max_seq_length.value_or(512), config.max_sequence_length());
  if (length < 4) fail_input("--max_seq_length {} leaves no room for a pair", length);
  config.validate(config_path.string());
  tensor::set_compute_threads(tensor::allowed_cpu_count());
  const model::ParamTable table = model::ParamTable::for_model(config);
  std::vector<float> params(static_cast<std::size_t>(table.count())), grads(params.size());
  model::load_model_weights(weights, table, params, config, 0);
  model::EncoderModel model(config, table, params, grads);
  const std::unique_ptr<text::Tokenizer> tokenizer = text::load_tokenizer(o.model);

  // Every pair, query-major.
  std::vector<std::pair<std::size_t, std::size_t>> pairs;
  for (std::size_t q = 0; q < queries.size(); ++q) {
    for (std::size_t d = 0; d < candidates[q].size(); ++d) pairs.emplace_back(q, d);
  }
  data::Dataset dataset{o.candidates.string(), std::vector<data::Example>(pairs.size())};
  tbb::parallel_for(std::size_t{0}, pairs.size(), [&](std::size_t i) {
    text::Encoding encoding;
    tokenizer->encode(queries[pairs[i].first], candidates[pairs[i].first][pairs[i].second],
                      text::EncodeOptions{static_cast<std::size_t>(length), false}, encoding);
    data::Example& e = dataset.examples[i];
    e.input_ids = std::move(encoding.input_ids);
    e.token_type_ids = std::move(encoding.token_type_ids);
    e.attention_mask = std::move(encoding.attention_mask);
  });
  std::vector<std::int64_t> order(pairs.size());
  std::iota(order.begin(), order.end(), std::int64_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::int64_t a, std::int64_t b) {
    return dataset.examples[static_cast<std::size_t>(a)].input_ids.size() >
           dataset.examples[static_cast<std::size_t>(b)].input_ids.size();
  });
  std::vector<float> scores(pairs.size());
  for (std::size_t first = 0; first < order.size(); first += static_cast<std::size_t>(o.batch_size)) {
    const std::size_t count = std::min(order.size() - first, static_cast<std::size_t>(o.batch_size));
    const std::span<const std::int64_t> rows(order.data() + first, count);
    const data::Batch batch = data::collate(dataset, rows, static_cast<std::size_t>(length), data::Padding::kNone,
                                            tokenizer->pad_id(), data::Target::kRegression);
    model.forward(batch, model::StepContext{.train = false});
    const std::span<const float> logits = model.logits();
    for (std::size_t r = 0; r < count; ++r) {
      const float x = logits[r];
      scores[static_cast<std::size_t>(rows[r])] = sigmoid ? 1.0f / (1.0f + std::exp(-x)) : x;
    }
  }

  std::string out;
  std::size_t pair = 0;
  for (std::size_t q = 0; q < queries.size(); ++q) {
    std::vector<std::size_t> ranked(candidates[q].size());
    std::iota(ranked.begin(), ranked.end(), std::size_t{0});
    std::stable_sort(ranked.begin(), ranked.end(),
                     [&](std::size_t a, std::size_t b) { return scores[pair + a] > scores[pair + b]; });
    nlohmann::ordered_json line = {{"query", queries[q]}, {"ranking", nlohmann::ordered_json::array()}};
    for (const std::size_t d : ranked) {
      line["ranking"].push_back({{"corpus_id", d}, {"score", scores[pair + d]}, {"text", candidates[q][d]}});
    }
    out += line.dump() + "\n";
    pair += candidates[q].size();
  }
  io::write_file_atomically(o.output, out);
  return static_cast<std::int64_t>(pairs.size());
}

}  // namespace shmtrain::train
