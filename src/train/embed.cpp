#include "shmtrain/train/embed.hpp"

#include <algorithm>
#include <chrono>
#include <fstream>
#include <numeric>

#include <fmt/format.h>
#include <tbb/parallel_for.h>

#include "shmtrain/common/error.hpp"
#include "shmtrain/data/collate.hpp"
#include "shmtrain/data/table.hpp"
#include "shmtrain/io/npy_file.hpp"
#include "shmtrain/model/hf_config.hpp"
#include "shmtrain/model/model_weights.hpp"
#include "shmtrain/model/sentence/sentence_folder.hpp"
#include "shmtrain/tensor/threads.hpp"

namespace shmtrain::train {
namespace fs = std::filesystem;

std::vector<float> embed_texts(model::EncoderModel& model, const text::Tokenizer& tokenizer,
                               std::span<const std::string> texts, std::size_t max_seq_length,
                               std::int64_t batch_size, const std::string& prompt, std::int64_t* tokens) {
  const std::int64_t h = model.config().hidden_size;
  data::Dataset dataset{"texts", std::vector<data::Example>(texts.size())};
  tbb::parallel_for(std::size_t{0}, texts.size(), [&](std::size_t i) {
    text::Encoding encoding;
    tokenizer.encode(prompt.empty() ? texts[i] : prompt + texts[i], std::nullopt,
                     text::EncodeOptions{max_seq_length, false}, encoding);
    data::Example& e = dataset.examples[i];
    e.input_ids = std::move(encoding.input_ids);
    e.token_type_ids = std::move(encoding.token_type_ids);
    e.attention_mask = std::move(encoding.attention_mask);
    e.choice_lengths = {static_cast<std::int32_t>(e.input_ids.size())};
  });
  // Longest first: a batch's rows are alike in length, and the first batch is the largest.
  std::vector<std::int64_t> order(texts.size());
  std::iota(order.begin(), order.end(), std::int64_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::int64_t a, std::int64_t b) {
    return dataset.examples[static_cast<std::size_t>(a)].input_ids.size() >
           dataset.examples[static_cast<std::size_t>(b)].input_ids.size();
  });
  if (tokens != nullptr) {
    *tokens = 0;
    for (const data::Example& e : dataset.examples) *tokens += static_cast<std::int64_t>(e.input_ids.size());
  }
  std::vector<float> out(texts.size() * static_cast<std::size_t>(h));
  for (std::size_t first = 0; first < order.size(); first += static_cast<std::size_t>(batch_size)) {
    const std::size_t count = std::min(order.size() - first, static_cast<std::size_t>(batch_size));
    const std::span<const std::int64_t> rows(order.data() + first, count);
    const data::Batch batch = data::collate(dataset, rows, max_seq_length, data::Padding::kNone,
                                            tokenizer.pad_id(), data::Target::kTexts);
    model.forward(batch, model::StepContext{.train = false});
    const std::span<const float> embeddings = model.logits();
    for (std::size_t r = 0; r < count; ++r) {
      std::copy_n(embeddings.begin() + static_cast<std::ptrdiff_t>(r * h), h,
                  out.begin() + static_cast<std::ptrdiff_t>(rows[r] * h));
    }
  }
  return out;
}

std::unique_ptr<EmbeddingModel> load_embedding_model(const EmbeddingModelOptions& options) {
  const fs::path config_path = options.folder / "config.json";
  if (!fs::is_regular_file(config_path)) {
    fail_input("{}: config.json not found: pass --model_name_or_path a model folder", options.folder.string());
  }
  const fs::path weights = model::find_model_weights(options.folder);
  if (weights.empty()) {
    fail_input("{}: no weights in the model folder (model.safetensors or pytorch_model.bin)", options.folder.string());
  }
  auto out = std::make_unique<EmbeddingModel>();
  out->config = model::read_hf_config(config_path);
  out->config.head = model::ModelHead::kSentenceEmbedding;
  const auto folder = model::sentence::read_sentence_transformers_folder(options.folder);
  model::sentence::SentenceOptions& s = out->config.sentence;
  s.pooling = options.pooling ? model::sentence::parse_pooling_mode(*options.pooling, "--pooling")
              : folder        ? folder->pooling
                              : model::sentence::PoolingMode::kMean;
  s.normalize = options.normalize || (folder && folder->normalize);
  std::int64_t length = out->config.max_sequence_length();
  if (options.max_seq_length) {
    length = *options.max_seq_length;
  } else if (folder && folder->max_seq_length) {
    length = *folder->max_seq_length;
  }
  if (length < 3) fail_input("--max_seq_length {} leaves no room for a text", length);
  out->max_seq_length = static_cast<std::size_t>(std::min(length, out->config.max_sequence_length()));
  s.max_seq_length = static_cast<std::int64_t>(out->max_seq_length);
  out->config.validate(config_path.string());
  out->table = model::ParamTable::for_model(out->config);
  out->params.assign(static_cast<std::size_t>(out->table.count()), 0.0f);
  out->grads.assign(out->params.size(), 0.0f);
  model::load_model_weights(weights, out->table, out->params, out->config, 0);
  out->model = std::make_unique<model::EncoderModel>(out->config, out->table, out->params, out->grads);
  // sentence_bert_config.json's do_lower_case true lowercases the texts before the tokenizer;
  // false leaves them to the tokenizer's own setting (a BERT-uncased vocabulary still lowercases).
  const std::optional<bool> lower = options.do_lower_case                      ? options.do_lower_case
                                    : folder && folder->do_lower_case == true ? std::optional<bool>(true)
                                                                               : std::nullopt;
  out->tokenizer = text::load_tokenizer(options.folder, lower);
  return out;
}

std::int64_t encode_file(const EncodeOptions& options) {
  if (options.batch_size < 1) fail_input("--batch_size must be at least 1");
  const std::vector<std::string> texts =
      data::read_text_list(options.input, options.text_column, "--input", "--text_column");
  tensor::set_compute_threads(tensor::allowed_cpu_count());
  const std::unique_ptr<EmbeddingModel> loaded = load_embedding_model(options.model);
  const auto start = std::chrono::steady_clock::now();
  std::int64_t tokens = 0;
  const std::vector<float> embeddings = embed_texts(*loaded->model, *loaded->tokenizer, texts, loaded->max_seq_length,
                                                    options.batch_size, options.prompt, &tokens);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const auto rows = static_cast<std::int64_t>(texts.size());
  fmt::print("embedded {} texts ({} tokens) in {:.2f} s: {:.1f} texts/s, {:.0f} tokens/s\n", rows, tokens, seconds,
             static_cast<double>(rows) / seconds, static_cast<double>(tokens) / seconds);
  io::write_npy_f32(options.output, embeddings, rows, loaded->config.hidden_size);
  return rows;
}

}  // namespace shmtrain::train
