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
#include "shmtrain/text/hf_tokenizer.hpp"
#include "shmtrain/text/utf8.hpp"

namespace shmtrain::cli {
namespace {

struct TokenizeOptions {
  std::string model;
  std::optional<bool> do_lower_case;
  std::optional<std::string> text_a;  // "" is a text (an empty one), not a missing one
  std::optional<std::string> text_b;
  std::vector<std::string> words;
  std::size_t max_seq_length = 0;
  bool pad_to_max_length = false;
  bool add_special_tokens = true;
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

// Every tokenizer is a pipeline (hf_tokenizer.hpp), so every folder gives offsets and word ids.
nlohmann::ordered_json tokenize_output(const text::HfTokenizer& tokenizer, const TokenizeOptions& options) {
  const text::Truncation truncation{options.max_seq_length, text::TruncationStrategy::kLongestFirst};
  const bool special = options.add_special_tokens;
  text::TokenizedText t;
  if (!options.words.empty()) {
    t = tokenizer.encode_words(options.words, nullptr, special, truncation);
  } else {
    // Checked here so that an error names the flag.
    text::check_utf8(*options.text_a, "text_a");
    std::optional<std::string_view> text_b;
    if (options.text_b) text_b = *options.text_b;
    if (text_b) text::check_utf8(*text_b, "text_b");
    t = tokenizer.encode_text(*options.text_a, text_b, special, truncation);
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
  if (!options.words.empty() && (options.text_a || options.text_b)) {
    fail_input("--words replaces --text_a/--text_b: pass either pre-split words or a text (and a pair's second)");
  }
  if (options.words.empty() && !options.text_a) fail_input("pass the text to tokenize: --text_a TEXT (or --words W1 W2 ...)");
  const std::unique_ptr<text::Tokenizer> tokenizer = text::load_tokenizer(options.model, options.do_lower_case);
  const nlohmann::ordered_json out = tokenize_output(dynamic_cast<const text::HfTokenizer&>(*tokenizer), options);
  fmt::print("{}\n", out.dump());
  return 0;
}

}  // namespace

Command add_tokenize_command(CLI::App& app) {
  auto options = std::make_shared<TokenizeOptions>();
  CLI::App* sub = app.add_subcommand(
      "tokenize", "Tokenize a text, a pair or pre-split words as the model folder's Hugging Face tokenizer does; print JSON");
  sub->add_option("--model,--vocab", options->model,
                  "a model folder, or its tokenizer.json, vocab.txt, sentencepiece.bpe.model or spm.model")
      ->required();
  sub->add_option("--do_lower_case", options->do_lower_case,
                  "true|false (BERT vocab.txt only); default: tokenizer_config.json, else whether the vocabulary is uncased");
  sub->add_option("--text_a", options->text_a, "the (first) text; \"\" is an empty text");
  sub->add_option("--text_b", options->text_b, "the second text of a pair");
  sub->add_option("--words", options->words, "pre-split words (is_split_into_words), instead of --text_a");
  sub->add_option("--max_seq_length", options->max_seq_length,
                  "truncate (longest_first) to this many tokens, special tokens included; 0: no limit");
  sub->add_option("--pad_to_max_length", options->pad_to_max_length,
                  "true|false: pad to max_seq_length (default false)");
  sub->add_option("--add_special_tokens", options->add_special_tokens,
                  "true|false: put the special tokens around the text(s) ([CLS] a [SEP], <s> a </s>); false joins a "
                  "pair's texts as they are, as tokenizers' encode(..., add_special_tokens=False) (default true)");
  return {sub, [options] { return run_tokenize(*options); }};
}

}  // namespace shmtrain::cli
