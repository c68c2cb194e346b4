// ModernBERT (transformers' ModernBertConfig, ModernBertModel, ModernBertForSequenceClassification,
// ModernBertForTokenClassification, ModernBertForQuestionAnswering; a ModernBertForMaskedLM
// checkpoint loads into any of them, its decoder unused). Pre-norm layers (attn_norm is Identity
// on layer 0), one fused Wqkv, rotary positions, GeGLU feed-forward, no biases in the released
// checkpoints, a final norm, and attention that is global on every third layer and a sliding
// window of local_attention / 2 on each side elsewhere. The heads share ModernBertPredictionHead
// (head.dense, GELU, head.norm) before dropout and the classifier; sequence classification pools
// the first token or the mean of the real ones (classifier_pooling).
#include <cmath>

#include <fmt/format.h>

#include "architecture.hpp"
#include "model/config/config_object.hpp"
#include "shmtrain/common/error.hpp"

namespace shmtrain::model {
namespace {

constexpr const char* kFull = "full_attention";
constexpr const char* kSliding = "sliding_attention";

// ModernBertConfig's defaults (answerdotai/ModernBERT-base).
void set_modernbert_defaults(BertConfig& config) {
  config.architectures = {"ModernBertForMaskedLM"};
  config.vocab_size = 50368;
  config.hidden_size = 768;
  config.intermediate_size = 1152;
  config.num_hidden_layers = 22;
  config.num_attention_heads = 12;
  config.hidden_dropout_prob = 0.0;  // mlp_dropout
  config.attention_probs_dropout_prob = 0.0;
  config.max_position_embeddings = 8192;
  config.type_vocab_size = 0;
  config.layer_norm_eps = 1e-5;
  config.pad_token_id = 50283;
  config.bos_token_id = 50281;
  config.eos_token_id = 50282;
  config.cls_token_id = 50281;
  config.sep_token_id = 50282;
  config.attention_bias = false;
  config.mlp_bias = false;
  config.norm_bias = false;
  config.classifier_bias = false;
}

// A token id key: an integer, or null (left at the default).
void read_token_id(const ConfigObject& config, const char* key, std::int64_t& out) {
  if (config.non_null(key) != nullptr) config.read(key, out);
}

void read_layer_types(const ConfigObject& config, BertConfig& out) {
  const ConfigJson* value = config.non_null("layer_types");
  if (value == nullptr) return;  // the legacy spelling: global_attn_every_n_layers
  if (!value->is_array()) config.fail("layer_types", "must be a list of strings, got {}", describe_json(*value));
  if (static_cast<std::int64_t>(value->size()) != out.num_hidden_layers) {
    config.fail("layer_types", "has {} entries for {} layers (num_hidden_layers)", value->size(),
                out.num_hidden_layers);
  }
  out.layer_types.clear();
  for (const ConfigJson& type : *value) {
    if (!type.is_string() || (type.get<std::string>() != kFull && type.get<std::string>() != kSliding)) {
      config.fail("layer_types", "entry {} is not \"{}\" or \"{}\"", describe_json(type), kFull, kSliding);
    }
    out.layer_types.push_back(type.get<std::string>());
  }
}

// rope_parameters (transformers 5): {"full_attention": {"rope_theta": ..., "rope_type": "default"},
// "sliding_attention": {...}}; it wins over global_rope_theta and local_rope_theta.
void read_rope_parameters(const ConfigObject& config, BertConfig& out) {
  if (const ConfigJson* scaling = config.non_null("rope_scaling"); scaling != nullptr) {
    config.fail("rope_scaling", "is {}; shmtrain implements the default rotary embedding only (null)",
                describe_json(*scaling));
  }
  const ConfigJson* value = config.non_null("rope_parameters");
  if (value == nullptr) return;
  if (!value->is_object()) {
    config.fail("rope_parameters", "must be an object keyed by layer type, got {}", describe_json(*value));
  }
  for (const auto& [type, parameters] : value->items()) {
    if (type != kFull && type != kSliding) {
      config.fail("rope_parameters", "key '{}' is not a layer type (\"{}\" or \"{}\")", type, kFull, kSliding);
    }
    if (!parameters.is_object()) {
      config.fail("rope_parameters", "'{}' must be an object, got {}", type, describe_json(parameters));
    }
    const ConfigObject entry(parameters, config.source());
    std::string rope_type = "default";
    entry.read("rope_type", rope_type);
    if (rope_type != "default") {
      config.fail("rope_parameters", "'{}' has rope_type '{}'; shmtrain implements \"default\" only", type,
                  rope_type);
    }
    if (parameters.contains("rope_theta")) entry.read("rope_theta", type == kFull ? out.global_rope_theta
                                                                                  : out.local_rope_theta);
  }
}

void read_modernbert_config(const ConfigObject& config, BertConfig& out) {
  config.read("norm_eps", out.layer_norm_eps);
  for (const auto& [key, flag] : {std::pair{"attention_bias", &out.attention_bias}, {"mlp_bias", &out.mlp_bias},
                                  {"norm_bias", &out.norm_bias}, {"classifier_bias", &out.classifier_bias},
                                  {"decoder_bias", &out.decoder_bias}}) {
    config.read(key, *flag);
  }
  read_token_id(config, "bos_token_id", out.bos_token_id);
  read_token_id(config, "eos_token_id", out.eos_token_id);
  read_token_id(config, "cls_token_id", out.cls_token_id);
  read_token_id(config, "sep_token_id", out.sep_token_id);
  config.read("embedding_dropout", out.embedding_dropout);
  if (config.non_null("classifier_dropout") != nullptr) config.read("classifier_dropout", out.classifier_dropout);
  config.read("classifier_pooling", out.classifier_pooling);
  config.read("classifier_activation", out.classifier_activation);
  // transformers draws with `initializer_cutoff_factor or 3.0`: null and 0 mean 3.
  if (config.non_null("initializer_cutoff_factor") != nullptr) {
    config.read("initializer_cutoff_factor", out.initializer_cutoff_factor);
  }
  if (out.initializer_cutoff_factor == 0) out.initializer_cutoff_factor = 3.0;
  config.read("global_attn_every_n_layers", out.global_attn_every_n_layers);
  config.read("local_attention", out.local_attention);
  if (config.non_null("sliding_window") != nullptr) {  // a property: local_attention = 2 * sliding_window
    std::int64_t half = 0;
    config.read("sliding_window", half);
    out.local_attention = 2 * half;
  }
  config.read("global_rope_theta", out.global_rope_theta);
  config.read("local_rope_theta", out.local_rope_theta);
  read_layer_types(config, out);
  read_rope_parameters(config, out);
}

// Whether global_attn_every_n_layers can spell the layers' types (the legacy keys can say it).
bool pattern_is_every_n(const BertConfig& config) {
  for (std::int64_t l = 0; l < config.num_hidden_layers; ++l) {
    const bool sliding = l % config.global_attn_every_n_layers != 0;
    if (sliding != (config.attention_window(l) >= 0)) return false;
  }
  return true;
}

// Both spellings where both can say it (transformers 4.48-4.5x read the first, 5.x the second);
// layer_types and rope_parameters alone for a pattern global_attn_every_n_layers cannot express.
void write_modernbert_config(const BertConfig& config, ConfigFields& fields) {
  fields["attention_bias"] = config.attention_bias;
  fields["bos_token_id"] = config.bos_token_id;
  fields["classifier_activation"] = config.classifier_activation;
  fields["classifier_bias"] = config.classifier_bias;
  fields["classifier_dropout"] = config.classifier_dropout;
  fields["classifier_pooling"] = config.classifier_pooling;
  fields["cls_token_id"] = config.cls_token_id;
  fields["decoder_bias"] = config.decoder_bias;
  fields["embedding_dropout"] = config.embedding_dropout;
  fields["eos_token_id"] = config.eos_token_id;
  fields["initializer_cutoff_factor"] = config.initializer_cutoff_factor;
  fields["local_attention"] = config.local_attention;
  fields["mlp_bias"] = config.mlp_bias;
  fields["norm_bias"] = config.norm_bias;
  fields["norm_eps"] = config.layer_norm_eps;
  fields["sep_token_id"] = config.sep_token_id;
  if (pattern_is_every_n(config)) {
    fields["global_attn_every_n_layers"] = config.global_attn_every_n_layers;
    fields["global_rope_theta"] = config.global_rope_theta;
    fields["local_rope_theta"] = config.local_rope_theta;
  }
  nlohmann::ordered_json types = nlohmann::ordered_json::array();
  for (std::int64_t l = 0; l < config.num_hidden_layers; ++l) {
    types.push_back(config.attention_window(l) >= 0 ? kSliding : kFull);
  }
  fields["layer_types"] = std::move(types);
  nlohmann::ordered_json rope = nlohmann::ordered_json::object();
  rope[kFull] = {{"rope_theta", config.global_rope_theta}, {"rope_type", "default"}};
  rope[kSliding] = {{"rope_theta", config.local_rope_theta}, {"rope_type", "default"}};
  fields["rope_parameters"] = std::move(rope);
}

void validate_modernbert(const BertConfig& config, const std::string& source) {
  if (config.attention_probs_dropout_prob != 0) {
    fail_input("{}: attention_dropout is {}; shmtrain's tiled attention (which keeps no probabilities for a "
               "dropout mask) needs 0, as every released ModernBERT config has",
               source, config.attention_probs_dropout_prob);
  }
  if (config.global_attn_every_n_layers < 1) {
    fail_input("{}: global_attn_every_n_layers must be at least 1, got {}", source,
               config.global_attn_every_n_layers);
  }
  if (config.local_attention < 0 || config.local_attention > 2 * ConfigLimits::kPositions) {
    fail_input("{}: local_attention must be in [0, {}], got {}", source, 2 * ConfigLimits::kPositions,
               config.local_attention);
  }
  if (!config.layer_types.empty() && static_cast<std::int64_t>(config.layer_types.size()) != config.num_hidden_layers) {
    fail_input("{}: layer_types has {} entries for {} layers", source, config.layer_types.size(),
               config.num_hidden_layers);
  }
  for (const auto& [key, theta] :
       {std::pair{"global_rope_theta", config.global_rope_theta}, {"local_rope_theta", config.local_rope_theta}}) {
    if (!(theta > 1.0) || !std::isfinite(theta)) fail_input("{}: {} must be a number above 1, got {}", source, key, theta);
  }
  if (config.classifier_pooling != "cls" && config.classifier_pooling != "mean") {
    fail_input("{}: classifier_pooling '{}' is not \"cls\" or \"mean\"", source, config.classifier_pooling);
  }
  if (config.classifier_activation != "gelu") {
    fail_input("{}: classifier_activation '{}' is not supported (shmtrain implements \"gelu\", the exact erf form)",
               source, config.classifier_activation);
  }
  for (const auto& [key, p] : {std::pair{"embedding_dropout", config.embedding_dropout},
                               {"classifier_dropout", config.classifier_dropout}}) {
    if (p < 0 || p >= 1) fail_input("{}: {} must be in [0, 1), got {}", source, key, p);
  }
  if (!(config.initializer_cutoff_factor > 0)) {
    fail_input("{}: initializer_cutoff_factor must be positive, got {}", source, config.initializer_cutoff_factor);
  }
  if (config.head_dim() % 2 != 0) {
    fail_input("{}: hidden_size / num_attention_heads = {} is odd; rotary embeddings need an even head size", source,
               config.head_dim());
  }
}

// ModernBertPreTrainedModel._init_weights: "in" layers at initializer_range, the layers that
// write into the residual stream (and head.dense) at initializer_range / sqrt(2 * layers), the
// task classifier at hidden_size^-0.5.
double modernbert_init_std(const BertConfig& config, std::string_view name) {
  const double in = config.initializer_range;
  if (name.ends_with("attn.Wo.weight") || name.ends_with("mlp.Wo.weight") || name == "head.dense.weight") {
    return in / std::sqrt(2.0 * static_cast<double>(config.num_hidden_layers));
  }
  if (name == "classifier.weight") return 1.0 / std::sqrt(static_cast<double>(config.hidden_size));
  return in;
}

}  // namespace

const Architecture& modernbert_architecture() {
  static const Architecture modernbert{
      .model_type = "modernbert",
      .class_prefix = "ModernBert",
      .display_name = "ModernBERT",
      .base_prefix = "model.",
      .layer_prefix = "model.layers.{}.",
      .embeddings = {"embeddings.tok_embeddings", "embeddings.norm"},
      // query, key, value, qkv, attention_output, attention_norm, intermediate, output, output_norm
      .layer = {nullptr, nullptr, nullptr, "attn.Wqkv", "attn.Wo", "attn_norm", "mlp.Wi", "mlp.Wo", "mlp_norm"},
      .structure = {.norm = NormPlacement::kBeforeBlock,
                    .first_attention_norm = false,
                    .feed_forward = FeedForward::kGeglu,
                    .positions = PositionEncoding::kRotary,
                    .attention = AttentionKind::kRotaryTiled,
                    .attention_output_dropout = false,  // out_drop: attention_dropout, refused > 0
                    .dropout_inside_feed_forward = true,
                    .embedding_dropout = &BertConfig::embedding_dropout,
                    .final_norm = "model.final_norm"},
      .pooler = "head.dense",
      .pooler_is_head = true,  // ModernBertPredictionHead: in MLM checkpoints, not in ModernBertModel's
      .pooler_activation = Activation::kGelu,
      .pooler_norm = "head.norm",
      .token_heads_use_pooler = true,
      .classifier = "classifier",
      .pooler_input_dropout = nullptr,
      .qa_outputs = "classifier",
      .classifier_dropout = &BertConfig::classifier_dropout,
      .token_dropout = &BertConfig::classifier_dropout,
      .qa_dropout = &BertConfig::classifier_dropout,
      .masked_lm = {"head.dense", "head.norm", "decoder.bias"},
      .multiple_choice = ChoiceHead::kSequenceHead,
      .choice_pooler = nullptr,
      .choice_activation = Activation::kTanh,  // unused
      .choice_dropout = nullptr,
      .zero_padding_embedding = false,
      .init_std = modernbert_init_std,
      // hidden_size, num_hidden_layers, num_attention_heads, intermediate_size, hidden_act,
      // hidden_dropout_prob (the feed-forward's), attention_probs_dropout_prob
      .keys = {"hidden_size", "num_hidden_layers", "num_attention_heads", "intermediate_size", "hidden_activation",
               "mlp_dropout", "attention_dropout"},
      .set_defaults = set_modernbert_defaults,
      .read_config = read_modernbert_config,
      .write_config = write_modernbert_config,
      .validate = validate_modernbert};
  return modernbert;
}

}  // namespace shmtrain::model
