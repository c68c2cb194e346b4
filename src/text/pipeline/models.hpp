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
#include "shmtrain/text/vocab.hpp"

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
  const std::vector<std::string>& tokens() const { return tokens_; }  // by id
  // The table of a vocab.txt, tokens[i] with id i: a token listed twice is found under its
  // last id and blank lines keep their id unfound, as transformers' load_vocab reads it.
  static TokenTable from_lines(std::vector<std::string> tokens);

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
  // The WordPiece model behind this one, for the ids-only path of BERT's pipeline; null for
  // the other models.
  virtual const class WordPieceModel* wordpiece() const { return nullptr; }
};

// Greedy longest-match-first (tokenizers' models/wordpiece, transformers' WordpieceTokenizer):
//   - a word of more than max_input_chars_per_word code points (100) is one unknown token;
//   - from the start of the word, take the longest prefix in the vocabulary; from then on
//     the longest piece found as continuing_subword_prefix + piece ("##"); repeat;
//   - if at some point no piece matches, the whole word is one unknown token (not the pieces
//     found so far plus it). "unaffable" -> un ##aff ##able with BERT's vocabulary.
// The match walks the vocabulary's byte trie (vocab.hpp), so its cost is the length of the
// match, not the square of the longest token.
class WordPieceModel final : public Model {
 public:
  WordPieceModel(TokenTable vocab, std::string unk_token, std::string prefix, std::size_t max_input_chars_per_word,
                 std::string source);

  void tokenize(const AlignedText& piece, std::vector<PieceToken>& out) const override;
  const TokenTable& vocab() const override { return vocab_; }
  const WordPieceModel* wordpiece() const override { return this; }

  // A piece's bytes within a word: [begin, end).
  struct ByteSpan {
    std::uint32_t begin;
    std::uint32_t end;
  };
  // Appends the ids of `word` (UTF-8, `chars` code points) and, when given, each one's bytes.
  // Throws InputError when the word needs the unknown token and the vocabulary lacks it.
  void tokenize_word(std::string_view word, std::size_t chars, std::vector<std::int32_t>& ids,
                     std::vector<ByteSpan>* spans = nullptr) const;

 private:
  std::int32_t unk_id() const;

  TokenTable vocab_;
  Vocab trie_;
  std::string unk_;
  std::size_t max_chars_;
  std::string source_;
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
