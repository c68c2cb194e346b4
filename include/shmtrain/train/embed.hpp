#pragma once
// Sentence embeddings of texts with a sentence-embedding model (SentenceTransformer.encode):
// each text tokenized alone (truncated to max_seq_length), batches packed by length, no
// dropout, the model's pooling and normalisation. Used by `shmtrain encode`, the IR
// evaluation and mine-negatives.
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "shmtrain/model/encoder_model.hpp"
#include "shmtrain/model/param_table.hpp"
#include "shmtrain/text/tokenizer.hpp"

namespace shmtrain::train {

// The embeddings (texts.size(), hidden_size) of `texts`, in their order, each prefixed by
// `prompt`; `tokens`, when given, gets the tokens embedded (special tokens included).
// REQUIRES: model's head is kSentenceEmbedding.
std::vector<float> embed_texts(model::EncoderModel& model, const text::Tokenizer& tokenizer,
                               std::span<const std::string> texts, std::size_t max_seq_length,
                               std::int64_t batch_size, const std::string& prompt = {},
                               std::int64_t* tokens = nullptr);

// A model folder (Hugging Face, or sentence-transformers: its Pooling and Normalize read)
// loaded for embedding.
struct EmbeddingModelOptions {
  std::filesystem::path folder;
  std::optional<std::string> pooling;  // overrides the folder's (mean without one)
  bool normalize = false;              // adds a Normalize where the folder has none
  std::optional<std::int64_t> max_seq_length;  // default: sentence_bert_config.json's, else the model's
  std::optional<bool> do_lower_case;
};

struct EmbeddingModel {
  model::BertConfig config;
  model::ParamTable table;
  std::vector<float> params;
  std::vector<float> grads;
  std::unique_ptr<model::EncoderModel> model;
  std::unique_ptr<text::Tokenizer> tokenizer;
  std::size_t max_seq_length = 0;
};
std::unique_ptr<EmbeddingModel> load_embedding_model(const EmbeddingModelOptions& options);

// `shmtrain encode`: the texts of `input` (.txt: a text a line; .jsonl/.json, .csv, .parquet:
// `text_column`) embedded with every core, written to `output` as a float32 .npy (rows in input
// order). Returns the rows written; prints the embedding's rate (texts/s, tokens/s, the model's
// load and the file's writing left out).
struct EncodeOptions {
  EmbeddingModelOptions model;
  std::filesystem::path input;
  std::string text_column = "text";
  std::filesystem::path output;
  std::string prompt;
  std::int64_t batch_size = 64;
};
std::int64_t encode_file(const EncodeOptions& options);

}  // namespace shmtrain::train
