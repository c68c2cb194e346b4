#include "shmtrain/text/tokenizer_writer.hpp"

#include <string>

#include <nlohmann/json.hpp>

#include "shmtrain/io/atomic_file.hpp"

namespace shmtrain::text {

void write_tokenizer_files(const std::filesystem::path& folder, const TokenizerSpec& spec,
                           std::size_t model_max_length) {
  std::string vocab;
  for (std::size_t id = 0; id < spec.vocab->size(); ++id) {
    vocab += spec.vocab->token(static_cast<std::int32_t>(id));
    vocab += '\n';
  }
  io::write_file_atomically(folder / "vocab.txt", vocab);

  // Keys as transformers 4.x writes them for BertTokenizer; strip_accents null means "follow
  // do_lower_case", which is what an unset NormalizerOptions::strip_accents means too.
  nlohmann::ordered_json config;
  config["clean_up_tokenization_spaces"] = true;
  config["cls_token"] = spec.special.cls;
  config["do_basic_tokenize"] = true;
  config["do_lower_case"] = spec.normalizer.lowercase;
  config["mask_token"] = spec.special.mask;
  config["model_max_length"] = model_max_length;
  config["never_split"] = nullptr;
  config["pad_token"] = spec.special.pad;
  config["sep_token"] = spec.special.sep;
  if (spec.normalizer.strip_accents) {
    config["strip_accents"] = *spec.normalizer.strip_accents;
  } else {
    config["strip_accents"] = nullptr;
  }
  config["tokenize_chinese_chars"] = spec.normalizer.handle_chinese_chars;
  config["tokenizer_class"] = "BertTokenizer";
  config["unk_token"] = spec.special.unk;
  if (!spec.special.extra.empty()) {
    // Both spellings: transformers 4 reads additional_special_tokens, 5 extra_special_tokens.
    config["additional_special_tokens"] = spec.special.extra;
    config["extra_special_tokens"] = spec.special.extra;
  }
  io::write_file_atomically(folder / "tokenizer_config.json", config.dump(2) + "\n");

  nlohmann::ordered_json special;
  special["cls_token"] = spec.special.cls;
  special["mask_token"] = spec.special.mask;
  special["pad_token"] = spec.special.pad;
  special["sep_token"] = spec.special.sep;
  special["unk_token"] = spec.special.unk;
  if (!spec.special.extra.empty()) special["additional_special_tokens"] = spec.special.extra;
  io::write_file_atomically(folder / "special_tokens_map.json", special.dump(2) + "\n");
}

}  // namespace shmtrain::text
