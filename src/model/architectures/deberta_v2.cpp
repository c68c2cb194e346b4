// DeBERTa-v2 and v3 (transformers' DebertaV2Config, DebertaV2Model, DebertaV2For{Sequence,Token}
// Classification, DebertaV2ForQuestionAnswering; model_type "deberta-v2"; a DebertaV2ForMaskedLM
// checkpoint loads into any of them, lm_predictions.* and mask_predictions.* unused). BERT's
// post-norm layers under "deberta.", attention.self.{query,key,value}_proj, with disentangled
// attention over relative positions (encoder.rel_embeddings, encoder.LayerNorm); absolute
// positions only with position_biased_input, token types only when type_vocab_size > 0; the
// ContextPooler (pooler.dense, top level: dropout(pooler_dropout), dense, GELU) then
// dropout(hidden_dropout_prob) and the classifier.
#include <algorithm>

#include "architecture.hpp"
#include "model/config/config_object.hpp"
#include "shmtrain/common/error.hpp"

namespace shmtrain::model {
namespace {

// DebertaV2Config's defaults (the class's; the Hub's configs give their own).
void set_deberta_defaults(BertConfig& config) {
  config.architectures = {"DebertaV2ForMaskedLM"};
  config.vocab_size = 128100;
  config.hidden_size = 1536;
  config.num_hidden_layers = 24;
  config.num_attention_heads = 24;
  config.intermediate_size = 6144;
  config.type_vocab_size = 0;
  config.layer_norm_eps = 1e-7;
}

// pos_att_type: "p2c|c2p" (lower-cased, split on '|', stripped) or a list; null: none.
void read_pos_att_type(const ConfigObject& config, BertConfig& out) {
  const ConfigJson* value = config.non_null("pos_att_type");
  out.pos_att_type.clear();
  if (value == nullptr) return;
  auto add = [&](std::string term) {
    std::transform(term.begin(), term.end(), term.begin(), [](unsigned char c) { return std::tolower(c); });
    const auto first = term.find_first_not_of(" \t");
    const auto last = term.find_last_not_of(" \t");
    term = first == std::string::npos ? "" : term.substr(first, last - first + 1);
    if (term != "c2p" && term != "p2c") {
      config.fail("pos_att_type", "has '{}'; the terms are \"c2p\" and \"p2c\"", term);
    }
    if (std::find(out.pos_att_type.begin(), out.pos_att_type.end(), term) == out.pos_att_type.end()) {
      out.pos_att_type.push_back(term);
    }
  };
  if (value->is_string()) {
    out.pos_att_type_string = true;
    const std::string text = value->get<std::string>();
    std::size_t at = 0;
    while (at <= text.size()) {
      const std::size_t bar = std::min(text.find('|', at), text.size());
      add(text.substr(at, bar - at));
      at = bar + 1;
    }
  } else if (value->is_array()) {
    for (const ConfigJson& term : *value) {
      if (!term.is_string()) config.fail("pos_att_type", "entry {} is not a string", describe_json(term));
      add(term.get<std::string>());
    }
  } else {
    config.fail("pos_att_type", "must be a string such as \"p2c|c2p\" or a list, got {}",
                describe_json(*value));
  }
}

void read_deberta_config(const ConfigObject& config, BertConfig& out) {
  config.read("type_vocab_size", out.type_vocab_size);
  config.read("layer_norm_eps", out.layer_norm_eps);
  config.read("relative_attention", out.relative_attention);
  config.read("position_buckets", out.position_buckets);
  config.read("max_relative_positions", out.max_relative_positions);
  read_pos_att_type(config, out);
  config.read("share_att_key", out.share_att_key);
  config.read("norm_rel_ebd", out.norm_rel_ebd);
  config.read("position_biased_input", out.position_biased_input);
  out.pooler_hidden_size = out.hidden_size;
  config.read("pooler_hidden_size", out.pooler_hidden_size);
  config.read("pooler_dropout", out.pooler_dropout);
  config.read("pooler_hidden_act", out.pooler_hidden_act);
  if (config.non_null("cls_dropout") != nullptr) {
    double p = 0;
    config.read("cls_dropout", p);
    if (p != out.hidden_dropout_prob) {
      config.fail("cls_dropout",
                  "is {} but hidden_dropout_prob is {}; shmtrain's classifier dropout uses "
                  "hidden_dropout_prob: set cls_dropout to null or to the same value",
                  p, out.hidden_dropout_prob);
    }
  }
  // Shapes transformers can build but shmtrain does not (yet): refused by name.
  if (const ConfigJson* v = config.non_null("embedding_size"); v != nullptr) {
    std::int64_t e = 0;
    config.read("embedding_size", e);
    if (e != out.hidden_size) {
      config.fail("embedding_size",
                  "is {} and hidden_size {}; shmtrain's DeBERTa needs them equal (no embed_proj)", e,
                  out.hidden_size);
    }
  }
  if (const ConfigJson* v = config.non_null("conv_kernel_size"); v != nullptr) {
    std::int64_t k = 0;
    config.read("conv_kernel_size", k);
    if (k > 0)
      config.fail("conv_kernel_size", "is {}; the convolution layer of DeBERTa-v2-xlarge is not supported",
                  k);
  }
  if (const ConfigJson* v = config.non_null("attention_head_size"); v != nullptr) {
    std::int64_t d = 0;
    config.read("attention_head_size", d);
    if (out.num_attention_heads > 0 && d * out.num_attention_heads != out.hidden_size) {
      config.fail("attention_head_size", "is {}; shmtrain needs hidden_size / num_attention_heads ({})", d,
                  out.num_attention_heads > 0 ? out.hidden_size / out.num_attention_heads : 0);
    }
  }
}

void write_deberta_config(const BertConfig& config, ConfigFields& fields) {
  fields["layer_norm_eps"] = config.layer_norm_eps;
  fields["max_relative_positions"] = config.max_relative_positions;
  fields["norm_rel_ebd"] = config.norm_rel_ebd;
  fields["pooler_dropout"] = config.pooler_dropout;
  fields["pooler_hidden_act"] = config.pooler_hidden_act;
  fields["pooler_hidden_size"] = config.pooler_hidden_size;
  if (config.pos_att_type_string) {
    std::string joined;
    for (const std::string& t : config.pos_att_type) joined += (joined.empty() ? "" : "|") + t;
    fields["pos_att_type"] = joined;
  } else {
    fields["pos_att_type"] = config.pos_att_type;
  }
  fields["position_biased_input"] = config.position_biased_input;
  fields["position_buckets"] = config.position_buckets;
  fields["relative_attention"] = config.relative_attention;
  fields["share_att_key"] = config.share_att_key;
  fields["type_vocab_size"] = config.type_vocab_size;
}

void validate_deberta(const BertConfig& config, const std::string& source) {
  if (!config.relative_attention) {
    fail_input(
        "{}: relative_attention is false; shmtrain's DeBERTa runs the disentangled attention of every "
        "released DeBERTa-v2/v3 checkpoint (true)",
        source);
  }
  if (config.type_vocab_size < 0) {
    fail_input("{}: type_vocab_size must be 0 (no token types) or positive, got {}", source,
               config.type_vocab_size);
  }
  if (config.position_buckets == 1 || config.position_buckets > ConfigLimits::kPositions) {
    fail_input("{}: position_buckets must be at least 2 (or <= 0 for none) and at most {}, got {}", source,
               ConfigLimits::kPositions, config.position_buckets);
  }
  if (config.max_relative_positions > ConfigLimits::kPositions) {
    fail_input("{}: max_relative_positions is {}; shmtrain takes at most {}", source,
               config.max_relative_positions, ConfigLimits::kPositions);
  }
  const std::int64_t max_position = config.max_relative_distance();
  if (config.position_buckets > 0 && max_position - 1 <= config.position_buckets / 2) {
    fail_input(
        "{}: position_buckets {} needs max_relative_positions (or max_position_embeddings) above {}: the log "
        "buckets scale distances between position_buckets / 2 and it",
        source, config.position_buckets, config.position_buckets / 2 + 1);
  }
  if (config.norm_rel_ebd != "none" && config.norm_rel_ebd != "layer_norm") {
    fail_input("{}: norm_rel_ebd '{}' is not supported (\"none\" or \"layer_norm\")", source,
               config.norm_rel_ebd);
  }
  if (config.pooler_hidden_size != config.hidden_size) {
    fail_input(
        "{}: pooler_hidden_size {} differs from hidden_size {}; ContextPooler's dense reads the hidden "
        "states, so transformers needs them equal too",
        source, config.pooler_hidden_size, config.hidden_size);
  }
  if (config.pooler_hidden_act != "gelu") {
    fail_input(
        "{}: pooler_hidden_act '{}' is not supported (shmtrain implements \"gelu\", the exact erf form)",
        source, config.pooler_hidden_act);
  }
  if (config.pooler_dropout < 0 || config.pooler_dropout >= 1) {
    fail_input("{}: pooler_dropout must be in [0, 1), got {}", source, config.pooler_dropout);
  }
}

}  // namespace

const Architecture& deberta_v2_architecture() {
  static const Architecture deberta{
      .model_type = "deberta-v2",
      .class_prefix = "DebertaV2",
      .display_name = "DeBERTa-v2",
      .base_prefix = "deberta.",
      .layer_prefix = "deberta.encoder.layer.{}.",
      .embeddings = {"embeddings.word_embeddings", "embeddings.LayerNorm"},
      // query, key, value, qkv, attention_output, attention_norm, intermediate, output, output_norm
      .layer = {"attention.self.query_proj", "attention.self.key_proj", "attention.self.value_proj", nullptr,
                "attention.output.dense", "attention.output.LayerNorm", "intermediate.dense", "output.dense",
                "output.LayerNorm"},
      .structure = {.norm = NormPlacement::kAfterResidual,
                    .first_attention_norm = true,
                    .feed_forward = FeedForward::kGelu,
                    .positions = PositionEncoding::kLearned,  // only with position_biased_input
                    .attention = AttentionKind::kDisentangled,
                    .attention_output_dropout = true,
                    .dropout_inside_feed_forward = false,
                    .embedding_dropout = &BertConfig::hidden_dropout_prob,
                    .final_norm = nullptr},
      .pooler = "pooler.dense",
      .pooler_is_head = true,  // ContextPooler: DebertaV2Model and its MLM checkpoints lack it
      .pooler_activation = Activation::kGelu,
      .pooler_norm = nullptr,
      .token_heads_use_pooler = false,
      .classifier = "classifier",
      .pooler_input_dropout = &BertConfig::pooler_dropout,
      .qa_outputs = "qa_outputs",
      .classifier_dropout = &BertConfig::hidden_dropout_prob,
      .token_dropout = &BertConfig::hidden_dropout_prob,
      .qa_dropout = nullptr,  // DebertaV2ForQuestionAnswering has none
      .masked_lm = {nullptr, nullptr, nullptr},
      .multiple_choice = ChoiceHead::kSequenceHead,
      .choice_pooler = nullptr,
      .choice_activation = Activation::kTanh,  // unused
      .choice_dropout = nullptr,
      .zero_padding_embedding = true,
      .init_std = nullptr,
      // hidden_size, num_hidden_layers, num_attention_heads, intermediate_size, hidden_act,
      // hidden_dropout_prob, attention_probs_dropout_prob
      .keys = {"hidden_size", "num_hidden_layers", "num_attention_heads", "intermediate_size", "hidden_act",
               "hidden_dropout_prob", "attention_probs_dropout_prob"},
      .set_defaults = set_deberta_defaults,
      .read_config = read_deberta_config,
      .write_config = write_deberta_config,
      .validate = validate_deberta};
  return deberta;
}

}  // namespace shmtrain::model
