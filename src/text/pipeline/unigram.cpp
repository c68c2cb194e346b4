// Unigram (tokenizers' models/unigram, SentencePiece's): the segmentation of a piece whose
// pieces' scores (log-probabilities) sum highest, by Viterbi over character positions. A
// character no piece starts with becomes the unknown token at the lowest score less 10
// (SentencePiece's kUnkPenalty); consecutive unknowns fuse into one, and with byte_fallback
// an unknown is written as its UTF-8 bytes "<0xXX>". The pieces starting at a position are
// found in one walk down a byte trie (tokenizers' common_prefix_search), and a piece seen before
// is not searched again (piece_cache.hpp).
#include <limits>

#include <fmt/format.h>

#include "flat_map.hpp"
#include "models.hpp"
#include "piece_cache.hpp"
#include "shmtrain/common/error.hpp"
#include "shmtrain/text/utf8.hpp"

namespace shmtrain::text::pipeline {
namespace {

constexpr double kUnkPenalty = 10.0;

// The pieces' bytes as a trie: node 0 is the root; edge (node, byte) -> child in a FlatMap.
class PieceTrie {
 public:
  void insert(std::string_view text, std::int32_t id) {
    std::uint32_t node = 0;
    for (const char c : text) {
      const auto [child, added] = edges_.try_emplace(key(node, c), static_cast<std::uint32_t>(ids_.size()));
      if (added) ids_.push_back(-1);
      node = *child;
    }
    ids_[node] = id;
  }

  // The child of `node` by `byte`, or 0 (the root is nobody's child).
  std::uint32_t child(std::uint32_t node, char byte) const {
    const std::uint32_t* found = edges_.find(key(node, byte));
    return found != nullptr ? *found : 0;
  }
  std::int32_t id(std::uint32_t node) const { return ids_[node]; }

 private:
  static std::uint64_t key(std::uint32_t node, char byte) {
    return (std::uint64_t{node} << 8) | static_cast<unsigned char>(byte);
  }

  std::vector<std::int32_t> ids_{-1};  // ids_[node]: the piece ending there, or -1
  FlatMap<std::uint32_t> edges_;
};

class Unigram final : public Model {
 public:
  Unigram(std::vector<UnigramPiece> pieces, std::int32_t unk_id, bool byte_fallback, const std::string& source)
      : byte_fallback_(byte_fallback), unk_id_(unk_id) {
    const nlohmann::json none = nlohmann::json::object();
    const JsonFields f(none, "model", source);
    double min_score = std::numeric_limits<double>::max();
    for (std::size_t i = 0; i < pieces.size(); ++i) {
      vocab_.add(pieces[i].piece, static_cast<std::int64_t>(i), f, "vocab");
      scores_.push_back(pieces[i].score);
      min_score = std::min(min_score, pieces[i].score);
      trie_.insert(pieces[i].piece, static_cast<std::int32_t>(i));
    }
    if (unk_id < 0 || static_cast<std::size_t>(unk_id) >= pieces.size()) {
      f.fail("unk_id", fmt::format("{} is not an id of the {} pieces", unk_id, pieces.size()));
    }
    unk_score_ = (pieces.empty() ? 0.0 : min_score) - kUnkPenalty;
  }

  const TokenTable& vocab() const override { return vocab_; }

  void tokenize(const AlignedText& piece, std::vector<PieceToken>& out) const override {
    if (piece.empty()) return;
    if (const std::vector<PieceToken>* kept = cache_.find(piece.chars)) {
      out.insert(out.end(), kept->begin(), kept->end());
      return;
    }
    const std::size_t first = out.size();
    search(piece, out);
    cache_.insert(piece.chars,
                  std::vector<PieceToken>(out.begin() + static_cast<std::ptrdiff_t>(first), out.end()));
  }

 private:
  void search(const AlignedText& piece, std::vector<PieceToken>& out) const {
    // Byte offsets of each character, so pieces are looked up by their UTF-8 text.
    const std::string text = piece.utf8();
    std::vector<std::size_t> char_at(text.size() + 1, 0);  // byte -> character index
    std::vector<std::size_t> byte_of(piece.size() + 1, 0);
    {
      std::size_t b = 0;
      for (std::size_t i = 0; i < piece.size(); ++i) {
        byte_of[i] = b;
        std::string one;
        append_utf8(one, piece.chars[i]);
        for (std::size_t k = 0; k < one.size(); ++k) char_at[b + k] = i;
        b += one.size();
      }
      byte_of[piece.size()] = b;
      char_at[b] = piece.size();
    }
    const std::size_t n = piece.size();
    struct Node {
      double score = -std::numeric_limits<double>::infinity();
      std::int32_t id = -1;
      std::size_t from = 0;
      bool reached = false;
    };
    std::vector<Node> best(n + 1);
    best[0].reached = true;
    best[0].score = 0;
    for (std::size_t i = 0; i < n; ++i) {
      if (!best[i].reached) continue;
      const std::size_t start = byte_of[i];
      const std::size_t one_char_end = byte_of[i + 1];
      bool has_single = false;
      std::uint32_t node = 0;
      for (std::size_t end = start + 1; end <= text.size(); ++end) {
        node = trie_.child(node, text[end - 1]);
        if (node == 0) break;
        if (end < one_char_end || (end < text.size() && is_utf8_continuation(text[end]))) continue;
        const std::int32_t id = trie_.id(node);
        if (id < 0) continue;
        if (end == one_char_end) has_single = true;
        const std::size_t j = char_at[end];
        const double candidate = best[i].score + scores_[static_cast<std::size_t>(id)];
        if (!best[j].reached || candidate > best[j].score) best[j] = {candidate, id, i, true};
      }
      if (!has_single) {
        const double candidate = best[i].score + unk_score_;
        if (!best[i + 1].reached || candidate > best[i + 1].score) best[i + 1] = {candidate, unk_id_, i, true};
      }
    }
    std::vector<PieceToken> path;
    for (std::size_t j = n; j > 0;) {
      const Node& node = best[j];
      path.push_back({node.id, static_cast<std::uint32_t>(node.from), static_cast<std::uint32_t>(j)});
      j = node.from;
    }
    std::reverse(path.begin(), path.end());
    // Fuse consecutive unknowns, then spell them in bytes when asked.
    std::vector<PieceToken> fused;
    for (const PieceToken& t : path) {
      if (t.id == unk_id_ && !fused.empty() && fused.back().id == unk_id_) fused.back().end = t.end;
      else fused.push_back(t);
      fused.back().literal = fused.back().id == unk_id_;  // tokenizers names an unknown by its text
    }
    for (const PieceToken& t : fused) {
      if (t.id != unk_id_ || !byte_fallback_) {
        out.push_back(t);
        continue;
      }
      std::vector<PieceToken> bytes;
      bool all = true;
      for (std::uint32_t c = t.begin; c < t.end && all; ++c) {
        std::string one;
        append_utf8(one, piece.chars[c]);
        for (const char b : one) {
          const std::int32_t id = vocab_.find(fmt::format("<0x{:02X}>", static_cast<unsigned char>(b)));
          if (id < 0) {
            all = false;
            break;
          }
          bytes.push_back({id, t.begin, t.end});  // every byte spans the whole unknown run, as in tokenizers
        }
      }
      if (all) out.insert(out.end(), bytes.begin(), bytes.end());
      else out.push_back(t);
    }
  }

  TokenTable vocab_;
  std::vector<double> scores_;
  PieceTrie trie_;
  PieceCache<PieceToken> cache_;
  bool byte_fallback_;
  std::int32_t unk_id_;
  double unk_score_ = 0;
};

}  // namespace

std::unique_ptr<Model> make_unigram(std::vector<UnigramPiece> pieces, std::int32_t unk_id, bool byte_fallback,
                                    const std::string& source) {
  return std::make_unique<Unigram>(std::move(pieces), unk_id, byte_fallback, source);
}

std::unique_ptr<Model> read_unigram(const JsonFields& f) {
  const nlohmann::json& vocab = f.array("vocab");
  std::vector<UnigramPiece> pieces;
  pieces.reserve(vocab.size());
  for (std::size_t i = 0; i < vocab.size(); ++i) {
    const nlohmann::json& entry = vocab[i];
    if (!entry.is_array() || entry.size() != 2 || !entry[0].is_string() || !entry[1].is_number()) {
      f.fail(fmt::format("vocab[{}]", i), fmt::format("must be [\"piece\", score], got {}", entry.dump().substr(0, 80)));
    }
    pieces.push_back({entry[0].get<std::string>(), entry[1].get<double>()});
  }
  const std::int64_t unk = f.optional_integer("unk_id").value_or(-1);
  if (unk < 0 || static_cast<std::size_t>(unk) >= pieces.size()) {
    f.fail("unk_id", fmt::format("{} is not an id of the {} pieces (shmtrain needs an unknown token)", unk, pieces.size()));
  }
  return make_unigram(std::move(pieces), static_cast<std::int32_t>(unk), f.boolean_or("byte_fallback", false), f.file());
}

}  // namespace shmtrain::text::pipeline
