#pragma once
// A sentence-transformers model folder's own files (SentenceTransformer.save, v5): beside the
// encoder's Hugging Face files at its root, modules.json (Transformer, Pooling, and Normalize
// when set), config_sentence_transformers.json (similarity_fn_name cosine),
// sentence_bert_config.json (max_seq_length, do_lower_case), 1_Pooling/config.json
// (word_embedding_dimension and the pooling_mode_* flags) and 2_Normalize/.
#include <cstdint>
#include <filesystem>

#include "shmtrain/model/sentence/sentence_options.hpp"

namespace shmtrain::model::sentence {

// Writes them into `folder` (each atomically). `width` is the embedding's (hidden_size).
void write_sentence_transformers_files(const std::filesystem::path& folder, const SentenceOptions& options,
                                       std::int64_t width);

}  // namespace shmtrain::model::sentence
