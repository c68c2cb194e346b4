// `shmtrain tokenize`: one text or sentence pair through the BERT tokenizer, printed as one
// JSON object, to check shmtrain's tokenization against Hugging Face's on the same input.
#include <cstddef>
#include <memory>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "shmtrain/cli/commands.hpp"
#include "shmtrain/text/bert_tokenizer.hpp"

namespace shmtrain::cli {
namespace {

struct TokenizeOptions {
  std::string vocab;
  std::optional<bool> do_lower_case;
  std::string text_a;
  std::optional<std::string> text_b;
  std::size_t max_seq_length = 0;
  bool pad_to_max_length = false;
};

int run_tokenize(const TokenizeOptions& options) {
  const text::BertTokenizer tokenizer = text::BertTokenizer::from_path(options.vocab, options.do_lower_case);
  text::EncodeOptions encode_options;
  encode_options.max_seq_length = options.max_seq_length;
  encode_options.pad_to_max_length = options.pad_to_max_length;
  std::optional<std::string_view> text_b;
  if (options.text_b) text_b = *options.text_b;
  const text::Encoding encoding = tokenizer.encode(options.text_a, text_b, encode_options);

  // The casing decision changes every token, so it is always said (on stderr: stdout is JSON).
  const text::NormalizerOptions& normalizer = tokenizer.spec().normalizer;
  fmt::print(stderr, "shmtrain: tokenizer {}: do_lower_case {} ({}), strip_accents {}\n", tokenizer.spec().source,
             normalizer.lowercase, tokenizer.spec().lowercase_origin, normalizer.strips_accents());

  nlohmann::ordered_json out;
  out["tokens"] = tokenizer.tokens(encoding.input_ids);
  out["input_ids"] = encoding.input_ids;
  out["token_type_ids"] = encoding.token_type_ids;
  out["attention_mask"] = encoding.attention_mask;
  fmt::print("{}\n", out.dump());
  return 0;
}

}  // namespace

Command add_tokenize_command(CLI::App& app) {
  auto options = std::make_shared<TokenizeOptions>();
  CLI::App* sub = app.add_subcommand(
      "tokenize", "Tokenize a text or a sentence pair as Hugging Face's BertTokenizerFast and print JSON");
  sub->add_option("--vocab", options->vocab, "vocab.txt, tokenizer.json, or a Hugging Face model folder")
      ->required();
  sub->add_option("--do_lower_case", options->do_lower_case,
                  "true|false; default: tokenizer_config.json, else whether the vocabulary is uncased");
  sub->add_option("--text_a", options->text_a, "the (first) text")->required();
  sub->add_option("--text_b", options->text_b, "the second text of a pair");
  sub->add_option("--max_seq_length", options->max_seq_length,
                  "truncate (longest_first) to this many tokens, special tokens included; 0: no limit");
  sub->add_option("--pad_to_max_length", options->pad_to_max_length,
                  "true|false: pad with [PAD] to max_seq_length (default false)");
  return {sub, [options] { return run_tokenize(*options); }};
}

}  // namespace shmtrain::cli
