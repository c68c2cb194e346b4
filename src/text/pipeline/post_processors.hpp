#pragma once
// Internal to text/pipeline: tokenizer.json's "post_processor": the special tokens around one
// sequence or a pair and their token types (BertProcessing, RobertaProcessing,
// TemplateProcessing), byte-level offset trimming (ByteLevel, and RobertaProcessing's
// trim_offsets), and Sequence.
#include <functional>
#include <memory>
#include <string>

#include "json_fields.hpp"
#include "sequence_tokens.hpp"

namespace shmtrain::text::pipeline {

// id -> token string, for offset trimming.
using TokenNames = std::function<const std::string&(std::int32_t)>;

class PostProcessor {
 public:
  virtual ~PostProcessor() = default;
  // How many tokens process() adds to one sequence (pair false) or to a pair.
  virtual std::size_t added_tokens(bool pair) const = 0;
  // Returns the final encoding of a (and b, when not null); with add_special false only the
  // offset rules apply and the two are joined.
  virtual SequenceTokens process(SequenceTokens a, SequenceTokens* b, bool add_special, const TokenNames& names) const = 0;
};

std::unique_ptr<PostProcessor> read_post_processor(const JsonFields& fields);
// What tokenizers does without a post_processor: a and b joined as they are, nothing added.
std::unique_ptr<PostProcessor> default_post_processor();
// RobertaProcessing with <s> = cls_id and </s> = sep_id, trim_offsets on (RobertaTokenizer's
// vocab.json + merges.txt and XLMRobertaTokenizer's files).
std::unique_ptr<PostProcessor> roberta_post_processor(std::int32_t cls_id, std::int32_t sep_id, bool trim_offsets,
                                                      bool add_prefix_space);

// ByteLevel's offset trimming: leading/trailing 'Ġ' of a token are not part of its span (the
// first token's single leading one is kept with add_prefix_space).
void trim_byte_level_offsets(SequenceTokens& tokens, bool add_prefix_space, const TokenNames& names);

}  // namespace shmtrain::text::pipeline
