#pragma once
// Internal to text/pipeline: tokenizer.json's "normalizer", as Hugging Face tokenizers applies
// it: BertNormalizer, NFC, NFD, NFKC, NFKD, Lowercase, StripAccents, Strip, Replace, Prepend,
// Precompiled (SentencePiece's charsmap) and Sequence. Each rewrites an AlignedText and keeps
// every character's span of the original text (transform.hpp says how spans follow).
#include <memory>

#include "aligned_text.hpp"
#include "json_fields.hpp"
#include "shmtrain/text/tokenizer_files.hpp"  // NormalizerOptions

namespace shmtrain::text::pipeline {

class Normalizer {
 public:
  virtual ~Normalizer() = default;
  virtual void normalize(AlignedText& text) const = 0;
  // A BertNormalizer's settings, for the ids-only path of BERT's pipeline (bert_words.hpp);
  // null for the other normalizers.
  virtual const NormalizerOptions* bert_options() const { return nullptr; }
};

// The normalizer an object of tokenizer.json describes ({"type": "NFKC"}, ...). Throws
// InputError naming the file and key for an unknown type or a bad field.
std::unique_ptr<Normalizer> read_normalizer(const JsonFields& fields);

// The Unicode normalization forms over an AlignedText: decomposed characters keep their
// source's span, a composed character the span of its first part (tokenizers' alignments).
enum class UnicodeForm { kNfd, kNfkd, kNfc, kNfkc };
void unicode_normalize(AlignedText& text, UnicodeForm form);

}  // namespace shmtrain::text::pipeline
