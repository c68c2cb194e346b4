// BPE (tokenizers' models/bpe): a piece starts as its characters (with
// continuing_subword_prefix on all but the first and end_of_word_suffix on the last; an
// unknown one becomes its UTF-8 bytes "<0xXX>" with byte_fallback, else the unknown token,
// consecutive ones fused with fuse_unk), then the pair of lowest merge rank is merged, the
// leftmost first on a tie, until no listed pair is left. A heap keeps this O(n log n) in the
// piece's length, so a crafted 1 MB word costs no more than its size.
#include <fstream>
#include <map>
#include <queue>
#include <sstream>

#include <fmt/format.h>

#include "flat_map.hpp"
#include "models.hpp"
#include "piece_cache.hpp"
#include "shmtrain/common/error.hpp"
#include "shmtrain/text/utf8.hpp"

namespace shmtrain::text::pipeline {
namespace {

struct Merge {
  std::int32_t rank;
  std::int32_t merged;
};

std::uint64_t pair_key(std::int32_t a, std::int32_t b) {
  return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(a)) << 32) | static_cast<std::uint32_t>(b);
}

class Bpe final : public Model {
 public:
  struct Options {
    std::string unk_token;  // "" : none
    std::string continuing_subword_prefix;
    std::string end_of_word_suffix;
    bool fuse_unk = false;
    bool byte_fallback = false;
    bool ignore_merges = false;
  };

  Bpe(TokenTable vocab, Options options) : vocab_(std::move(vocab)), options_(std::move(options)) {
    unk_id_ = options_.unk_token.empty() ? -1 : vocab_.find(options_.unk_token);
    if (options_.continuing_subword_prefix.empty() && options_.end_of_word_suffix.empty()) {
      char_ids_.resize(kCharTable);
      std::string s;
      for (char32_t c = 0; c < kCharTable; ++c) {
        s.clear();
        append_utf8(s, c);
        char_ids_[c] = vocab_.find(s);
      }
    }
  }

  // Adds the merge (a, b) with the next rank. Returns an error text, or "".
  std::string add_merge(const std::string& a, const std::string& b) {
    const std::int32_t ia = vocab_.find(a);
    const std::int32_t ib = vocab_.find(b);
    if (ia < 0) return fmt::format("merge '{} {}': '{}' is not in the vocabulary", a, b, a);
    if (ib < 0) return fmt::format("merge '{} {}': '{}' is not in the vocabulary", a, b, b);
    const std::string& prefix = options_.continuing_subword_prefix;
    const std::string merged =
        a + (!prefix.empty() && b.starts_with(prefix) ? b.substr(prefix.size()) : b);
    const std::int32_t im = vocab_.find(merged);
    if (im < 0) return fmt::format("merge '{} {}': the merged token '{}' is not in the vocabulary", a, b, merged);
    merges_.try_emplace(pair_key(ia, ib), Merge{next_rank_++, im});
    return {};
  }

  const TokenTable& vocab() const override { return vocab_; }

  void tokenize(const AlignedText& piece, std::vector<PieceToken>& out) const override {
    if (piece.empty()) return;
    if (options_.ignore_merges) {
      const std::int32_t whole = vocab_.find(piece.utf8());
      if (whole >= 0) {
        out.push_back({whole, 0, static_cast<std::uint32_t>(piece.size())});
        return;
      }
    }
    if (const std::vector<PieceToken>* kept = cache_.find(piece.chars)) {
      out.insert(out.end(), kept->begin(), kept->end());
      return;
    }
    thread_local std::vector<Symbol> symbols;  // reused: a word allocates nothing once they have grown
    symbols.clear();
    initial_symbols(piece, symbols);
    merge_all(symbols);
    const std::size_t first = out.size();
    for (const Symbol& s : symbols)
      if (s.alive) out.push_back({s.id, s.begin, s.end});
    cache_.insert(piece.chars,
                  std::vector<PieceToken>(out.begin() + static_cast<std::ptrdiff_t>(first), out.end()));
  }

 private:
  struct Symbol {
    std::int32_t id;
    std::uint32_t begin, end;
    std::int32_t prev, next;
    bool alive = true;
  };

  void push_symbol(std::vector<Symbol>& symbols, std::int32_t id, std::uint32_t begin, std::uint32_t end) const {
    const auto n = static_cast<std::int32_t>(symbols.size());
    symbols.push_back({id, begin, end, n - 1, n + 1, true});
  }

  void initial_symbols(const AlignedText& piece, std::vector<Symbol>& symbols) const {
    bool last_unk = false;
    const std::size_t n = piece.size();
    std::string s;
    for (std::size_t i = 0; i < n; ++i) {
      const char32_t c = piece.chars[i];
      const auto b = static_cast<std::uint32_t>(i);
      std::int32_t id;
      if (c < char_ids_.size()) {
        id = char_ids_[c];
      } else {
        s.clear();
        if (i > 0) s = options_.continuing_subword_prefix;
        append_utf8(s, c);
        if (i + 1 == n) s += options_.end_of_word_suffix;
        id = vocab_.find(s);
      }
      if (id >= 0) {
        push_symbol(symbols, id, b, b + 1);
        last_unk = false;
        continue;
      }
      if (options_.byte_fallback) {
        std::string bytes;
        append_utf8(bytes, c);
        std::vector<std::int32_t> ids;
        for (const char byte : bytes) {
          const std::int32_t bid = vocab_.find(fmt::format("<0x{:02X}>", static_cast<unsigned char>(byte)));
          if (bid < 0) break;
          ids.push_back(bid);
        }
        if (ids.size() == bytes.size()) {
          for (const std::int32_t bid : ids) push_symbol(symbols, bid, b, b + 1);
          last_unk = false;
          continue;
        }
      }
      if (unk_id_ < 0) continue;  // tokenizers drops a character it cannot name
      if (options_.fuse_unk && last_unk) {
        symbols.back().end = b + 1;
      } else {
        push_symbol(symbols, unk_id_, b, b + 1);
      }
      last_unk = true;
    }
    if (!symbols.empty()) symbols.back().next = -1;
  }

  struct Candidate {
    std::int32_t rank;
    std::int32_t pos;
    std::int32_t left, right;  // the ids the pair had when queued
    std::int32_t merged;
    bool operator>(const Candidate& o) const { return rank != o.rank ? rank > o.rank : pos > o.pos; }
  };

  void queue_pair(std::vector<Symbol>& symbols, std::int32_t pos,
                  std::priority_queue<Candidate, std::vector<Candidate>, std::greater<>>& heap) const {
    if (pos < 0) return;
    const Symbol& s = symbols[static_cast<std::size_t>(pos)];
    if (s.next < 0) return;
    const Symbol& t = symbols[static_cast<std::size_t>(s.next)];
    if (const Merge* m = merges_.find(pair_key(s.id, t.id))) heap.push({m->rank, pos, s.id, t.id, m->merged});
  }

  void merge_all(std::vector<Symbol>& symbols) const {
    std::priority_queue<Candidate, std::vector<Candidate>, std::greater<>> heap;
    for (std::size_t i = 0; i < symbols.size(); ++i) queue_pair(symbols, static_cast<std::int32_t>(i), heap);
    while (!heap.empty()) {
      const Candidate c = heap.top();
      heap.pop();
      Symbol& s = symbols[static_cast<std::size_t>(c.pos)];
      if (!s.alive || s.id != c.left || s.next < 0) continue;
      Symbol& t = symbols[static_cast<std::size_t>(s.next)];
      if (t.id != c.right) continue;
      s.id = c.merged;
      s.end = t.end;
      t.alive = false;
      s.next = t.next;
      if (t.next >= 0) symbols[static_cast<std::size_t>(t.next)].prev = c.pos;
      queue_pair(symbols, s.prev, heap);
      queue_pair(symbols, c.pos, heap);
    }
  }

  // Byte-level BPE's characters are all below U+0144: their ids without building a string, when
  // no prefix or suffix makes a character's token depend on its place in the piece.
  static constexpr char32_t kCharTable = 0x800;

  TokenTable vocab_;
  Options options_;
  std::int32_t unk_id_ = -1;
  std::vector<std::int32_t> char_ids_;  // char_ids_[c]: the id of the one-character token c, or -1
  PieceCache<PieceToken> cache_;
  FlatMap<Merge> merges_;
  std::int32_t next_rank_ = 0;
};

}  // namespace

std::unique_ptr<Model> read_bpe(const JsonFields& f) {
  TokenTable vocab;
  const nlohmann::json& v = f.object("vocab");
  for (const auto& [token, id] : v.items()) {
    if (!id.is_number_integer()) f.fail("vocab", fmt::format("token '{}' has id {}, not an integer", token, id.dump()));
    vocab.add(token, id.get<std::int64_t>(), f, "vocab");
  }
  Bpe::Options options;
  options.unk_token = f.string_or("unk_token", "");
  options.continuing_subword_prefix = f.string_or("continuing_subword_prefix", "");
  options.end_of_word_suffix = f.string_or("end_of_word_suffix", "");
  options.fuse_unk = f.boolean_or("fuse_unk", false);
  options.byte_fallback = f.boolean_or("byte_fallback", false);
  options.ignore_merges = f.boolean_or("ignore_merges", false);
  // "dropout" only matters while training a tokenizer: encoding for a model ignores it, as
  // tokenizers does outside training.
  auto bpe = std::make_unique<Bpe>(std::move(vocab), options);
  const nlohmann::json& merges = f.has("merges") ? f.array("merges") : nlohmann::json::array();
  for (std::size_t i = 0; i < merges.size(); ++i) {
    const nlohmann::json& m = merges[i];
    std::string a, b;
    if (m.is_string()) {
      const std::string s = m.get<std::string>();
      const std::size_t space = s.find(' ');
      if (space == std::string::npos || s.find(' ', space + 1) != std::string::npos) {
        f.fail(fmt::format("merges[{}]", i), fmt::format("'{}' is not two tokens separated by one space", s));
      }
      a = s.substr(0, space);
      b = s.substr(space + 1);
    } else if (m.is_array() && m.size() == 2 && m[0].is_string() && m[1].is_string()) {
      a = m[0].get<std::string>();
      b = m[1].get<std::string>();
    } else {
      f.fail(fmt::format("merges[{}]", i), fmt::format("must be \"a b\" or [\"a\", \"b\"], got {}", m.dump().substr(0, 80)));
    }
    const std::string error = bpe->add_merge(a, b);
    if (!error.empty()) f.fail(fmt::format("merges[{}]", i), error);
  }
  return bpe;
}

std::unique_ptr<Model> read_bpe_files(const std::string& vocab_json_path, const std::string& merges_path) {
  const nlohmann::json vocab_json = read_json_file(vocab_json_path);
  const JsonFields f(vocab_json, "", vocab_json_path);
  TokenTable vocab;
  for (const auto& [token, id] : vocab_json.items()) {
    if (!id.is_number_integer()) f.fail(token, fmt::format("id {} is not an integer", id.dump()));
    vocab.add(token, id.get<std::int64_t>(), f, token);
  }
  auto bpe = std::make_unique<Bpe>(std::move(vocab), Bpe::Options{});
  std::ifstream min(merges_path, std::ios::binary);
  if (!min) fail_input("cannot open {}: check that it exists and is readable", merges_path);
  std::string line;
  for (std::size_t number = 1; std::getline(min, line); ++number) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (number == 1 && line.starts_with("#version")) continue;
    if (line.empty()) continue;
    check_utf8(line, fmt::format("{}:{}", merges_path, number));
    const std::size_t space = line.find(' ');
    if (space == std::string::npos || space == 0 || space + 1 == line.size() ||
        line.find(' ', space + 1) != std::string::npos) {
      fail_input("{}:{}: '{}' is not two tokens separated by one space", merges_path, number, line.substr(0, 80));
    }
    const std::string error = bpe->add_merge(line.substr(0, space), line.substr(space + 1));
    if (!error.empty()) fail_input("{}:{}: {}", merges_path, number, error);
  }
  return bpe;
}

}  // namespace shmtrain::text::pipeline
