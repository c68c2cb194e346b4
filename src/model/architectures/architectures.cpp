#include "architecture.hpp"

#include <array>

#include <fmt/format.h>

#include "model/config/config_object.hpp"
#include "shmtrain/common/error.hpp"

namespace shmtrain::model {

const Architecture& bert_architecture();        // bert.cpp
const Architecture& distilbert_architecture();  // distilbert.cpp
const Architecture& roberta_architecture();     // roberta.cpp
const Architecture& xlm_roberta_architecture();  // roberta.cpp
const Architecture& camembert_architecture();   // roberta.cpp
const Architecture& modernbert_architecture();  // modernbert.cpp
const Architecture& electra_architecture();     // electra.cpp
const Architecture& deberta_v2_architecture();  // deberta_v2.cpp

namespace {

std::array<const Architecture*, 8> all_architectures() {
  return {&bert_architecture(),        &distilbert_architecture(), &roberta_architecture(),
          &xlm_roberta_architecture(), &camembert_architecture(),  &electra_architecture(),
          &deberta_v2_architecture(),  &modernbert_architecture()};
}

}  // namespace

const Architecture* find_architecture(std::string_view model_type) {
  for (const Architecture* a : all_architectures()) {
    if (model_type == a->model_type) return a;
  }
  return nullptr;
}

const Architecture& architecture_of(const BertConfig& config) {
  const Architecture* a = find_architecture(config.model_type);
  if (a == nullptr) throw Error(fmt::format("model_type '{}' has no architecture", config.model_type));
  return *a;
}

void read_classifier_dropout(const ConfigObject& config, const BertConfig& out) {
  if (config.non_null("classifier_dropout") == nullptr) return;
  double classifier_dropout = 0;
  config.read("classifier_dropout", classifier_dropout);
  if (classifier_dropout != out.hidden_dropout_prob) {
    config.fail("classifier_dropout",
                "{} differs from hidden_dropout_prob {}; shmtrain's classifier uses hidden_dropout_prob, so set "
                "classifier_dropout to null or to the same value",
                classifier_dropout, out.hidden_dropout_prob);
  }
}

LayerStructure post_norm_structure(PositionEncoding positions, bool attention_output_dropout) {
  return {.norm = NormPlacement::kAfterResidual,
          .first_attention_norm = true,
          .feed_forward = FeedForward::kGelu,
          .positions = positions,
          .attention = AttentionKind::kScaledDotProduct,
          .attention_output_dropout = attention_output_dropout,
          .dropout_inside_feed_forward = false,
          .embedding_dropout = &BertConfig::hidden_dropout_prob,
          .final_norm = nullptr};
}

std::int64_t usable_positions(const BertConfig& config) {
  if (architecture_of(config).structure.positions != PositionEncoding::kLearnedFromIds) {
    return config.max_position_embeddings;
  }
  return config.max_position_embeddings - config.pad_token_id - 1;
}

std::string supported_model_types() {
  std::string text;
  const auto all = all_architectures();
  for (std::size_t i = 0; i < all.size(); ++i) {
    if (i > 0) text += i + 1 == all.size() ? " and " : ", ";
    text += fmt::format("{} (\"{}\")", all[i]->display_name, all[i]->model_type);
  }
  return text;
}

}  // namespace shmtrain::model
