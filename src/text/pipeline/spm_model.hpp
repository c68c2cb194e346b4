#pragma once
// Internal to text: a SentencePiece .model as the tokenizer converters read it: the pieces
// through the SentencePiece library, and the normaliser's precompiled_charsmap, which the
// library keeps private, from the protobuf itself (ModelProto field 3, normalizer_spec; its
// field 2), as tokenizer.json's Precompiled normaliser spells it.
#include <filesystem>
#include <memory>

#include <sentencepiece_processor.h>
#include <nlohmann/json.hpp>

namespace shmtrain::text::pipeline {

struct SpmModel {
  std::unique_ptr<sentencepiece::SentencePieceProcessor> processor;
  // {"type": "Precompiled", "precompiled_charsmap": base64}, or null when the model has none.
  nlohmann::json precompiled;
};

// Throws InputError naming the file when it cannot be read or is not a SentencePiece model.
SpmModel load_spm_model(const std::filesystem::path& file);

}  // namespace shmtrain::text::pipeline
