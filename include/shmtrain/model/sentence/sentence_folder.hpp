#pragma once
// A sentence-transformers model folder's own files (SentenceTransformer.save, v5): beside the
// encoder's Hugging Face files at its root, modules.json (Transformer, Pooling, and Normalize
// when set), config_sentence_transformers.json (similarity_fn_name cosine),
// sentence_bert_config.json (max_seq_length, do_lower_case), 1_Pooling/config.json
// (word_embedding_dimension and the pooling_mode_* flags) and 2_Normalize/.
#include <cstdint>
#include <filesystem>
#include <optional>

#include "shmtrain/model/sentence/sentence_options.hpp"

namespace shmtrain::model::sentence {

// Writes them into `folder` (each atomically). `width` is the embedding's (hidden_size).
void write_sentence_transformers_files(const std::filesystem::path& folder, const SentenceOptions& options,
                                       std::int64_t width);

// A CrossEncoder's folder (a reranker: <Family>ForSequenceClassification with one score, or a
// pair classifier): config.json (already written there) gains the "sentence_transformers"
// entry CrossEncoder saves, its activation Sigmoid for one score (Identity for classes), and
// config_sentence_transformers.json is written beside it.
void write_cross_encoder_files(const std::filesystem::path& folder, bool one_score);

// What a sentence-transformers folder says of the modules after its encoder, read as a
// starting point: its modules.json (classic types sentence_transformers.models.Pooling /
// Normalize, or 5.4+'s sentence_transformers.base.modules... paths), the Pooling module's
// config.json (pooling_mode_* flags and word_embedding_dimension, or 5.4+'s pooling_mode and
// embedding_dimension) and sentence_bert_config.json. nullopt when `folder` has no modules.json
// (a plain Hugging Face folder). InputError naming the file and key for anything it cannot use:
// a pooling that mixes modes, a module after Normalize it does not know, an encoder in a
// subfolder.
struct SentenceFolder {
  PoolingMode pooling = PoolingMode::kMean;
  bool normalize = false;
  std::optional<std::int64_t> max_seq_length;
  std::optional<bool> do_lower_case;
  std::int64_t embedding_dimension = 0;
};
std::optional<SentenceFolder> read_sentence_transformers_folder(const std::filesystem::path& folder);

}  // namespace shmtrain::model::sentence
