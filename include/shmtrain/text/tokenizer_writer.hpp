#pragma once
// Writes a tokenizer as Hugging Face's BertTokenizer.save_pretrained does, so an output
// folder loads with AutoTokenizer: vocab.txt (one token per line, id = line),
// tokenizer_config.json (casing, accents, CJK splitting, special tokens, tokenizer_class) and
// special_tokens_map.json. Each file is written atomically.
#include <cstddef>
#include <filesystem>

#include "shmtrain/text/tokenizer_files.hpp"

namespace shmtrain::text {

// model_max_length: the max_position_embeddings the model was trained with.
void write_tokenizer_files(const std::filesystem::path& folder, const TokenizerSpec& spec,
                           std::size_t model_max_length);

}  // namespace shmtrain::text
