// WordPiece and WordLevel (tokenizers' models/wordpiece and models/wordlevel), and the
// dispatch on the model's "type".
#include <algorithm>

#include <fmt/format.h>

#include "models.hpp"
#include "shmtrain/common/error.hpp"
#include "shmtrain/text/utf8.hpp"

namespace shmtrain::text::pipeline {

std::unique_ptr<Model> read_bpe(const JsonFields& f);      // bpe.cpp
std::unique_ptr<Model> read_unigram(const JsonFields& f);  // unigram.cpp
std::unique_ptr<Model> read_model_of_type(const JsonFields& f);

namespace {

TokenTable read_vocab_object(const JsonFields& f) {
  TokenTable vocab;
  const nlohmann::json& v = f.object("vocab");
  for (const auto& [token, id] : v.items()) {
    if (!id.is_number_integer()) f.fail("vocab", fmt::format("token '{}' has id {}, not an integer", token, id.dump()));
    vocab.add(token, id.get<std::int64_t>(), f, "vocab");
  }
  return vocab;
}

class WordLevelModel final : public Model {
 public:
  explicit WordLevelModel(const JsonFields& f)
      : vocab_(read_vocab_object(f)), unk_(f.string_or("unk_token", "<unk>")), source_(f.file()) {}

  const TokenTable& vocab() const override { return vocab_; }

  void tokenize(const AlignedText& piece, std::vector<PieceToken>& out) const override {
    if (piece.empty()) return;
    std::int32_t id = vocab_.find(piece.utf8());
    if (id < 0) id = vocab_.find(unk_);
    if (id < 0) fail_input("{}: the WordLevel unknown token '{}' is not in the vocabulary", source_, unk_);
    out.push_back({id, 0, static_cast<std::uint32_t>(piece.size())});
  }

 private:
  TokenTable vocab_;
  std::string unk_;
  std::string source_;
};

}  // namespace

WordPieceModel::WordPieceModel(TokenTable vocab, std::string unk_token, std::string prefix,
                               std::size_t max_input_chars_per_word, std::string source)
    : vocab_(std::move(vocab)),
      trie_(vocab_.tokens(), prefix),
      unk_(std::move(unk_token)),
      max_chars_(max_input_chars_per_word),
      source_(std::move(source)) {}

std::int32_t WordPieceModel::unk_id() const {
  const std::int32_t id = vocab_.find(unk_);
  if (id < 0) fail_input("{}: the WordPiece unknown token '{}' is not in the vocabulary", source_, unk_);
  return id;
}

void WordPieceModel::tokenize_word(std::string_view word, std::size_t chars, std::vector<std::int32_t>& ids,
                                   std::vector<ByteSpan>* spans) const {
  const auto whole_word_unknown = [&] {
    ids.push_back(unk_id());
    if (spans != nullptr) spans->push_back({0, static_cast<std::uint32_t>(word.size())});
  };
  if (chars > max_chars_) {
    whole_word_unknown();
    return;
  }
  const std::size_t first_id = ids.size();
  const std::size_t first_span = spans != nullptr ? spans->size() : 0;
  for (std::size_t start = 0; start < word.size();) {
    const Vocab::Match match = trie_.longest_match(word.substr(start), start != 0);
    if (match.id == Vocab::kNotFound) {
      ids.resize(first_id);
      if (spans != nullptr) spans->resize(first_span);
      whole_word_unknown();
      return;
    }
    ids.push_back(match.id);
    if (spans != nullptr) spans->push_back({static_cast<std::uint32_t>(start), static_cast<std::uint32_t>(start + match.bytes)});
    start += match.bytes;
  }
}

void WordPieceModel::tokenize(const AlignedText& piece, std::vector<PieceToken>& out) const {
  if (piece.empty()) return;
  // The piece as UTF-8, and for each byte the character it belongs to.
  std::string word;
  std::vector<std::uint32_t> char_of_byte;
  for (std::size_t i = 0; i < piece.size(); ++i) {
    append_utf8(word, piece.chars[i]);
    char_of_byte.resize(word.size(), static_cast<std::uint32_t>(i));
  }
  std::vector<std::int32_t> ids;
  std::vector<ByteSpan> spans;
  tokenize_word(word, piece.size(), ids, &spans);
  for (std::size_t k = 0; k < ids.size(); ++k) {
    out.push_back({ids[k], char_of_byte[spans[k].begin], char_of_byte[spans[k].end - 1] + 1});
  }
}

namespace {

// tokenizers renumbers silently what a hand-edited file gets wrong; shmtrain refuses it, since
// the ids must match the model's embedding rows.
void check_model(const Model& model, const JsonFields& f) {
  const TokenTable& vocab = model.vocab();
  for (std::size_t id = 0; id < vocab.size(); ++id) {
    if (vocab.token(static_cast<std::int32_t>(id)).empty()) {
      f.fail("vocab", fmt::format("no token has id {}, below the largest id {}: ids must run 0..{} without gaps", id,
                                  vocab.size() - 1, vocab.size() - 1));
    }
  }
  if (const auto unk = f.optional_string("unk_token"); unk && vocab.find(*unk) < 0) {
    f.fail("unk_token", fmt::format("'{}' is not in the vocabulary", *unk));
  }
}

}  // namespace

std::unique_ptr<Model> read_model(const JsonFields& f) {
  std::unique_ptr<Model> model = read_model_of_type(f);
  check_model(*model, f);
  return model;
}

std::unique_ptr<Model> read_model_of_type(const JsonFields& f) {
  std::string type = f.string_or("type", "");
  if (type.empty()) {  // files from old tokenizers versions name no type: guess from the fields
    if (f.has("merges")) type = "BPE";
    else if (f.has("vocab") && f.json().at("vocab").is_array()) type = "Unigram";
    else if (f.has("continuing_subword_prefix")) type = "WordPiece";
    else type = "WordLevel";
  }
  if (type == "BPE") return read_bpe(f);
  if (type == "Unigram") return read_unigram(f);
  if (type == "WordPiece") {
    const std::int64_t max_chars = f.optional_integer("max_input_chars_per_word").value_or(100);
    return std::make_unique<WordPieceModel>(read_vocab_object(f), f.string_or("unk_token", "[UNK]"),
                                            f.string_or("continuing_subword_prefix", "##"),
                                            static_cast<std::size_t>(std::max<std::int64_t>(0, max_chars)), f.file());
  }
  if (type == "WordLevel") return std::make_unique<WordLevelModel>(f);
  f.fail("type", fmt::format("unknown model '{}'; shmtrain reads BPE, Unigram, WordPiece and WordLevel", type));
}

}  // namespace shmtrain::text::pipeline
