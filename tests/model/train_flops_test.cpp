// The useful-FLOP count (model/train_flops.hpp) against counts written out by hand, one family
// and head at a time: multiply-adds of each product, x 2, x 3 for training.
#include <gtest/gtest.h>

#include <string>

#include "shmtrain/data/dataset.hpp"
#include "shmtrain/model/hf_config.hpp"
#include "shmtrain/model/train_flops.hpp"

namespace train_flops_test {
namespace {

using shmtrain::data::Batch;
using shmtrain::model::BertConfig;
using shmtrain::model::ModelHead;

BertConfig config_of(const std::string& json, ModelHead head = ModelHead::kSequenceClassification) {
  BertConfig c = shmtrain::model::parse_hf_config(json, "config.json");
  c.head = head;
  return c;
}

// Packed rows of these lengths.
Batch packed(std::initializer_list<std::int32_t> lengths) {
  Batch b;
  b.offsets.push_back(0);
  for (const std::int32_t l : lengths) {
    b.offsets.push_back(b.offsets.back() + l);
    b.seq = std::max<std::int64_t>(b.seq, l);
  }
  b.batch = static_cast<std::int64_t>(lengths.size());
  b.input_ids.assign(static_cast<std::size_t>(b.offsets.back()), 5);
  b.labels.assign(static_cast<std::size_t>(b.batch), 0);
  return b;
}

constexpr double kTrain = 3.0 * 2.0;  // x 2 per multiply-add, forward + two backward products

// BERT, h 4, I 8, 2 layers, 2 labels; one row of 5 tokens.
const char* const kBert = R"({"model_type": "bert", "architectures": ["BertForSequenceClassification"],
  "hidden_size": 4, "intermediate_size": 8, "num_hidden_layers": 2, "num_attention_heads": 2,
  "vocab_size": 50, "max_position_embeddings": 16})";

TEST(TrainFlops, BertClassificationCountsOnlyThePooledRowOfTheLastLayer) {
  const BertConfig c = config_of(kBert);
  ASSERT_TRUE(shmtrain::model::last_layer_pooled(c));
  // Layer 0, 5 tokens: linears 5 x 4 x (4 x 4 + 8 + 8) = 640; scores and context 2 x 25 x 4 = 200.
  // Layer 1: K and V of 5 tokens 5 x 2 x 16 = 160; token 0's Q 16, output 16, feed-forward 64;
  // its scores and context over 5 keys 2 x 5 x 4 = 40. Head: pooler 16 + classifier 4 x 2 = 24.
  const double hand = kTrain * ((640 + 200) + (160 + 16 + 16 + 64 + 40) + 24);
  EXPECT_DOUBLE_EQ(shmtrain::model::batch_train_flops(c, packed({5})), hand);
  // Without the pooled row, layer 1 is layer 0's.
  EXPECT_DOUBLE_EQ(shmtrain::model::sequence_train_flops(c, 5), kTrain * 2 * (640 + 200));
}

TEST(TrainFlops, PaddingIsNotCounted) {
  const BertConfig c = config_of(kBert);
  Batch padded;
  padded.batch = 2;
  padded.seq = 6;
  padded.input_ids.assign(12, 5);
  padded.attention_mask = {1, 1, 1, 1, 1, 0, 1, 1, 1, 0, 0, 0};
  padded.labels = {0, 1};
  EXPECT_DOUBLE_EQ(shmtrain::model::batch_train_flops(c, padded),
                   shmtrain::model::batch_train_flops(c, packed({5, 3})));
}

TEST(TrainFlops, BertQuestionAnsweringCountsEveryTokenAndItsClassifier) {
  BertConfig c = config_of(kBert);
  c.head = ModelHead::kQuestionAnswering;
  EXPECT_FALSE(shmtrain::model::last_layer_pooled(c));
  // Two full layers (840 each) and qa_outputs 4 x 2 on each of 5 tokens.
  EXPECT_DOUBLE_EQ(shmtrain::model::batch_train_flops(c, packed({5})), kTrain * (2 * 840 + 5 * 8));
}

TEST(TrainFlops, BertMaskedLmCountsTheTransformAndVocabularyOfTheMaskedTokens) {
  BertConfig c = config_of(kBert);
  c.head = ModelHead::kMaskedLm;
  Batch b = packed({5});
  b.labels = {-100, 7, -100, 9, -100};
  // Two full layers, and for 2 masked tokens: transform 4 x 4 and decoder 4 x 50.
  EXPECT_DOUBLE_EQ(shmtrain::model::batch_train_flops(c, b), kTrain * (2 * 840 + 2 * (16 + 200)));
}

TEST(TrainFlops, DistilBertTokenClassification) {
  const BertConfig c = config_of(R"({"model_type": "distilbert", "architectures": ["DistilBertForTokenClassification"],
    "dim": 4, "hidden_dim": 8, "n_layers": 2, "n_heads": 2, "vocab_size": 50, "max_position_embeddings": 16,
    "id2label": {"0": "O", "1": "B", "2": "I"}})", ModelHead::kTokenClassification);
  // BERT's layers; the classifier 4 x 3 on each of 5 tokens.
  EXPECT_DOUBLE_EQ(shmtrain::model::batch_train_flops(c, packed({5})), kTrain * (2 * 840 + 5 * 12));
}

TEST(TrainFlops, RobertaMultipleChoiceCountsEachChoiceRow) {
  const BertConfig c = config_of(R"({"model_type": "roberta", "architectures": ["RobertaForMultipleChoice"],
    "hidden_size": 4, "intermediate_size": 8, "num_hidden_layers": 2, "num_attention_heads": 2,
    "vocab_size": 50, "max_position_embeddings": 20, "pad_token_id": 1})", ModelHead::kMultipleChoice);
  Batch b = packed({5, 3});
  b.choices = 2;
  b.labels = {1};
  // Row of 3: layer 0 3 x 128 + 2 x 9 x 4 = 456; layer 1 3 x 32 + 96 + 2 x 3 x 4 = 216.
  // Head per choice row: pooler 16 + classifier 4 x 1.
  const double row5 = 840 + 296, row3 = 456 + 216;
  EXPECT_DOUBLE_EQ(shmtrain::model::batch_train_flops(c, b), kTrain * (row5 + row3 + 2 * 20));
}

TEST(TrainFlops, ElectraCountsItsEmbeddingsProjection) {
  const BertConfig c = config_of(R"({"model_type": "electra", "architectures": ["ElectraForSequenceClassification"],
    "embedding_size": 2, "hidden_size": 4, "intermediate_size": 8, "num_hidden_layers": 2,
    "num_attention_heads": 2, "vocab_size": 50, "max_position_embeddings": 16})");
  // BERT's count on 5 tokens, plus embeddings_project 5 x 2 x 4.
  EXPECT_DOUBLE_EQ(shmtrain::model::batch_train_flops(c, packed({5})), kTrain * (840 + 296 + 24 + 40));
}

TEST(TrainFlops, DebertaCountsThePositionTermsAndTheTablesProjections) {
  const BertConfig c = config_of(R"({"model_type": "deberta-v2", "architectures": ["DebertaV2ForSequenceClassification"],
    "hidden_size": 4, "intermediate_size": 8, "num_hidden_layers": 2, "num_attention_heads": 2,
    "vocab_size": 50, "max_position_embeddings": 16, "relative_attention": true, "position_buckets": 8,
    "pos_att_type": "p2c|c2p", "position_biased_input": false, "type_vocab_size": 0, "pooler_hidden_size": 4})");
  EXPECT_FALSE(shmtrain::model::last_layer_pooled(c));  // the disentangled attention: every row
  // 5 tokens: distances -4..4, each its own bucket (|d| <= position_buckets / 2): 9 table rows.
  // Per layer: 840, plus c2p and p2c, each 5 x 9 x 4 = 180; per batch per layer the table's key
  // and query projections, 9 x 4 x 4 each. Head: ContextPooler dense 16 + classifier 8.
  EXPECT_DOUBLE_EQ(shmtrain::model::batch_train_flops(c, packed({5})),
                   kTrain * (2 * (840 + 2 * 180) + 2 * 2 * 144 + 24));
}

TEST(TrainFlops, ModernBertCountsGegluSlidingWindowsAndItsTokenPredictionHead) {
  const BertConfig c = config_of(R"({"model_type": "modernbert", "architectures": ["ModernBertForQuestionAnswering"],
    "hidden_size": 4, "intermediate_size": 6, "num_hidden_layers": 4, "num_attention_heads": 2,
    "vocab_size": 50, "max_position_embeddings": 64, "local_attention": 8, "global_attn_every_n_layers": 3,
    "pad_token_id": 0, "bos_token_id": 1, "eos_token_id": 2, "cls_token_id": 1, "sep_token_id": 2})",
                                  ModelHead::kQuestionAnswering);
  // Per token: 4 x (4 x 4 + 2 x 6 (GeGLU's W_i) + 6) = 136. 12 tokens: 1,632 per layer.
  // Layers 0 and 3 global: 144 pairs; 1 and 2 within 4 keys each side: 5+6+7+8+9+9+9+9+8+7+6+5 = 88.
  // QA: the prediction head's dense 4 x 4 and the classifier 4 x 2 on every token.
  const double layers = 4 * 1632 + 2 * (2 * 144 * 4) + 2 * (2 * 88 * 4);
  EXPECT_DOUBLE_EQ(shmtrain::model::batch_train_flops(c, packed({12})), kTrain * (layers + 12 * 24));
}

TEST(TrainFlops, LinearShapesAreTheLayersFour) {
  const BertConfig c = config_of(kBert);
  const auto shapes = shmtrain::model::layer_linear_shapes(c, 10);
  ASSERT_EQ(shapes.size(), 4u);
  double total = 0;
  for (const auto& s : shapes) total += s.train_flops();
  EXPECT_DOUBLE_EQ(total, kTrain * 10 * 128);  // a layer's linears on 10 tokens
}

}  // namespace
}  // namespace train_flops_test
