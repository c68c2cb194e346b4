// `shmtrain tokenize`: one text, a sentence pair or a list of pre-split words through a model
// folder's tokenizer, printed as one JSON object (tokens, ids, token types, offsets, word ids),
// to check a folder before training and compare with Hugging Face's output on the same input.
#include <cstddef>
#include <memory>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "shmtrain/cli/commands.hpp"
#include "shmtrain/common/error.hpp"
#include "shmtrain/text/bert_tokenizer.hpp"
#include "shmtrain/text/hf_tokenizer.hpp"

namespace shmtrain::cli {
namespace {

struct TokenizeOptions {
  std::string model;
  std::optional<bool> do_lower_case;
  std::string text_a;
  std::optional<std::string> text_b;
  std::vector<std::string> words;
  std::size_t max_seq_length = 0;
  bool pad_to_max_length = false;
};

nlohmann::json spans(const std::vector<text::CharSpan>& offsets) {
  nlohmann::json out = nlohmann::json::array();
  for (const text::CharSpan& s : offsets) out.push_back({s.begin, s.end});
  return out;
}

nlohmann::json word_ids(const std::vector<std::int32_t>& ids) {
  nlohmann::json out = nlohmann::json::array();
  for (const std::int32_t id : ids) out.push_back(id < 0 ? nlohmann::json(nullptr) : nlohmann::json(id));
  return out;
}

// BERT's tokenizer: offsets and word ids from its WordPiece pass over each text.
nlohmann::ordered_json bert_output(const text::BertTokenizer& tokenizer, const TokenizeOptions& options) {
  if (!options.words.empty()) fail_input("--words needs a tokenizer.json folder; BERT's vocab.txt takes --text_a");
  text::EncodeOptions encode_options{options.max_seq_length, options.pad_to_max_length};
  std::optional<std::string_view> text_b;
  if (options.text_b) text_b = *options.text_b;
  const text::Encoding encoding = tokenizer.encode(options.text_a, text_b, encode_options);
  std::vector<std::int32_t> ids_a, ids_b;
  std::vector<text::CharSpan> offsets_a, offsets_b;
  tokenizer.tokenize_with_offsets(options.text_a, ids_a, offsets_a, "text_a");
  if (text_b) tokenizer.tokenize_with_offsets(*text_b, ids_b, offsets_b, "text_b");
  std::vector<text::CharSpan> offsets(encoding.size(), text::CharSpan{});
  // [CLS] a [SEP] (b [SEP]): a's kept tokens start at 1, b's after a's [SEP].
  std::size_t kept_a = 0;
  std::size_t kept_b = 0;
  for (std::size_t i = 0; i < encoding.size(); ++i) {
    if (encoding.attention_mask[i] == 0) break;
    if (encoding.token_type_ids[i] == 0) ++kept_a;
    else ++kept_b;
  }
  kept_a -= 2;
  if (text_b) kept_b -= 1;
  for (std::size_t i = 0; i < kept_a; ++i) offsets[1 + i] = offsets_a[i];
  for (std::size_t i = 0; i < kept_b; ++i) offsets[kept_a + 3 + i] = offsets_b[i];
  nlohmann::ordered_json out;
  out["tokens"] = tokenizer.tokens(encoding.input_ids);
  out["input_ids"] = encoding.input_ids;
  out["token_type_ids"] = encoding.token_type_ids;
  out["attention_mask"] = encoding.attention_mask;
  out["offsets"] = spans(offsets);
  const text::NormalizerOptions& normalizer = tokenizer.spec().normalizer;
  fmt::print(stderr, "shmtrain: tokenizer {}: do_lower_case {} ({}), strip_accents {}\n", tokenizer.spec().source,
             normalizer.lowercase, tokenizer.spec().lowercase_origin, normalizer.strips_accents());
  return out;
}

nlohmann::ordered_json hf_output(const text::HfTokenizer& tokenizer, const TokenizeOptions& options) {
  text::Truncation truncation{options.max_seq_length, text::TruncationStrategy::kLongestFirst};
  text::TokenizedText t;
  if (!options.words.empty()) {
    t = tokenizer.encode_words(options.words, nullptr, true, truncation);
  } else {
    std::optional<std::string_view> text_b;
    if (options.text_b) text_b = *options.text_b;
    t = tokenizer.encode_text(options.text_a, text_b, true, truncation);
  }
  std::vector<std::int32_t> attention(t.size(), 1);
  if (options.pad_to_max_length && t.size() < options.max_seq_length) {
    const std::size_t n = options.max_seq_length;
    t.ids.resize(n, tokenizer.pad_id());
    t.type_ids.resize(n, 0);
    t.offsets.resize(n, text::CharSpan{});
    t.word_ids.resize(n, -1);
    attention.resize(n, 0);
  }
  nlohmann::ordered_json out;
  out["tokens"] = tokenizer.tokens(t.ids);
  out["input_ids"] = t.ids;
  out["token_type_ids"] = t.type_ids;
  out["attention_mask"] = attention;
  out["offsets"] = spans(t.offsets);
  out["word_ids"] = word_ids(t.word_ids);
  fmt::print(stderr, "shmtrain: tokenizer {}: {}\n", tokenizer.source(), tokenizer.description());
  return out;
}

int run_tokenize(const TokenizeOptions& options) {
  if (options.pad_to_max_length && options.max_seq_length == 0) {
    fail_input("--pad_to_max_length needs --max_seq_length");
  }
  const std::unique_ptr<text::Tokenizer> tokenizer = text::load_tokenizer(options.model, options.do_lower_case);
  nlohmann::ordered_json out;
  if (const auto* bert = dynamic_cast<const text::BertTokenizer*>(tokenizer.get())) {
    out = bert_output(*bert, options);
  } else {
    out = hf_output(dynamic_cast<const text::HfTokenizer&>(*tokenizer), options);
  }
  fmt::print("{}\n", out.dump());
  return 0;
}

}  // namespace

Command add_tokenize_command(CLI::App& app) {
  auto options = std::make_shared<TokenizeOptions>();
  CLI::App* sub = app.add_subcommand(
      "tokenize", "Tokenize a text, a pair or pre-split words as the model folder's Hugging Face tokenizer does; print JSON");
  sub->add_option("--model,--vocab", options->model,
                  "a model folder, or its tokenizer.json, vocab.txt or sentencepiece.bpe.model")
      ->required();
  sub->add_option("--do_lower_case", options->do_lower_case,
                  "true|false (BERT vocab.txt only); default: tokenizer_config.json, else whether the vocabulary is uncased");
  sub->add_option("--text_a", options->text_a, "the (first) text");
  sub->add_option("--text_b", options->text_b, "the second text of a pair");
  sub->add_option("--words", options->words, "pre-split words (is_split_into_words), instead of --text_a");
  sub->add_option("--max_seq_length", options->max_seq_length,
                  "truncate (longest_first) to this many tokens, special tokens included; 0: no limit");
  sub->add_option("--pad_to_max_length", options->pad_to_max_length,
                  "true|false: pad to max_seq_length (default false)");
  return {sub, [options] { return run_tokenize(*options); }};
}

}  // namespace shmtrain::cli
