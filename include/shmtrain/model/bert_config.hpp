#pragma once
// The architecture hyper-parameters of a BERT-class model. Field names are Hugging Face's
// BertConfig / config.json names; a DistilBERT config (model_type "distilbert") fills the same
// fields from DistilBertConfig's keys (dim -> hidden_size, n_layers -> num_hidden_layers,
// n_heads -> num_attention_heads, hidden_dim -> intermediate_size, activation -> hidden_act,
// dropout -> hidden_dropout_prob, attention_dropout -> attention_probs_dropout_prob) and has
// no token types (type_vocab_size 0). A ModernBERT config (model_type "modernbert") maps its
// keys the same way (hidden_activation -> hidden_act, norm_eps -> layer_norm_eps, mlp_dropout ->
// hidden_dropout_prob, attention_dropout -> attention_probs_dropout_prob) and fills the fields
// below that only it has. model/hf_config.hpp reads and writes config.json; what differs
// between the families is in src/model/architectures/.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "shmtrain/model/reranking/listwise_loss.hpp"
#include "shmtrain/model/sentence/sentence_options.hpp"

namespace shmtrain::model {

// The task head on the encoder, as the script picks its AutoModelFor... class: run_glue's
// sequence classification, run_qa's extractive question answering, run_ner's token
// classification.
// The task head on the encoder (<Family>For<Head>): masked LM predicts the vocabulary at the
// labelled tokens (decoder tied to the word embeddings); multiple choice scores each choice's row
// with one output and takes the softmax over an example's choices (data/batch.hpp's `choices`).
// kSentenceEmbedding: the bare encoder (<Family>Model) under sentence-transformers' Pooling,
// Normalize and loss (model/sentence/); its options are config.sentence.
enum class ModelHead {
  kSequenceClassification,
  kQuestionAnswering,
  kTokenClassification,
  kMaskedLm,
  kMultipleChoice,
  kSentenceEmbedding
};

// Bounds on the sizes config.json may give, checked before anything is allocated: each is far
// above every released encoder (XLM-R's 250,002 tokens, BERT-large's 24 layers of 1,024) and
// low enough that every product of them fits an int64 and names a model a machine could hold.
struct ConfigLimits {
  static constexpr std::int64_t kVocabSize = std::int64_t{1} << 22;
  static constexpr std::int64_t kHiddenSize = std::int64_t{1} << 15;
  static constexpr std::int64_t kLayers = 1024;
  static constexpr std::int64_t kIntermediateSize = std::int64_t{1} << 17;
  static constexpr std::int64_t kPositions = std::int64_t{1} << 17;
  static constexpr std::int64_t kTokenTypes = std::int64_t{1} << 16;
  static constexpr std::int64_t kLabels = std::int64_t{1} << 17;
  static constexpr std::int64_t kParameters = std::int64_t{1} << 36;  // 256 GiB of fp32
};

struct BertConfig {
  std::string model_type = "bert";  // a family of src/model/architectures/: "bert", "roberta", ...
  std::vector<std::string> architectures = {"BertForSequenceClassification"};
  std::int64_t vocab_size = 30522;
  std::int64_t hidden_size = 768;
  std::int64_t num_hidden_layers = 12;
  std::int64_t num_attention_heads = 12;
  std::int64_t intermediate_size = 3072;
  // ELECTRA: the embeddings' width, projected to hidden_size by `embeddings_project` when it
  // differs; 0 for every other family (the embeddings are hidden_size wide).
  std::int64_t embedding_size = 0;
  std::string hidden_act = "gelu";  // the exact erf form; the only one supported
  double hidden_dropout_prob = 0.1;
  double attention_probs_dropout_prob = 0.1;
  std::int64_t max_position_embeddings = 512;
  std::int64_t type_vocab_size = 2;  // 0: no token type embeddings (DistilBERT)
  double initializer_range = 0.02;
  double layer_norm_eps = 1e-12;
  std::int64_t pad_token_id = 0;
  // RoBERTa's <s> and </s> ids, written back to config.json as read (BERT has none).
  std::int64_t bos_token_id = 0;
  std::int64_t eos_token_id = 2;
  std::string position_embedding_type = "absolute";  // the only one supported
  std::string problem_type;                          // "", "regression", "single_label_classification"
  // The loss of a one-score head (num_labels 1): Hugging Face's regression (MSELoss), or a
  // reranker's (--task_name reranking): BCEWithLogitsLoss with pos_weight (sentence-transformers'
  // BinaryCrossEntropyLoss), or over lists of candidates (data::Batch::list_lengths)
  // ListNetLoss or LambdaLoss with its weighting scheme (model/reranking/listwise_loss.hpp).
  // Not config.json keys: the run sets them.
  // kMultipleNegatives: sentence-transformers' cross-encoder MultipleNegativesRankingLoss, each list
  // a query's positive first, then its negatives: cross-entropy of ranking_scale x sigmoid(score).
  enum class ScoreLoss { kMeanSquaredError, kBinaryCrossEntropy, kListNet, kLambda, kMultipleNegatives };
  ScoreLoss score_loss = ScoreLoss::kMeanSquaredError;
  float pos_weight = 1.0f;
  reranking::LambdaWeighting lambda_weighting = reranking::LambdaWeighting::kNdcgLoss2PP;
  float ranking_scale = 10.0f;
  // A cross-encoder (--task_name reranking): the saved folder carries sentence-transformers'
  // CrossEncoder files, its activation Sigmoid for one score, Identity for classes.
  bool cross_encoder = false;
  bool listwise() const {
    return score_loss == ScoreLoss::kListNet || score_loss == ScoreLoss::kLambda ||
           score_loss == ScoreLoss::kMultipleNegatives;
  }
  // Classification head: label names by id. num_labels() == id2label.size(); 1 = regression.
  // The question-answering head has num_labels() == 2 outputs (start, end).
  std::vector<std::string> id2label = {"LABEL_0", "LABEL_1"};
  // DistilBERT's head dropouts (DistilBertConfig): before the classifier, before qa_outputs.
  // BERT's classifier uses hidden_dropout_prob; BertForQuestionAnswering has no dropout.
  double seq_classif_dropout = 0.2;
  double qa_dropout = 0.1;
  // Biases of the encoder's linears and norms, and of the head's dense layer: every module of
  // BERT's families has them; ModernBERT's config.json says (attention_bias, mlp_bias,
  // norm_bias, classifier_bias; all false in the released checkpoints).
  bool attention_bias = true;
  bool mlp_bias = true;
  bool norm_bias = true;
  bool classifier_bias = true;
  // ModernBERT (ModernBertConfig). Layer i's attention is "full_attention" (every key of its
  // sequence) or "sliding_attention" (keys within local_attention / 2 positions on each side);
  // rotary positions turn at global_rope_theta on the first kind, local_rope_theta on the
  // second. config.json spells the pattern as layer_types and rope_parameters (transformers 5)
  // or as global_attn_every_n_layers and the two thetas (4.48 to 4.5x); both are read.
  std::vector<std::string> layer_types;  // empty: every layer full (BERT's families)
  std::int64_t global_attn_every_n_layers = 3;
  std::int64_t local_attention = 128;
  double global_rope_theta = 160000.0;
  double local_rope_theta = 10000.0;
  std::string classifier_pooling = "cls";  // "cls": the first token; "mean": the real tokens' mean
  std::string classifier_activation = "gelu";
  double embedding_dropout = 0.0;
  double classifier_dropout = 0.0;
  double initializer_cutoff_factor = 2.0;  // truncated-normal init at +-cutoff * std
  std::int64_t cls_token_id = 0;
  std::int64_t sep_token_id = 0;
  bool decoder_bias = true;  // the MLM head's, written back as read
  // The masked-LM decoder is the word-embedding matrix (PretrainedConfig's default); false is
  // refused for that head.
  bool tie_word_embeddings = true;
  // DeBERTa-v2/v3 (DebertaV2Config): disentangled attention (tensor/disentangled_attention.hpp)
  // over relative positions, log-bucketed when position_buckets > 0, read from the encoder's
  // rel_embeddings table (2 x position_buckets rows, or 2 x max_relative_positions), LayerNorm'd
  // when norm_rel_ebd has "layer_norm", projected by each layer's query_proj / key_proj
  // (share_att_key) or its own pos_query_proj / pos_key_proj. pos_att_type lists the terms
  // ("c2p", "p2c"); config.json spells it "p2c|c2p" or as a list, written back as read.
  bool relative_attention = false;
  std::int64_t position_buckets = -1;
  std::int64_t max_relative_positions = -1;  // < 1: max_position_embeddings
  std::vector<std::string> pos_att_type;
  bool pos_att_type_string = false;
  bool share_att_key = false;
  std::string norm_rel_ebd = "none";
  bool position_biased_input = true;  // false: no absolute position table (DeBERTa-v3)
  // DeBERTa's ContextPooler: dropout(pooler_dropout) on token 0, dense, pooler_hidden_act; then
  // dropout(hidden_dropout_prob) before the classifier.
  std::int64_t pooler_hidden_size = 0;  // 0: hidden_size
  double pooler_dropout = 0.0;
  std::string pooler_hidden_act = "gelu";
  // ELECTRA's SequenceSummary (ElectraForMultipleChoice): the first token, a dense layer
  // (summary_use_proj), summary_activation, dropout summary_last_dropout; written back as read.
  std::string summary_type = "first";
  bool summary_use_proj = true;
  std::string summary_activation = "gelu";
  double summary_last_dropout = 0.1;
  double summary_first_dropout = 0.0;
  bool has_summary_first_dropout = false;
  // Chosen by the run (the task), not by config.json: HF's scripts load any checkpoint into
  // the head class they need. architectures records it when the model is written.
  ModelHead head = ModelHead::kSequenceClassification;
  // kSentenceEmbedding: the run's pooling, normalisation and loss (not in config.json: a
  // sentence-transformers folder keeps them in its modules' files).
  sentence::SentenceOptions sentence;

  std::int64_t num_labels() const { return static_cast<std::int64_t>(id2label.size()); }
  std::int64_t head_dim() const { return hidden_size / num_attention_heads; }
  std::int64_t embedding_width() const { return embedding_size > 0 ? embedding_size : hidden_size; }
  bool projects_embeddings() const { return embedding_width() != hidden_size; }
  bool is_regression() const { return head == ModelHead::kSequenceClassification && num_labels() == 1; }
  // The head's outputs per row (per token for token heads): num_labels; 1 for multiple choice;
  // vocab_size for masked LM.
  std::int64_t head_outputs() const;
  bool has_token_types() const { return type_vocab_size > 0; }
  // An absolute position table: every family but ModernBERT (rotary) and DeBERTa without
  // position_biased_input.
  bool has_position_table() const;
  // DeBERTa's terms; the distance its log buckets reach (max_relative_positions, or
  // max_position_embeddings when < 1); and half the rows of its position table
  // (position_buckets, or that distance without buckets).
  bool c2p() const;
  bool p2c() const;
  std::int64_t max_relative_distance() const;
  std::int64_t relative_span() const;
  // The transformers class of this model type and head: "BertForSequenceClassification",
  // "BertForQuestionAnswering", "DistilBertForSequenceClassification",
  // "DistilBertForQuestionAnswering".
  std::string architecture() const;
  // The longest sequence the position table holds: max_position_embeddings, less RoBERTa's
  // pad_token_id + 1 rows that real tokens never use (514 -> 512).
  std::int64_t max_sequence_length() const;
  // The state_dict prefix of the encoder: "bert." or "distilbert.".
  std::string base_prefix() const;
  // Layer `layer`'s attention: -1 for every key of the sequence, else the distance on each side
  // a sliding layer sees (local_attention / 2).
  std::int64_t attention_window(std::int64_t layer) const;
  // Layer `layer`'s rotary theta (ModernBERT).
  double rope_theta(std::int64_t layer) const;

  // REQUIRES nothing; throws InputError naming the key when a value is out of range or two
  // values disagree (hidden_size not divisible by num_attention_heads, ...). `source` names
  // the file for the message.
  void validate(const std::string& source) const;
};

}  // namespace shmtrain::model
