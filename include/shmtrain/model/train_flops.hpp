#pragma once
// The floating-point operations a model needs to train on its real tokens: the useful work that
// runs, benchmarks and the report divide by time, compared with the machine's rate on the model's
// own linear shapes (layer_linear_shapes). One count for every family, forward 1x and backward 2x
// (input and weight gradients) of each product's multiply-adds x 2:
//   - per sequence of L real tokens (no padding): ELECTRA's embeddings_project (L x E x H); per
//     layer the linears (L x H x (4H + I + I, or 2I for GeGLU's first)) and the two attention
//     products over the keys each query sees (L^2 x H globally; within 2 x window + 1 keys on a
//     sliding layer); DeBERTa's position terms, each query (c2p) or key (p2c) against the table
//     rows the sequence reaches (L x rows x H per term);
//   - per batch: DeBERTa's position tables projected per layer by the key (c2p) and query (p2c)
//     linears (rows x H x H per term, rows reached by the batch's longest sequence);
//   - the head: sequence classification and multiple choice, per sequence (per choice) its dense
//     layer (H x H) and classifier (H x outputs); question answering and token classification,
//     per real token its classifier (H x outputs) and ModernBERT's prediction head (H x H);
//     masked LM, per masked token its transform (H x H) and vocabulary projection (H x V).
// Where the head reads only each sequence's first token (last_layer_pooled), the last layer needs
// the keys and values of every token but the query, attention output, residual, norms and
// feed-forward of that one row: that is what is counted, whether or not the run skips the rest.
// Embedding look-ups, norms, activations, dropout, softmax and losses are not counted.
#include <cstdint>
#include <vector>

#include "shmtrain/data/batch.hpp"
#include "shmtrain/model/bert_config.hpp"
#include "shmtrain/tensor/linear_rate.hpp"

namespace shmtrain::model {

// The model's head reads one row per sequence (its first token) of the last layer, and the last
// layer's attention lets that row alone be computed: sequence classification and multiple choice
// with first-token pooling, on a family with scaled-dot-product attention.
bool last_layer_pooled(const BertConfig& config);

// One sequence of `length` real tokens through the encoder (embeddings projection and layers).
// pooled: its last layer computed for the first token only (last_layer_pooled).
double sequence_train_flops(const BertConfig& config, std::int64_t length, bool pooled = false);

// A batch's: every sequence's real tokens, DeBERTa's table projections and the head's products.
double batch_train_flops(const BertConfig& config, const data::Batch& batch);

// One encoder layer's linears over `tokens` rows: Q/K/V, attention output, the feed-forward's two.
std::vector<tensor::LinearShape> layer_linear_shapes(const BertConfig& config, std::int64_t tokens);

}  // namespace shmtrain::model
