#pragma once
// Internal to text/pipeline: tokenizer.json's "model", the part that turns one pre-tokenized
// piece into vocabulary tokens: BPE, Unigram, WordPiece and WordLevel, with Hugging Face
// tokenizers' semantics (bpe.cpp, unigram.cpp, word_models.cpp).
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "aligned_text.hpp"
#include "json_fields.hpp"

namespace shmtrain::text::pipeline {

// A token of a piece: its id and the piece's characters [begin, end) it covers.
struct PieceToken {
  std::int32_t id;
  std::uint32_t begin;
  std::uint32_t end;
  bool literal = false;  // its token string is the piece's text (Unigram's unknown), not the vocabulary's
};

// token <-> id for a model's vocabulary. Ids may have holes (empty strings).
class TokenTable {
 public:
  // Throws InputError through `f` (naming `key`) for a negative id, an id at or above
  // Vocab::kMaxTokens, or a token or id listed twice.
  void add(const std::string& token, std::int64_t id, const JsonFields& f, const std::string& key);
  std::int32_t find(std::string_view token) const;  // -1 when absent
  const std::string& token(std::int32_t id) const;  // "" for a hole
  std::size_t size() const { return tokens_.size(); }

 private:
  // Looked up by string_view without building a string (C++20 heterogeneous lookup).
  struct Hash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  std::vector<std::string> tokens_;
  std::unordered_map<std::string, std::int32_t, Hash, std::equal_to<>> ids_;
};

class Model {
 public:
  virtual ~Model() = default;
  // Appends the tokens of `piece` (the characters after normalisation and pre-tokenization).
  // Throws InputError when the piece cannot be tokenized (WordLevel/WordPiece without their
  // unknown token in the vocabulary).
  virtual void tokenize(const AlignedText& piece, std::vector<PieceToken>& out) const = 0;
  virtual const TokenTable& vocab() const = 0;
};

// `file` names tokenizer.json; `model` is its "model" object.
std::unique_ptr<Model> read_model(const JsonFields& model);

// The BPE of vocab.json + merges.txt (RobertaTokenizer's files): byte-level, no unknown token.
// Throws InputError naming the file and line of a merges line that does not parse or names
// tokens outside the vocabulary.
std::unique_ptr<Model> read_bpe_files(const std::string& vocab_json_path, const std::string& merges_path);

struct UnigramPiece {
  std::string piece;
  double score;
};
// A Unigram model over `pieces` (ids are their positions), as read from a SentencePiece file.
std::unique_ptr<Model> make_unigram(std::vector<UnigramPiece> pieces, std::int32_t unk_id, bool byte_fallback,
                                    const std::string& source);

}  // namespace shmtrain::text::pipeline
