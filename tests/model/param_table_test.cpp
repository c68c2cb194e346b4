// The weight-decay rule of Hugging Face's Trainer (get_decay_parameter_names: no decay for
// biases and for every parameter of a LayerNorm module, found by module type) over every
// family's parameter table and head: the parameters without decay are exactly the biases and
// the family's LayerNorm modules, named here as transformers names them.
#include "shmtrain/model/param_table.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "shmtrain/model/bert_config.hpp"

namespace shmtrain::model {
namespace {

struct Family {
  const char* model_type;
  // The LayerNorm modules' names (in layer 0 for the layers' ones), as transformers has them.
  std::vector<std::string> norms;
};

std::set<std::string> undecayed(const ParamTable& table) {
  std::set<std::string> out;
  for (const ParamEntry& e : table.entries()) {
    if (!e.decay) out.insert(e.name);
  }
  return out;
}

class DecayRule : public ::testing::TestWithParam<Family> {};

TEST_P(DecayRule, NoDecayForBiasesAndLayerNormModulesOnly) {
  const Family family = GetParam();
  for (const ModelHead head :
       {ModelHead::kSequenceClassification, ModelHead::kQuestionAnswering, ModelHead::kTokenClassification}) {
    BertConfig config;
    config.model_type = family.model_type;
    config.num_hidden_layers = 1;
    config.hidden_size = 8;
    config.num_attention_heads = 2;
    config.intermediate_size = 16;
    config.vocab_size = 10;
    config.max_position_embeddings = 12;
    if (config.model_type == "distilbert") config.type_vocab_size = 0;
    config.head = head;
    const ParamTable table = ParamTable::for_model(config);
    std::set<std::string> expected;
    for (const std::string& norm : family.norms) {
      expected.insert(norm + ".weight");
      expected.insert(norm + ".bias");
    }
    for (const ParamEntry& e : table.entries()) {
      if (e.name.ends_with(".bias")) expected.insert(e.name);
    }
    EXPECT_EQ(undecayed(table), expected) << family.model_type;
    for (const ParamEntry& e : table.entries()) {
      const bool norm = family.norms.end() != std::find_if(family.norms.begin(), family.norms.end(), [&](const std::string& n) {
        return e.name.starts_with(n + ".");
      });
      EXPECT_EQ(e.kind == ParamKind::kNorm, norm) << e.name;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    Families, DecayRule,
    ::testing::Values(
        Family{"bert",
               {"bert.embeddings.LayerNorm", "bert.encoder.layer.0.attention.output.LayerNorm",
                "bert.encoder.layer.0.output.LayerNorm"}},
        Family{"roberta",
               {"roberta.embeddings.LayerNorm", "roberta.encoder.layer.0.attention.output.LayerNorm",
                "roberta.encoder.layer.0.output.LayerNorm"}},
        Family{"xlm-roberta",
               {"roberta.embeddings.LayerNorm", "roberta.encoder.layer.0.attention.output.LayerNorm",
                "roberta.encoder.layer.0.output.LayerNorm"}},
        Family{"distilbert",
               {"distilbert.embeddings.LayerNorm", "distilbert.transformer.layer.0.sa_layer_norm",
                "distilbert.transformer.layer.0.output_layer_norm"}},
        Family{"electra",
               {"electra.embeddings.LayerNorm", "electra.encoder.layer.0.attention.output.LayerNorm",
                "electra.encoder.layer.0.output.LayerNorm"}},
        // Layer 0 has no attn_norm (Identity); every head runs head.norm.
        Family{"modernbert", {"model.embeddings.norm", "model.layers.0.mlp_norm", "model.final_norm", "head.norm"}}),
    [](const ::testing::TestParamInfo<Family>& family) {
      std::string name = family.param.model_type;
      std::erase(name, '-');
      return name;
    });

}  // namespace
}  // namespace shmtrain::model
