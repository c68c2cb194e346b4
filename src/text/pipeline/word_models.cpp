// WordPiece and WordLevel (tokenizers' models/wordpiece and models/wordlevel), and the
// dispatch on the model's "type".
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

// Greedy longest-match-first: a word longer than max_input_chars_per_word, or with a part no
// token matches, becomes one unknown token.
class WordPieceModel final : public Model {
 public:
  explicit WordPieceModel(const JsonFields& f)
      : vocab_(read_vocab_object(f)),
        unk_(f.string_or("unk_token", "[UNK]")),
        prefix_(f.string_or("continuing_subword_prefix", "##")),
        max_chars_(static_cast<std::size_t>(std::max<std::int64_t>(0, f.optional_integer("max_input_chars_per_word").value_or(100)))),
        source_(f.file()) {}

  const TokenTable& vocab() const override { return vocab_; }

  void tokenize(const AlignedText& piece, std::vector<PieceToken>& out) const override {
    const auto n = static_cast<std::uint32_t>(piece.size());
    if (n == 0) return;
    const std::size_t first = out.size();
    bool bad = n > max_chars_;
    for (std::uint32_t start = 0; start < n && !bad;) {
      std::int32_t found = -1;
      std::uint32_t end = n;
      for (; end > start; --end) {
        std::string candidate = start > 0 ? prefix_ : std::string();
        candidate += piece.utf8(start, end);
        found = vocab_.find(candidate);
        if (found >= 0) break;
      }
      if (found < 0) {
        bad = true;
        break;
      }
      out.push_back({found, start, end});
      start = end;
    }
    if (bad) {
      out.resize(first);
      out.push_back({unk_id(), 0, n});
    }
  }

 private:
  std::int32_t unk_id() const {
    const std::int32_t id = vocab_.find(unk_);
    if (id < 0) fail_input("{}: the WordPiece unknown token '{}' is not in the vocabulary", source_, unk_);
    return id;
  }

  TokenTable vocab_;
  std::string unk_;
  std::string prefix_;
  std::size_t max_chars_;
  std::string source_;
};

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
  if (type == "WordPiece") return std::make_unique<WordPieceModel>(f);
  if (type == "WordLevel") return std::make_unique<WordLevelModel>(f);
  f.fail("type", fmt::format("unknown model '{}'; shmtrain reads BPE, Unigram, WordPiece and WordLevel", type));
}

}  // namespace shmtrain::text::pipeline
