// Tokenizer throughput (BERT's vocab.txt pipeline: its ids-only WordPiece path) on a made-up
// sentence-pair corpus shaped like QQP (two questions of
// 8-25 words, capitals, punctuation, some accents and digits), encoded as run_glue does
// (pairs, max_seq_length 128, padding). Reports the median pairs/s of 5 passes after a warm
// up, and as the peer in the same run a UTF-8 validation pass over the same bytes: the cost
// of merely reading the text once. Verifies that every pass gives the same ids. Then the same
// pairs through the tokenizer.json pipeline with RoBERTa's byte-level BPE and XLM-R's Unigram
// (the test fixtures' tokenizers, argv[1] or the source tree's), as a ratio to WordPiece's rate.
//
// With --pairs FILE --tokenizer DIR: the peer mode of bench/tokenizers_vs_hf.sh. FILE's lines
// are "text_a<TAB>text_b" (written by tools/hf_tokenize_bench.js, which times Hugging Face's
// tokenizers on the same lines); DIR's tokenizer (HfTokenizer::load, or with --vocab-txt
// HfTokenizer::load_bert) encodes every pair (truncation and padding to 128), one thread: one
// warm-up pass, then the median of --passes timed passes. --expect-ids IDS (a line of ids per
// pair, the padding left out) counts the pairs whose ids differ. Prints `RESULT {json}`.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "shmtrain/text/hf_tokenizer.hpp"
#include "shmtrain/text/utf8.hpp"

namespace {

using shmtrain::text::HfTokenizer;

constexpr int kPairs = 50000;
constexpr int kPasses = 5;

std::vector<std::string> make_words(std::mt19937& rng) {
  const std::vector<std::string> syllables = {"ka", "lo", "mi", "ne", "ru", "sa", "ti", "vo", "ze", "qu",
                                              "str", "ing", "tion", "er", "ed", "ly", "pre", "con", "é", "ü"};
  std::vector<std::string> words;
  for (int i = 0; i < 3000; ++i) {
    std::string word;
    const int n = 1 + static_cast<int>(rng() % 4);
    for (int s = 0; s < n; ++s) word += syllables[rng() % syllables.size()];
    words.push_back(word);
  }
  return words;
}

// Whole words for the common half, "##" pieces for the rest, as a trained vocabulary has.
std::vector<std::string> make_vocab(const std::vector<std::string>& words) {
  std::vector<std::string> vocab = {"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"};
  for (const char* piece : {"ka", "lo", "mi", "ne", "ru", "sa", "ti", "vo", "ze", "qu", "str", "ing", "tion", "er",
                            "ed", "ly", "pre", "con", "e", "u", "s", "t"}) {
    vocab.emplace_back(piece);
    vocab.push_back(std::string("##") + piece);
  }
  for (const char* symbol : {"?", ".", ",", "!", "'", "-", "(", ")", "0", "1", "2", "3", "##0", "##1", "##2", "##3"}) {
    vocab.emplace_back(symbol);
  }
  for (std::size_t i = 0; i < words.size() / 2; ++i) vocab.push_back(words[i]);
  std::sort(vocab.begin() + 5, vocab.end());
  vocab.erase(std::unique(vocab.begin() + 5, vocab.end()), vocab.end());
  return vocab;
}

std::string make_sentence(std::mt19937& rng, const std::vector<std::string>& words) {
  std::string sentence;
  const int n = 8 + static_cast<int>(rng() % 18);
  for (int i = 0; i < n; ++i) {
    std::string word = words[std::min(rng() % words.size(), rng() % words.size())];  // skewed to common words
    const bool capital = i == 0 || rng() % 10 == 0;
    if (capital && word[0] >= 'a' && word[0] <= 'z') word[0] = static_cast<char>(word[0] - 'a' + 'A');
    if (rng() % 25 == 0) word = std::to_string(rng() % 2000);
    if (!sentence.empty()) sentence += ' ';
    sentence += word;
    if (rng() % 12 == 0) sentence += ',';
    if (rng() % 40 == 0) sentence += "'s";
  }
  sentence += rng() % 3 == 0 ? "." : "?";
  return sentence;
}

template <typename F>
double seconds(F&& f) {
  const auto start = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

}  // namespace

// Median seconds of kPasses encodings of every pair with `tokenizer` after a warm-up.
double pipeline_seconds(const shmtrain::text::Tokenizer& tokenizer,
                        const std::vector<std::pair<std::string, std::string>>& pairs) {
  const shmtrain::text::EncodeOptions options{128, true};
  shmtrain::text::Encoding encoding;
  for (const auto& [a, b] : pairs) tokenizer.encode(a, b, options, encoding);
  std::vector<double> times;
  for (int pass = 0; pass < kPasses; ++pass) {
    times.push_back(seconds([&] {
      for (const auto& [a, b] : pairs) tokenizer.encode(a, b, options, encoding);
    }));
  }
  return median(times);
}

namespace {

struct PairsArgs {
  std::string pairs, tokenizer, expect_ids;
  bool vocab_txt = false;
  int passes = 3;
};

std::vector<std::pair<std::string, std::string>> read_pairs(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(fmt::format("cannot read {}", path));
  std::vector<std::pair<std::string, std::string>> pairs;
  for (std::string line; std::getline(in, line);) {
    if (line.empty()) continue;
    const std::size_t tab = line.find('\t');
    if (tab == std::string::npos) throw std::runtime_error(fmt::format("{}: a line without a tab", path));
    pairs.emplace_back(line.substr(0, tab), line.substr(tab + 1));
  }
  return pairs;
}

// The pairs whose ids (the attention mask's 1s) differ from the line of `path` for them.
std::size_t count_mismatches(const std::string& path, const std::vector<std::vector<std::int32_t>>& ids) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(fmt::format("cannot read {}", path));
  std::size_t mismatches = 0;
  std::size_t row = 0;
  for (std::string line; std::getline(in, line) && row < ids.size(); ++row) {
    std::istringstream fields(line);
    std::vector<std::int32_t> expected;
    for (std::int32_t id = 0; fields >> id;) expected.push_back(id);
    if (expected == ids[row]) continue;
    if (++mismatches <= 3) {
      fmt::print(stderr, "tokenize_bench: pair {} gives ids {} , Hugging Face's {}\n", row + 1,
                 fmt::join(ids[row], " "), line);
    }
  }
  return mismatches + (ids.size() - row);
}

int run_pairs(const PairsArgs& args) {
  const auto pairs = read_pairs(args.pairs);
  std::size_t bytes = 0;
  for (const auto& [a, b] : pairs) bytes += a.size() + b.size();
  const HfTokenizer tokenizer =
      args.vocab_txt ? HfTokenizer::load_bert(args.tokenizer) : HfTokenizer::load(args.tokenizer);
  const shmtrain::text::EncodeOptions options{128, true};
  shmtrain::text::Encoding encoding;
  std::vector<std::vector<std::int32_t>> ids;
  std::size_t tokens = 0;
  for (const auto& [a, b] : pairs) {
    tokenizer.encode(a, b, options, encoding);
    auto& row = ids.emplace_back();
    for (std::size_t i = 0; i < encoding.size(); ++i)
      if (encoding.attention_mask[i] == 1) row.push_back(encoding.input_ids[i]);
    tokens += row.size();
  }
  const std::size_t mismatches = args.expect_ids.empty() ? 0 : count_mismatches(args.expect_ids, ids);
  std::vector<double> times;
  for (int pass = 0; pass < args.passes; ++pass) {
    times.push_back(seconds([&] {
      for (const auto& [a, b] : pairs) tokenizer.encode(a, b, options, encoding);
    }));
  }
  const double s = median(times);
  const auto n = static_cast<double>(pairs.size());
  fmt::print("RESULT {{\"side\": \"shmtrain\", \"tokenizer\": \"{}\", \"kind\": \"{}\", \"pairs\": {}, "
             "\"bytes\": {}, \"passes\": {}, \"tokens_per_pair\": {:.4f}, \"pairs_per_s\": {:.1f}, "
             "\"mb_per_s\": {:.4f}, \"checked\": {}, \"mismatches\": {}}}\n",
             args.tokenizer, args.vocab_txt ? "vocab.txt" : "tokenizer.json", pairs.size(), bytes, args.passes,
             static_cast<double>(tokens) / n, n / s, static_cast<double>(bytes) / s / 1e6,
             !args.expect_ids.empty(), mismatches);
  return 0;
}

}  // namespace

static int run(int argc, char** argv) {
  if (argc > 1 && std::string_view(argv[1]).starts_with("--")) {
    PairsArgs args;
    for (int i = 1; i < argc; ++i) {
      const std::string_view flag = argv[i];
      const auto value = [&]() -> std::string {
        if (i + 1 >= argc) throw std::runtime_error(fmt::format("{} needs a value", flag));
        return argv[++i];
      };
      if (flag == "--pairs") args.pairs = value();
      else if (flag == "--tokenizer") args.tokenizer = value();
      else if (flag == "--expect-ids") args.expect_ids = value();
      else if (flag == "--passes") args.passes = std::stoi(value());
      else if (flag == "--vocab-txt") args.vocab_txt = true;
      else throw std::runtime_error(fmt::format("unknown argument {}", flag));
    }
    if (args.pairs.empty() || args.tokenizer.empty() || args.passes < 1) {
      throw std::runtime_error("--pairs FILE and --tokenizer DIR are required, --passes at least 1");
    }
    return run_pairs(args);
  }
  std::mt19937 rng(1234);
  const std::vector<std::string> words = make_words(rng);
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "shmtrain-tokenize-bench";
  std::filesystem::create_directories(dir);
  {
    std::ofstream vocab_file(dir / "vocab.txt");
    for (const std::string& token : make_vocab(words)) vocab_file << token << '\n';
  }
  const HfTokenizer tokenizer = HfTokenizer::load_bert(dir);
  const std::int32_t unk_id = tokenizer.token_id("[UNK]").value();
  std::filesystem::remove_all(dir);

  std::vector<std::pair<std::string, std::string>> pairs;
  std::size_t bytes = 0;
  for (int i = 0; i < kPairs; ++i) {
    pairs.emplace_back(make_sentence(rng, words), make_sentence(rng, words));
    bytes += pairs.back().first.size() + pairs.back().second.size();
  }

  const shmtrain::text::EncodeOptions options{128, true};
  shmtrain::text::Encoding encoding;
  std::uint64_t expected_checksum = 0;
  std::size_t tokens = 0;
  std::size_t unknown = 0;
  auto encode_all = [&] {
    std::uint64_t checksum = 0;
    tokens = 0;
    unknown = 0;
    for (const auto& [a, b] : pairs) {
      tokenizer.encode(a, b, options, encoding);
      for (std::size_t i = 0; i < encoding.size(); ++i) {
        checksum = checksum * 1000003u + static_cast<std::uint64_t>(encoding.input_ids[i]);
        tokens += static_cast<std::size_t>(encoding.attention_mask[i]);
        unknown += encoding.input_ids[i] == unk_id;
      }
    }
    return checksum;
  };
  expected_checksum = encode_all();  // warm-up, and the reference for the verification

  std::vector<double> encode_times;
  for (int pass = 0; pass < kPasses; ++pass) {
    std::uint64_t checksum = 0;
    encode_times.push_back(seconds([&] { checksum = encode_all(); }));
    if (checksum != expected_checksum) {
      fmt::print(stderr, "tokenize_bench: pass {} gave different ids\n", pass);
      return 1;
    }
  }
  std::vector<double> validate_times;
  std::size_t invalid = 0;
  for (int pass = 0; pass < kPasses + 1; ++pass) {
    validate_times.push_back(seconds([&] {
      for (const auto& [a, b] : pairs) {
        invalid += shmtrain::text::find_invalid_utf8(a) != std::string_view::npos;
        invalid += shmtrain::text::find_invalid_utf8(b) != std::string_view::npos;
      }
    }));
  }
  if (invalid != 0) return 1;

  const double encode_s = median(encode_times);
  const double validate_s = median(validate_times);
  fmt::print("corpus: {} pairs, {:.1f} MB, vocabulary {} tokens; {} tokens/pair, {:.2f}% [UNK]\n", kPairs,
             static_cast<double>(bytes) / 1e6, tokenizer.vocab_size(), tokens / kPairs,
             100.0 * static_cast<double>(unknown) / static_cast<double>(tokens));
  fmt::print("encode (pairs, max_seq_length 128, padded): {:.0f} pairs/s, {:.1f} MB/s (median of {})\n",
             kPairs / encode_s, static_cast<double>(bytes) / encode_s / 1e6, kPasses);
  fmt::print("peer, UTF-8 validation of the same text: {:.0f} MB/s; encode takes {:.1f}x its time\n",
             static_cast<double>(bytes) / validate_s / 1e6, encode_s / validate_s);
  fmt::print("QQP's 364k training pairs at this rate: {:.1f} s\n", 364000.0 * encode_s / kPairs);

  const std::filesystem::path fixtures = argc > 1 ? argv[1] : SHMTRAIN_TOKENIZER_FIXTURES;
  for (const char* name : {"roberta_bpe", "xlmr_unigram"}) {
    const auto pipeline = shmtrain::text::HfTokenizer::load(fixtures / name);
    const double s = pipeline_seconds(pipeline, pairs);
    fmt::print("tokenizer.json pipeline, {} ({}): {:.0f} pairs/s, {:.2f}x WordPiece's time\n", name,
               pipeline.description(), kPairs / s, s / encode_s);
  }
  return 0;
}

// Usage: tokenize_bench [FIXTURES]; FIXTURES holds roberta_bpe/ and xlmr_unigram/.
//        tokenize_bench --pairs FILE --tokenizer DIR [--vocab-txt] [--expect-ids IDS] [--passes N]
int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr,
                 "tokenize_bench: error: %s\nusage: tokenize_bench [FIXTURES: a folder with roberta_bpe/ and "
                 "xlmr_unigram/]\n       tokenize_bench --pairs FILE --tokenizer DIR [--vocab-txt] "
                 "[--expect-ids IDS] [--passes N]\n",
                 e.what());
    return 1;
  }
}
